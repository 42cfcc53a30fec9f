// What the kubelets measured of one workload's pods over time, as PromQL over the container metrics a
// cluster's Prometheus scrapes from every kubelet's cAdvisor (/metrics/cadvisor, as kube-prometheus
// does): CPU in cores and memory's working set in bytes, summed over the pods of one apps/v1 Deployment.
// metrics-server answers the same figures now but keeps no history. Pure.

export interface UsageMetricQueries {
  cpuCores: string;
  memoryBytes: string;
}

/** The letters of a ReplicaSet's pod-template-hash and of a pod's random suffix (apimachinery's
 * SafeEncodeString): a StatefulSet's pod (`shop-postgres-0`) or another Deployment's never matches. */
const generated = '[bcdfghjklmnpqrstvwxz2456789]';

/** The pods of the apps/v1 Deployment `name`: `<name>-<template hash>-<suffix>`. */
export function deploymentPodsPattern(name: string): string {
  // A Deployment's name is a DNS subdomain: only its dots need escaping (twice: in PromQL's string too).
  return `${name.replaceAll('.', '\\\\.')}-${generated}{1,10}-${generated}{5}`;
}

/** Over how long CPU's rate is taken: four scrapes of a Prometheus that scrapes every 30 s. */
const rateWindow = '2m';

/**
 * A sum over the pods `pods` (a PromQL selector) selects: over their containers where cAdvisor labels
 * them (not the sandbox's, "POD"), else over the pods' own cgroups (container ""), which hold the same
 * (a kubelet whose cAdvisor sees only those: the node's, on cgroup v1 with containerd). Never both,
 * which would count each container twice.
 */
function overPods(pods: string, series: (selector: string) => string): string {
  return `sum(${series(`${pods},container!="",container!="POD"`)}) or sum(${series(`${pods},container=""`)})`;
}

/** CPU in cores of the pods a selector names, its rate over `window`. */
export function cpuCoresOf(pods: string, window = rateWindow): string {
  return overPods(pods, (selector) => `rate(container_cpu_usage_seconds_total{${selector}}[${window}])`);
}

/** Memory's working set in bytes of the pods a selector names. */
export function memoryBytesOf(pods: string): string {
  return overPods(pods, (selector) => `container_memory_working_set_bytes{${selector}}`);
}

/** The queries of one Deployment's pods, in its namespace. */
export function usageMetricQueries(workload: { namespace: string; deployment: string }): UsageMetricQueries {
  const pods = `namespace="${workload.namespace}",pod=~"${deploymentPodsPattern(workload.deployment)}"`;
  return { cpuCores: cpuCoresOf(pods), memoryBytes: memoryBytesOf(pods) };
}

// The node's event-driven autoscaler: KEDA's operator and metrics adapter (scripts/build-keda.sh) run
// beside the kubelet as processes of the node. The operator turns each ScaledObject into a
// HorizontalPodAutoscaler and reads its triggers (Berth's: CPU, and the app's request concurrency from the
// node's Prometheus-compatible server, metrics-store.ts); the adapter serves those readings as
// external.metrics.k8s.io through the API server's aggregation layer, as on a cluster with KEDA. Both
// are the user system:keda (a client certificate of their own) with the rights upstream's manifests give
// KEDA; they talk to each other over mutual TLS with that same certificate, which the cluster's CA signs
// (pki.ts): the operator's gRPC port is on loopback, where only the node's own processes reach it.
//
// No one else is given rights on KEDA's kinds: upstream's roles that add them to Kubernetes' `edit` and
// `view` are not installed, so a team cannot make a ScaledObject whose trigger sends KEDA elsewhere.
import { join } from 'node:path';
import type { KubeObject } from '../../src/runtime/index.ts';
import { extensionApiObjects, partMetadata, roleBinding, upstreamClusterRole } from './extension-api.ts';
import { clusterDomain, dnsServiceIp, nodeIp } from './network.ts';

export const kedaUser = 'system:keda';
/** Where KEDA's objects live: its APIService's Service, and the namespace its operator calls its own. */
const kedaNamespace = 'kube-system';
const labels = { 'app.kubernetes.io/name': 'keda', 'app.kubernetes.io/managed-by': 'berth' };

/** Where the adapter listens: the node's address, where the API server reaches it. */
export const kedaAdapterAddress = { host: nodeIp, port: 20445 };
/** The operator's metrics service (gRPC, mutual TLS), which the adapter asks for each reading. */
const operatorGrpcAddress = { host: '127.0.0.1', port: 20966 };
/** The operator's and the adapter's own HTTP ports (metrics, health), moved off upstream's 8080 and 8081. */
const ports = { operatorMetrics: 20480, operatorHealth: 20481, adapterMetrics: 20482 };

/** Where the operator serves its Prometheus metrics (its scalers' readings among them): loopback. */
export const kedaOperatorMetricsAddress = { host: '127.0.0.1', port: ports.operatorMetrics };

/** The files of KEDA's certificate directory (the names both processes read: ca.crt, tls.crt, tls.key). */
export function kedaCertFiles(pki: { caCert: string; kedaCert: string; kedaKey: string }): Record<string, string> {
  return { 'ca.crt': pki.caCert, 'tls.crt': pki.kedaCert, 'tls.key': pki.kedaKey };
}

/** The operator's ClusterRole as upstream declares it (rbac/role.yaml of the build, scripts/build-keda.sh). */
export function kedaOperatorRole(kedaBin: string): KubeObject {
  const role = upstreamClusterRole(join(kedaBin, 'rbac/role.yaml'), 'keda-operator');
  return { ...role, metadata: { ...role.metadata, labels: { ...role.metadata?.labels, ...labels } } };
}

/**
 * Its rights (the operator's ClusterRole comes from upstream's file, applied beside these), the
 * aggregation layer's reader roles, the HPA controller's right to read external metrics, and the
 * APIService pointing at a Service whose one endpoint is the node's address.
 */
export function kedaObjects(): KubeObject[] {
  return [
    roleBinding(labels, 'keda-operator', 'keda-operator', { kind: 'User', name: kedaUser }),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: partMetadata(labels, 'keda-external-metrics-reader'),
      rules: [{ apiGroups: ['external.metrics.k8s.io'], resources: ['*'], verbs: ['*'] }],
    },
    roleBinding(labels, 'keda-hpa-controller-external-metrics', 'keda-external-metrics-reader', {
      kind: 'ServiceAccount',
      name: 'horizontal-pod-autoscaler',
      namespace: 'kube-system',
    }),
    ...extensionApiObjects({
      user: kedaUser,
      service: 'keda-metrics-apiserver',
      namespace: kedaNamespace,
      address: kedaAdapterAddress,
      group: 'external.metrics.k8s.io',
      version: 'v1beta1',
      labels,
    }),
  ] as KubeObject[];
}

/** What both processes are given in their environment: the namespace they call their own (as a pod
 * would read it from its service account). Secret access is not restricted to it, as upstream installs
 * KEDA: a durable agent server's queue worker scales on the runs in its Deployment's own Postgres, read
 * with that database's password from the queue worker's environment (src/reconcilers/deployment/render/
 * agent-server.ts). Only Berth writes triggers: no team has rights on KEDA's kinds. */
export const kedaEnvironment = {
  POD_NAMESPACE: kedaNamespace,
  KEDA_CLUSTER_OBJECT_NAMESPACE: kedaNamespace,
  WATCH_NAMESPACE: '',
};

/** The resolver configuration a pod gets: the cluster's DNS, and its domain to search. */
export function clusterResolvConf(): string {
  return `nameserver ${dnsServiceIp}\nsearch ${clusterDomain}\noptions ndots:5\n`;
}

/**
 * The operator dials its triggers' servers by their cluster names (a Deployment's Postgres at
 * `<name>-postgres.<namespace>.svc`) as it would in a pod: it runs in a mount namespace of its own
 * whose /etc/resolv.conf is `resolvConf` (clusterResolvConf). The host's resolver is unchanged.
 */
export function withClusterDns(resolvConf: string, binary: string, args: string[]): { binary: string; args: string[] } {
  return {
    binary: 'unshare',
    args: [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind "$0" /etc/resolv.conf && exec "$@"',
      resolvConf,
      binary,
      ...args,
    ],
  };
}

/** The operator's flags: its kubeconfig, its certificates (no rotation, no patching of others' objects). */
export function kedaOperatorArgs(input: { kubeconfig: string; certDir: string }): string[] {
  return [
    `--kubeconfig=${input.kubeconfig}`,
    `--cert-dir=${input.certDir}`,
    `--ca-dir=${input.certDir}`,
    '--enable-cert-rotation=false',
    '--enable-webhook-patching=false',
    '--enable-apiservice-patching=false',
    '--leader-elect=false',
    `--metrics-bind-address=127.0.0.1:${ports.operatorMetrics}`,
    `--health-probe-bind-address=127.0.0.1:${ports.operatorHealth}`,
    `--metrics-service-bind-address=${operatorGrpcAddress.host}:${operatorGrpcAddress.port}`,
    '--zap-log-level=info',
  ];
}

/** The adapter's flags: its kubeconfig for each of its clients, its serving certificate, the operator's address. */
export function kedaAdapterArgs(input: { kubeconfig: string; certDir: string }): string[] {
  return [
    `--lister-kubeconfig=${input.kubeconfig}`,
    `--authentication-kubeconfig=${input.kubeconfig}`,
    `--authorization-kubeconfig=${input.kubeconfig}`,
    `--kubeconfig=${input.kubeconfig}`,
    `--bind-address=${kedaAdapterAddress.host}`,
    `--secure-port=${kedaAdapterAddress.port}`,
    `--cert-dir=${input.certDir}`,
    `--tls-cert-file=${join(input.certDir, 'tls.crt')}`,
    `--tls-private-key-file=${join(input.certDir, 'tls.key')}`,
    `--metrics-service-address=${operatorGrpcAddress.host}:${operatorGrpcAddress.port}`,
    `--port=${ports.adapterMetrics}`,
    '--zap-log-level=info',
  ];
}

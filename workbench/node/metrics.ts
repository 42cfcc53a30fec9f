// The node's resource metrics: metrics-server (scripts/build-metrics-server.sh) runs beside the kubelet as
// a process of the node, reads each pod's CPU and memory from the kubelet's /metrics/resource, and
// serves them as metrics.k8s.io through the API server's aggregation layer, so `kubectl top` answers and
// HorizontalPodAutoscalers act as on a cluster. Its identity is its own client certificate
// (system:metrics-server) with the rights upstream's manifests give it, and no more.
import { join } from 'node:path';
import type { KubeObject } from '../../src/runtime/index.ts';
import { extensionApiObjects, partMetadata, roleBinding } from './extension-api.ts';
import { nodeIp } from './network.ts';

/** Where metrics-server listens: the node's address, where the API server reaches it. */
export const metricsServerAddress = { host: nodeIp, port: 20443 };

const user = 'system:metrics-server';
const labels = { 'app.kubernetes.io/name': 'metrics-server', 'app.kubernetes.io/managed-by': 'berth' };

/** Its rights (upstream's ClusterRole), the aggregation layer's reader roles, and the APIService
 * pointing at a Service whose one endpoint is the node's address. */
export function metricsServerObjects(): KubeObject[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: partMetadata(labels, user),
      rules: [
        { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    roleBinding(labels, user, user, { kind: 'User', name: user }),
    {
      // Who may read pods' and nodes' metrics: whoever may view (Kubernetes' aggregated roles).
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'system:aggregated-metrics-reader',
        labels: {
          ...labels,
          'rbac.authorization.k8s.io/aggregate-to-view': 'true',
          'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
          'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        },
      },
      rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
    },
    ...extensionApiObjects({
      user,
      service: 'metrics-server',
      namespace: 'kube-system',
      address: metricsServerAddress,
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      labels,
    }),
  ] as KubeObject[];
}

/** metrics-server's flags: its kubeconfig (its own certificate), the kubelet's CA, a scrape every 15 s. */
export function metricsServerArgs(input: { kubeconfig: string; certDir: string; caFile: string }): string[] {
  return [
    `--kubeconfig=${input.kubeconfig}`,
    `--authentication-kubeconfig=${input.kubeconfig}`,
    `--authorization-kubeconfig=${input.kubeconfig}`,
    `--bind-address=${metricsServerAddress.host}`,
    `--secure-port=${metricsServerAddress.port}`,
    `--cert-dir=${join(input.certDir)}`,
    `--kubelet-certificate-authority=${input.caFile}`,
    '--kubelet-preferred-address-types=InternalIP',
    '--kubelet-use-node-status-port',
    '--metric-resolution=15s',
    '--v=1',
  ];
}

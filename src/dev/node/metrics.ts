// The node's resource metrics: metrics-server (scripts/build-metrics-server.sh) runs beside the kubelet as
// a process of the node, reads each pod's CPU and memory from the kubelet's /metrics/resource, and
// serves them as metrics.k8s.io through the API server's aggregation layer, so `kubectl top` answers and
// HorizontalPodAutoscalers act as on a cluster. Its identity is its own client certificate
// (system:metrics-server) with the rights upstream's manifests give it, and no more.
import { join } from 'node:path';
import type { KubeObject } from '../../runtime/index.ts';
import { nodeIp } from './network.ts';

/** Where metrics-server listens: the node's address, where the API server reaches it. */
export const metricsServerAddress = { host: nodeIp, port: 20443 };

const user = 'system:metrics-server';
const labels = { 'app.kubernetes.io/name': 'metrics-server', 'app.kubernetes.io/managed-by': 'berth' };

/** Its rights (upstream's ClusterRole), the aggregation layer's reader roles, and the APIService
 * pointing at a Service whose one endpoint is the node's address. */
export function metricsServerObjects(): KubeObject[] {
  const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), labels });
  const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, role: string, namespace?: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: meta(name, namespace),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta(user),
      rules: [
        { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    binding('ClusterRoleBinding', user, user),
    // Checks the callers the API server vouches for (TokenReviews and SubjectAccessReviews).
    binding('ClusterRoleBinding', `${user}:auth-delegator`, 'system:auth-delegator'),
    // Reads which front proxy the API server is (ConfigMap extension-apiserver-authentication).
    binding('RoleBinding', `${user}:auth-reader`, 'extension-apiserver-authentication-reader', 'kube-system'),
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
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('metrics-server', 'kube-system'),
      spec: { ports: [{ name: 'https', port: 443, targetPort: metricsServerAddress.port, protocol: 'TCP' }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { ...meta('metrics-server-node', 'kube-system'), labels: { ...labels, 'kubernetes.io/service-name': 'metrics-server' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [metricsServerAddress.host], conditions: { ready: true } }],
      ports: [{ name: 'https', port: metricsServerAddress.port, protocol: 'TCP' }],
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: meta('v1beta1.metrics.k8s.io'),
      spec: {
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        service: { name: 'metrics-server', namespace: 'kube-system', port: 443 },
        // metrics-server serves a certificate it made itself, as in upstream's manifests.
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
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

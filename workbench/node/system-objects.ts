// The cluster's own objects on a local node, rendered by pure functions: cluster DNS (CoreDNS, as
// kubeadm installs it) and a default StorageClass. Applied with server-side apply by workbench/node.
import { clusterDomain, dnsServiceIp } from './network.ts';

type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
};

const dnsLabels = { 'k8s-app': 'kube-dns' };

/** The Corefile. `forward` sends names outside the cluster to the node's resolver: what a user of
 * `berth dev` expects of a cluster. The tests leave it out, so no query ever leaves this machine. */
function corefile(forwardToHost: boolean): string {
  return [
    '.:53 {',
    '    errors',
    '    health {',
    '        lameduck 2s',
    '    }',
    '    ready',
    `    kubernetes ${clusterDomain} in-addr.arpa ip6.arpa {`,
    '        pods insecure',
    '        fallthrough in-addr.arpa ip6.arpa',
    '        ttl 30',
    '    }',
    ...(forwardToHost ? ['    forward . /etc/resolv.conf', '    loop'] : []),
    '    cache 30',
    '    reload',
    '}',
    '',
  ].join('\n');
}

export function clusterDnsObjects(image: string, forwardToHost: boolean): KubeObject[] {
  const namespace = 'kube-system';
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:coredns' },
      rules: [
        { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace }],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace }, data: { Corefile: corefile(forwardToHost) } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace, labels: dnsLabels },
      spec: {
        replicas: 1,
        selector: { matchLabels: dnsLabels },
        template: {
          metadata: { labels: dnsLabels },
          spec: {
            serviceAccountName: 'coredns',
            priorityClassName: 'system-cluster-critical',
            dnsPolicy: 'Default',
            terminationGracePeriodSeconds: 5,
            // Port 53 as a non-root user, with no capability added.
            securityContext: { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }] },
            containers: [
              {
                name: 'coredns',
                image,
                args: ['-conf', '/etc/coredns/Corefile'],
                ports: [
                  { name: 'dns', containerPort: 53, protocol: 'UDP' },
                  { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
                  { name: 'metrics', containerPort: 9153, protocol: 'TCP' },
                ],
                readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 1 },
                livenessProbe: { httpGet: { path: '/health', port: 8080 }, initialDelaySeconds: 10, periodSeconds: 10 },
                resources: { requests: { cpu: '50m', memory: '32Mi' }, limits: { memory: '128Mi' } },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true },
                volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
              },
            ],
            volumes: [{ name: 'config', configMap: { name: 'coredns' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-dns', namespace, labels: dnsLabels },
      spec: {
        selector: dnsLabels,
        clusterIP: dnsServiceIp,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 53, protocol: 'TCP' },
        ],
      },
    },
  ];
}

/** The default StorageClass: volumes as host paths on the node (kube-controller-manager's provisioner). */
export function storageClass(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'local-hostpath', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'kubernetes.io/host-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  };
}

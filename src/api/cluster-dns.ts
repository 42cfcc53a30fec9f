// Cluster DNS as a NetworkPolicy egress rule: every pod needs it, whatever else it may reach (an
// organization's apps, builds). Declared once.

/** To the cluster's DNS pods (kube-system, k8s-app=kube-dns) on port 53. */
export const clusterDnsEgress = {
  to: [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    },
  ],
  ports: [
    { protocol: 'UDP', port: 53 },
    { protocol: 'TCP', port: 53 },
  ],
};

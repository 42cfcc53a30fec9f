// The metrics store apps scale on (--concurrency-metrics) is read by KEDA and Berth, and what it holds
// drives every organization's scale: no team's pod or build may reach it (a read shows every
// organization's traffic; a write or delete, where the store takes them, moves others' replicas). When
// its URL names a cluster Service, Berth keeps a NetworkPolicy beside the store's pods that admits every
// namespace but the organizations' and the build namespace. NetworkPolicies add up: another policy there
// that admits everyone undoes this one, which the README says.
import type { KubeObject } from '../runtime/index.ts';
import { labels } from './group.ts';

export const metricsStorePolicyName = 'berth-metrics-store';

/** A cluster Service a URL names: `<service>.<namespace>`, optionally followed by `.svc` and the
 * cluster's domain. Anything else (an IP address, a host outside the cluster, a bare name) is none. */
export function metricsStoreService(url: string): { namespace: string; name: string } | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const [name, namespace, svc] = host.split('.');
  const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (!name || !namespace || !dnsLabel.test(name) || !dnsLabel.test(namespace)) return undefined;
  if (svc !== undefined && svc !== 'svc') return undefined;
  return { namespace, name };
}

/** Ingress to the store's pods (the Service's selector) from every namespace but the organizations' and
 * the build namespace. */
export function renderMetricsStorePolicy(input: {
  namespace: string;
  selector: Record<string, string>;
  buildNamespace?: string | undefined;
}): KubeObject & { spec: object } {
  const notBuilds = input.buildNamespace ? [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [input.buildNamespace] }] : [];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: metricsStorePolicyName, namespace: input.namespace, labels: { 'app.kubernetes.io/managed-by': 'berth' } },
    spec: {
      podSelector: { matchLabels: input.selector },
      policyTypes: ['Ingress'],
      ingress: [
        { from: [{ namespaceSelector: { matchExpressions: [{ key: labels.organizationId, operator: 'DoesNotExist' }, ...notBuilds] } }] },
      ],
    },
  };
}

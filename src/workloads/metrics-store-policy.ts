// Keeps the metrics store's NetworkPolicy (api/metrics-store-policy.ts) at the start of each leader term:
// the Service the store's URL names gives the namespace and the pods' selector. A store Berth cannot find
// as a Service is left as it is, with a warning that says what the platform team must do instead; one on
// the host's loopback (berth dev's) is out of every pod's reach already. A Service not there yet is
// waited for (the leader's task retries).
import type { KubeConfig, V1Service } from '@kubernetes/client-node';
import { fieldManager, metricsStoreService, renderMetricsStorePolicy } from '../api/index.ts';
import { isLoopbackHost } from '../oauth/public-network.ts';
import { applyUnlessCurrent, isKubeApiError, kubeRequest, withAppliedHash, type Logger } from '../runtime/index.ts';

const unprotected = 'no organization or build may reach the metrics store: keep them from it with a NetworkPolicy of your own';

export async function protectMetricsStore(
  kc: KubeConfig,
  input: { url: string; buildNamespace?: string | undefined },
  logger: Logger,
): Promise<void> {
  const { host, hostname } = new URL(input.url);
  if (isLoopbackHost(hostname)) return;
  const service = metricsStoreService(input.url);
  if (!service) {
    logger.warn({ host }, `the metrics store is not a cluster Service Berth can find; ${unprotected}`);
    return;
  }
  const found = await kubeRequest<V1Service>(kc, {
    method: 'GET',
    path: `/api/v1/namespaces/${service.namespace}/services/${service.name}`,
  }).catch((error: unknown) => {
    if (isKubeApiError(error, 403)) return 'forbidden' as const;
    if (isKubeApiError(error, 404)) return 'missing' as const;
    throw error;
  });
  // In a namespace of the cluster but not there yet (a store installed after Berth): the leader tries
  // again, backing off. A host of two labels outside the cluster (example.com) names no namespace.
  if (found === 'missing' && (await namespaceExists(kc, service.namespace)))
    throw new Error(`the metrics store's Service ${service.namespace}/${service.name} is not there yet`);
  const selector = typeof found === 'object' ? found.spec?.selector : undefined;
  if (!selector || Object.keys(selector).length === 0) {
    const why =
      found === 'forbidden' ? 'is not one Berth may read' : found === 'missing' ? 'names no namespace here' : 'has no pod selector';
    logger.warn({ host, service }, `the metrics store's Service ${why}; ${unprotected}`);
    return;
  }
  await applyUnlessCurrent(
    kc,
    withAppliedHash(renderMetricsStorePolicy({ namespace: service.namespace, selector, buildNamespace: input.buildNamespace })),
    fieldManager,
  );
  logger.info({ service }, 'organizations and builds are kept from the metrics store');
}

async function namespaceExists(kc: KubeConfig, namespace: string): Promise<boolean> {
  return kubeRequest(kc, { method: 'GET', path: `/api/v1/namespaces/${namespace}` }).then(
    () => true,
    () => false,
  );
}

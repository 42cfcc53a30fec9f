// Where organizations' database pods go whatever blockedCidrs say (src/reconcilers/organization/render.ts,
// renderDatabaseNetworkPolicy): the API server, where CloudNativePG's instance manager reads its Cluster,
// and the backup store, where they archive and back up. Looked up once, when Berth starts, and logged.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { backupStoreEndpointOf } from '../api/backup-store.ts';
import type { ReachedAddress } from '../reconcilers/organization/render.ts';
import { kubeRequest, type Logger } from '../runtime/index.ts';

/** The `kubernetes` Service's EndpointSlice, as far as it is read. */
export interface ApiServerSlice {
  endpoints?: { addresses?: string[]; conditions?: { ready?: boolean } }[];
  ports?: { port?: number; protocol?: string }[];
}

/** Each address once, sorted, so a restart renders the same policy and writes nothing. Pure. */
export function sortedAddresses(addresses: readonly ReachedAddress[]): ReachedAddress[] {
  const key = ({ ip, port }: ReachedAddress) => `${ip} ${port}`;
  const unique = new Map(addresses.map((address) => [key(address), address]));
  return [...unique.values()].sort((a, b) => key(a).localeCompare(key(b)));
}

/** The API server's addresses and TCP ports as its EndpointSlice lists them (the addresses a policy
 * sees: the `kubernetes` Service's are translated to them before any policy applies), but for an
 * endpoint said not ready. Pure. */
export function apiServerAddresses(slice: ApiServerSlice): ReachedAddress[] {
  const ports = (slice.ports ?? []).filter((port) => (port.protocol ?? 'TCP') === 'TCP' && port.port).map((port) => port.port!);
  const ips = (slice.endpoints ?? [])
    .filter((endpoint) => endpoint.conditions?.ready !== false)
    .flatMap((endpoint) => endpoint.addresses ?? []);
  return sortedAddresses(ips.flatMap((ip) => ports.map((port) => ({ ip, port }))));
}

/** What the database pods reach: the API server where their databases run on CloudNativePG, and the
 * backup store where there is one. An address that cannot be found is left out, with a warning. */
export async function databaseAddressesOf(
  kubeConfig: KubeConfig,
  { postgresClusters, backupStore }: { postgresClusters: boolean; backupStore: string | undefined },
  logger: Logger,
): Promise<ReachedAddress[]> {
  const apiServer = postgresClusters ? await apiServerAddressesOf(kubeConfig, logger) : [];
  const store = backupStore ? await hostAddressesOf(backupStoreEndpointOf(backupStore), logger) : [];
  return sortedAddresses([...apiServer, ...store]);
}

/** The API server's addresses from the `kubernetes` EndpointSlice (Berth may read that one alone). */
async function apiServerAddressesOf(kubeConfig: KubeConfig, logger: Logger): Promise<ReachedAddress[]> {
  const path = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes';
  const addresses = await kubeRequest<ApiServerSlice>(kubeConfig, { method: 'GET', path }).then(apiServerAddresses, (error: unknown) => {
    logger.warn({ err: error }, `the API server's EndpointSlice cannot be read: organizations' database pods get no exception for it`);
    return [];
  });
  if (addresses.length > 0) logger.info({ addresses }, "organizations' database pods reach the API server");
  return addresses;
}

/** The addresses of the backup store's host: itself when it is one, else what its name resolves to, as
 * an absolute name (no search domain, where a namespace's Service could answer); none, with a warning,
 * when it does not resolve. */
async function hostAddressesOf({ host, port }: { host: string; port: number }, logger: Logger): Promise<ReachedAddress[]> {
  if (isIP(host)) return [{ ip: host, port }];
  const resolved = await lookup(`${host.replace(/\.$/, '')}.`, { all: true }).catch((error: unknown) => {
    logger.warn({ host, err: error }, `the backup store's host does not resolve: organizations' NetworkPolicies give it no exception`);
    return [];
  });
  const addresses = resolved.map(({ address }) => ({ ip: address, port }));
  if (addresses.length > 0)
    logger.info({ host, addresses: addresses.map(({ ip }) => ip) }, "organizations' database pods reach the backup store");
  return addresses;
}

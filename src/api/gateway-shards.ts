// Listeners across Gateways. A Gateway holds at most 64 listeners (Gateway API), and every organization
// takes one for its wildcard host and one per custom host: past that, listeners go to shards of the
// configured Gateway, `<gateway>-1..N`, in its namespace and of its GatewayClass. Each listener is placed
// once, on the first Gateway with room, and stays there while it serves; a route names the Gateway and
// the listener (sectionName) that serve its host. Pure.
import type { AppTls, GatewayListener, GatewayObject } from './app-tls.ts';
import { gatewayKind, organizationTlsNames } from './app-tls.ts';
import type { DeepReadonly } from '../runtime/index.ts';

/** Gateway API's cap on one Gateway's listeners (its CRD's maxItems). */
export const gatewayListenerLimit = 64;

/** On a shard Berth made: the Gateway it extends. */
export const gatewayShardOfLabel = 'berth.dev/gateway-shard-of';

/** The name of the configured Gateway's shard `index` (0: the Gateway itself). */
export function gatewayShardName(gateway: string, index: number): string {
  return index === 0 ? gateway : `${gateway}-${index}`;
}

/** Which shard of `gateway` the Gateway named `name` is (0: the Gateway itself), or undefined. */
export function gatewayShardIndex(gateway: string, name: string): number | undefined {
  if (name === gateway) return 0;
  const match = name.startsWith(`${gateway}-`) ? /^[1-9][0-9]{0,3}$/.exec(name.slice(gateway.length + 1)) : null;
  return match ? Number(match[0]) : undefined;
}

/** The listener that serves a route's host: the organization's wildcard's for a host under it, else the
 * custom host's own. */
export function routeListenerName(tls: AppTls, organization: string, host: string): string {
  const names = organizationTlsNames(organization);
  const suffix = `.${organization}.${tls.appUrls.domain}`.toLowerCase();
  const lower = host.toLowerCase();
  const underWildcard = lower.endsWith(suffix) && !lower.slice(0, -suffix.length).includes('.');
  return underWildcard ? names.listener : names.customListener(host);
}

/** The names of a Gateway's listeners, in its order. */
export function gatewayListenerNames(gateway: DeepReadonly<GatewayObject>): string[] {
  return (gateway.spec?.listeners ?? []).map((listener) => listener.name ?? '');
}

/** The listeners' names on each of the Gateway's shards, by shard index, from the cached Gateways. */
export function shardListeners(gateway: string, gateways: readonly DeepReadonly<GatewayObject>[]): Map<number, string[]> {
  const shards = new Map<number, string[]>();
  for (const object of gateways) {
    const index = gatewayShardIndex(gateway, object.metadata?.name ?? '');
    if (index === undefined || object.metadata?.deletionTimestamp) continue;
    shards.set(index, gatewayListenerNames(object));
  }
  return shards;
}

/** The organization's listeners on shards other than the configured Gateway, by listener: the Gateway each
 * is on. */
export function organizationShards(
  gateway: string,
  gateways: readonly DeepReadonly<GatewayObject>[],
  organization: string,
): Map<string, string> {
  const owns = organizationTlsNames(organization).ownsListener;
  const shards = new Map<string, string>();
  for (const [index, listeners] of shardListeners(gateway, gateways))
    if (index > 0) for (const listener of listeners.filter(owns)) shards.set(listener, gatewayShardName(gateway, index));
  return shards;
}

/**
 * Where an organization's listeners go, as the shard index of each: a listener already on a shard stays
 * there; a new one goes to the first shard with fewer than `limit` listeners (a shard not made yet has
 * none). Answers every shard that holds one of the organization's listeners now or will, each with the
 * listeners it is to hold (none: they leave it).
 */
export function placeListeners(
  shards: ReadonlyMap<number, readonly string[]>,
  owns: (listener: string) => boolean,
  wanted: readonly GatewayListener[],
  limit = gatewayListenerLimit,
): Map<number, GatewayListener[]> {
  const wantedNames = new Set(wanted.map((listener) => listener.name));
  const used = new Map<number, number>();
  const placed = new Map<number, GatewayListener[]>();
  const where = new Map<string, number>();
  for (const [index, names] of shards) {
    used.set(index, names.filter((name) => !owns(name) || wantedNames.has(name)).length);
    if (names.some(owns)) placed.set(index, []);
    for (const name of names) if (owns(name) && !where.has(name)) where.set(name, index);
  }
  for (const listener of wanted) {
    let index = where.get(listener.name);
    if (index === undefined) {
      index = 0;
      while ((used.get(index) ?? 0) >= limit) index += 1;
      used.set(index, (used.get(index) ?? 0) + 1);
    }
    placed.set(index, [...(placed.get(index) ?? []), listener]);
  }
  return placed;
}

/** What the organization's field manager applies to one shard: its listeners there, all of them (none
 * removes them). A shard Berth makes takes the configured Gateway's class. */
export function renderGatewayListenerPatch(tls: AppTls, index: number, listeners: readonly GatewayListener[], gatewayClassName?: string) {
  const shard = index > 0 && gatewayClassName !== undefined;
  return {
    apiVersion: gatewayKind.apiVersion,
    kind: gatewayKind.kind,
    metadata: {
      name: gatewayShardName(tls.gateway.name, index),
      namespace: tls.gateway.namespace,
      ...(shard ? { labels: { [gatewayShardOfLabel]: tls.gateway.name, 'app.kubernetes.io/managed-by': 'berth' } } : {}),
    },
    spec: { ...(shard ? { gatewayClassName } : {}), listeners: [...listeners] },
  };
}

// An organization's HTTPS listeners on the Gateway and its shards (src/api/gateway-shards.ts): each kept
// where it was placed, a new one placed on the first Gateway with room, a shard left empty deleted. Each
// Gateway is written by the organization's own field manager, so other listeners are never touched.
// A change is decided again on the Gateways as the API server has them, one at a time: two passes reading
// the same cache could both take a shard's last place, or one delete a shard another just placed on.
import {
  gatewayKind,
  gatewayShardName,
  organizationTlsNames,
  placeListeners,
  renderGatewayListenerPatch,
  shardListeners,
  type AppTls,
  type GatewayListener,
  type GatewayObject,
} from '../../api/index.ts';
import {
  applyObject,
  deleteObject,
  kubeRequest,
  type DeepReadonly,
  type Informer,
  type KubeObject,
  type Manager,
} from '../../runtime/index.ts';

/** Keeps the organization's listeners (none: removes them) across the Gateway's shards. */
export async function keepListeners(
  manager: Manager,
  tls: AppTls,
  gateways: Informer<GatewayObject>,
  organization: string,
  listeners: readonly GatewayListener[],
): Promise<void> {
  if (listenerWrites(tls, gateways.list(tls.gateway.namespace), organization, listeners).length === 0) return;
  await oneAtATime(async () => {
    const writes = listenerWrites(tls, await currentGateways(manager, tls), organization, listeners);
    const { fieldManager } = organizationTlsNames(organization);
    for (const write of writes)
      if ('patch' in write) await applyObject(manager.kubeConfig, write.patch as KubeObject, fieldManager);
      else await deleteObject(manager.kubeConfig, gatewayKind, { namespace: tls.gateway.namespace, name: write.remove });
  });
}

type ListenerWrite = { patch: ReturnType<typeof renderGatewayListenerPatch> } | { remove: string };

/** What to write so that the Gateways hold the organization's listeners as placed: a patch of each Gateway
 * whose share differs, or the deletion of a shard the organization leaves empty (a Gateway holds at
 * least one listener). None without the configured Gateway. Pure. */
export function listenerWrites(
  tls: AppTls,
  gateways: readonly DeepReadonly<GatewayObject>[],
  organization: string,
  listeners: readonly GatewayListener[],
): ListenerWrite[] {
  const { ownsListener } = organizationTlsNames(organization);
  const named = (index: number) => gateways.find((g) => g.metadata?.name === gatewayShardName(tls.gateway.name, index));
  const configured = named(0);
  if (!configured) return [];
  const shards = shardListeners(tls.gateway.name, gateways);
  const writes: ListenerWrite[] = [];
  for (const [index, placed] of placeListeners(shards, ownsListener, listeners, tls.listenersPerGateway)) {
    if (sameListeners(named(index), ownsListener, placed)) continue;
    if (index > 0 && placed.length === 0 && (shards.get(index) ?? []).every(ownsListener))
      writes.push({ remove: gatewayShardName(tls.gateway.name, index) });
    else writes.push({ patch: renderGatewayListenerPatch(tls, index, placed, configured.spec?.gatewayClassName) });
  }
  return writes;
}

/** The Gateways of the configured one's namespace, as the API server has them now. */
async function currentGateways(manager: Manager, tls: AppTls): Promise<GatewayObject[]> {
  const path = `/apis/${gatewayKind.apiVersion}/namespaces/${tls.gateway.namespace}/${gatewayKind.plural}`;
  return (await kubeRequest<{ items: GatewayObject[] }>(manager.kubeConfig, { method: 'GET', path })).items;
}

let placing: Promise<unknown> = Promise.resolve();

/** Runs placements one after another, whatever the one before did. */
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = placing.then(work, work);
  placing = run.catch(() => undefined);
  return run;
}

/** Whether the Gateway holds exactly the organization's listeners placed on it, as rendered. */
function sameListeners(
  gateway: DeepReadonly<GatewayObject> | undefined,
  owns: (name: string) => boolean,
  placed: readonly GatewayListener[],
): boolean {
  const present = (gateway?.spec?.listeners ?? []).filter((listener) => owns(listener.name ?? ''));
  return (
    present.length === placed.length &&
    placed.every((listener) =>
      includes(
        present.find((p) => p.name === listener.name),
        listener,
      ),
    )
  );
}

/** Whether `actual` has every field of `wanted`, with the same values (lists compared item by item). */
export function includes(actual: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted))
    return Array.isArray(actual) && actual.length === wanted.length && wanted.every((item, i) => includes(actual[i], item));
  if (wanted && typeof wanted === 'object')
    return (
      !!actual &&
      typeof actual === 'object' &&
      Object.entries(wanted).every(([key, value]) => includes((actual as Record<string, unknown>)[key], value))
    );
  return actual === wanted;
}

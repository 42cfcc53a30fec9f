// Writes every controller needs, whatever the kind: server-side apply (always forced, under one field
// manager: a controller owns what it sets, and sends all of it every time, so a field it stops sending
// is removed) and deletes. Status has its own module (status-write.ts).
import type { KubeConfig } from '@kubernetes/client-node';
import { appliedHashOf } from './applied-hash.ts';
import { isKubeApiError, kubeRequest } from './kube-request.ts';
import { objectPath, type KubeObject, type ResourceKind } from './types.ts';

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

const discovery = new WeakMap<KubeConfig, Map<string, Promise<DiscoveredResource[]>>>();

/** The API server answered, and its group and version serve no such kind. */
export class KindNotServedError extends Error {
  override name = 'KindNotServedError';
}

/** The resource serving a kind, from the API server's discovery document (cached per apiVersion). */
export async function resolveResource(kc: KubeConfig, apiVersion: string, kind: string): Promise<ResourceKind> {
  let byVersion = discovery.get(kc);
  if (!byVersion) discovery.set(kc, (byVersion = new Map()));
  let resources = byVersion.get(apiVersion);
  if (!resources) {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    resources = kubeRequest<{ resources: DiscoveredResource[] }>(kc, { method: 'GET', path }).then((list) => list.resources);
    byVersion.set(apiVersion, resources);
    // A failed lookup (the CRD not installed yet) must not be cached.
    resources.catch(() => byVersion.delete(apiVersion));
  }
  let found = (await resources).find((resource) => resource.kind === kind && !resource.name.includes('/'));
  if (!found) {
    // A CRD installed after the first lookup: look once more.
    byVersion.delete(apiVersion);
    const fresh = await kubeRequest<{ resources: DiscoveredResource[] }>(kc, {
      method: 'GET',
      path: apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`,
    });
    found = fresh.resources.find((resource) => resource.kind === kind && !resource.name.includes('/'));
  }
  if (!found) throw new KindNotServedError(`the API server serves no kind ${kind} in ${apiVersion}`);
  return { apiVersion, kind, plural: found.name, namespaced: found.namespaced };
}

/** Where an object to apply lives; refused before any request when it cannot say. */
export function appliedObjectKey(object: KubeObject): { namespace: string; name: string } {
  const name = object.metadata?.name;
  if (!object.apiVersion || !object.kind || !name) throw new Error('an applied object needs apiVersion, kind and metadata.name');
  return { namespace: object.metadata?.namespace ?? '', name };
}

/**
 * Server-side apply with force: the object must carry every field this field manager owns (fields
 * left out are removed from its ownership, and deleted when nobody else owns them).
 */
export async function applyObject<T extends KubeObject>(kc: KubeConfig, object: T, fieldManager: string): Promise<T> {
  const key = appliedObjectKey(object);
  const resource = await resolveResource(kc, object.apiVersion!, object.kind!);
  return kubeRequest<T>(kc, {
    method: 'PATCH',
    path: objectPath(resource, key),
    query: { fieldManager, force: 'true' },
    contentType: 'application/apply-patch+yaml',
    body: object,
  });
}

/**
 * Replaces a stored object with `object` at `resourceVersion` (an update, PUT): every field another
 * manager added goes too, which server-side apply would keep. For what Berth alone may hold as it is.
 */
export async function replaceObject<T extends KubeObject>(
  kc: KubeConfig,
  object: T,
  resourceVersion: string,
  fieldManager: string,
): Promise<T> {
  const key = appliedObjectKey(object);
  const resource = await resolveResource(kc, object.apiVersion!, object.kind!);
  return kubeRequest<T>(kc, {
    method: 'PUT',
    path: objectPath(resource, key),
    query: { fieldManager },
    body: { ...object, metadata: { ...object.metadata, resourceVersion } },
  });
}

/** Deletes an object; an object already gone is not an error. Returns whether a delete was sent and accepted. */
export async function deleteObject(kc: KubeConfig, resource: ResourceKind, key: { namespace: string; name: string }): Promise<boolean> {
  try {
    await kubeRequest(kc, { method: 'DELETE', path: objectPath(resource, key), body: { propagationPolicy: 'Background' } });
    return true;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return false;
    throw error;
  }
}

/**
 * Whether two JSON values would be sent as the same JSON, member order aside: a member whose value is
 * undefined is absent (JSON drops it), an undefined array element is null (JSON writes it so).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let members = 0;
  for (const key in x) {
    if (x[key] === undefined) continue;
    if (!sameJson(x[key], y[key])) return false;
    members++;
  }
  for (const key in y) if (y[key] !== undefined) members--;
  return members === 0;
}

/**
 * Applies an object unless the stored one carries the same applied hash (withAppliedHash): for what the
 * leader keeps at the start of each term, where a start that finds it in place writes nothing.
 */
export async function applyUnlessCurrent<T extends KubeObject>(kc: KubeConfig, object: T, fieldManager: string): Promise<void> {
  const resource = await resolveResource(kc, object.apiVersion!, object.kind!);
  const stored = await kubeRequest<KubeObject>(kc, { method: 'GET', path: objectPath(resource, appliedObjectKey(object)) }).catch(
    (error: unknown) => {
      if (isKubeApiError(error, 404)) return undefined;
      throw error;
    },
  );
  if (appliedHashOf(stored) !== appliedHashOf(object)) await applyObject(kc, object, fieldManager);
}

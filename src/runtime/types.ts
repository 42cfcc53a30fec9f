// The few shapes the runtime needs from any Kubernetes object: it knows no Berth kind.
import type { V1ObjectMeta } from '@kubernetes/client-node';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
}

/** Names one resource: the same shape as the `<kind>Kind` descriptors in src/api. */
export interface ResourceKind {
  /** `v1` for the core group, `group/version` otherwise. */
  apiVersion: string;
  kind: string;
  plural: string;
  /** Default true. Cluster-scoped objects are keyed with the namespace ''. */
  namespaced?: boolean;
}

/** Secrets: the one core kind every part of Berth reads (credentials, API keys, the children it owns). */
export const secretKind: ResourceKind = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' };

export interface ObjectKey {
  namespace: string;
  name: string;
}

/**
 * Objects in a cache are shared by every reader and never copied per read: the type forbids writes.
 * Equal parts of different cached objects are one frozen copy (subtree-pool.ts), so a write that
 * slipped past the type throws. Copy (structuredClone) before building a changed object from one.
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends Date
    ? T
    : T extends ReadonlyArray<infer U>
      ? ReadonlyArray<DeepReadonly<U>>
      : T extends object
        ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
        : T;

export function keyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

export function parseKeyString(key: string): ObjectKey {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export function objectKey(object: DeepReadonly<KubeObject> | KubeObject): ObjectKey {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

/** The URL path of a resource's collection, in one namespace or across all of them. */
export function collectionPath(resource: Pick<ResourceKind, 'apiVersion' | 'plural' | 'namespaced'>, namespace?: string): string {
  const base = resource.apiVersion.includes('/') ? `/apis/${resource.apiVersion}` : `/api/${resource.apiVersion}`;
  const scope = namespace && resource.namespaced !== false ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${scope}/${resource.plural}`;
}

export function objectPath(resource: Pick<ResourceKind, 'apiVersion' | 'plural' | 'namespaced'>, key: ObjectKey): string {
  return `${collectionPath(resource, key.namespace)}/${encodeURIComponent(key.name)}`;
}

/** The group of an apiVersion (`apps/v1` -> `apps`, `v1` -> ''). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

// Moving what earlier versions wrote under another field manager name to Berth's one manager, so that
// GitOps tools and `kubectl apply --server-side` see a single owner of what Berth sets. The entries of
// an earlier name are folded into Berth's entry of the same operation, API version and subresource
// (the union of their field sets); nothing else in the object changes. The same idea as client-go's
// csaupgrade, for Update entries. `adoptedManagedFields` is pure; `adoptFieldManagers` reads the
// object and writes the new list only when there is something to adopt.
import type { KubeConfig, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { mergeFieldSets, type FieldSet } from './cache-view.ts';
import { isKubeApiError, kubeRequest } from './kube-request.ts';
import { objectPath, type KubeObject, type ObjectKey, type ResourceKind } from './types.ts';

/** Whose entries become whose; with `subresource`, only entries of that subresource (e.g. `status`) move. */
export interface Adoption {
  legacy: readonly string[];
  manager: string;
  subresource?: string;
  /**
   * The operation of the entry they fold into. 'Apply' for fields the manager itself wrote with Update
   * (a PUT) before it moved to server-side apply: its own Update entries move too, so what it stops
   * sending is removed (client-go's csaupgrade). Default 'Update'.
   */
  operation?: 'Update' | 'Apply';
}

/**
 * `entries` with every Update entry of a `legacy` manager folded into `manager`'s entry of the same API
 * version and subresource and the adoption's operation (made when there is none; its time the latest of
 * the folded ones). Undefined when no entry is to move: there is nothing to write.
 */
export function adoptedManagedFields(entries: readonly V1ManagedFieldsEntry[], adoption: Adoption): V1ManagedFieldsEntry[] | undefined {
  const { legacy, manager, subresource } = adoption;
  const operation = adoption.operation ?? 'Update';
  const moves = (entry: V1ManagedFieldsEntry) =>
    entry.operation === 'Update' &&
    (legacy.includes(entry.manager ?? '') || (operation === 'Apply' && entry.manager === manager)) &&
    (subresource === undefined || entry.subresource === subresource);
  if (!entries.some(moves)) return undefined;
  const slot = (entry: V1ManagedFieldsEntry) => `${entry.apiVersion ?? ''}|${entry.subresource ?? ''}`;
  const adopted: V1ManagedFieldsEntry[] = [];
  const owned = new Map<string, V1ManagedFieldsEntry>();
  for (const entry of entries) {
    const ours = (entry.operation === operation && entry.manager === manager) || moves(entry);
    if (!ours) {
      adopted.push(entry);
      continue;
    }
    const previous = owned.get(slot(entry));
    if (!previous) {
      const taken = { ...entry, manager, operation };
      owned.set(slot(entry), taken);
      adopted.push(taken);
      continue;
    }
    previous.fieldsV1 = mergeFieldSets((previous.fieldsV1 ?? {}) as FieldSet, (entry.fieldsV1 ?? {}) as FieldSet);
    if (entry.time && (!previous.time || new Date(entry.time) > new Date(previous.time))) previous.time = entry.time;
  }
  return adopted;
}

/**
 * Adopts the legacy managers' entries of one object. The write is a JSON patch guarded by the
 * resourceVersion read, so a concurrent change is never overwritten: that attempt is left to the next
 * call. A missing object is nothing to adopt.
 */
export async function adoptFieldManagers(
  kc: KubeConfig,
  resource: ResourceKind,
  key: ObjectKey,
  adoption: Adoption,
  /** Only an object this accepts is touched (e.g. one Berth owns). */
  accept: (object: KubeObject) => boolean = () => true,
): Promise<void> {
  const path = objectPath(resource, key);
  try {
    const object = await kubeRequest<KubeObject>(kc, { method: 'GET', path });
    if (!accept(object)) return;
    const adopted = adoptedManagedFields(object.metadata?.managedFields ?? [], adoption);
    if (!adopted) return;
    await kubeRequest(kc, {
      method: 'PATCH',
      path,
      query: { fieldManager: adoption.manager },
      contentType: 'application/json-patch+json',
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: object.metadata?.resourceVersion },
        { op: 'replace', path: '/metadata/managedFields', value: adopted },
      ],
    });
  } catch (error) {
    // Gone, or changed since it was read (a failed test is a 422 on a JSON patch; a conflict a 409).
    if (!isKubeApiError(error, 404) && !isKubeApiError(error, 409) && !isKubeApiError(error, 422)) throw error;
  }
}

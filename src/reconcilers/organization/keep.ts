// One object Berth keeps as rendered: applied when its applied hash differs from the cached one,
// deleted when it is no longer rendered. The organization's policy objects and TLS Certificates alike.
// What is kept exactly (the NetworkPolicy's spec) is also compared by content, and replaced when
// someone else changed it under the same hash: server-side apply would keep what they added.
import { fieldManager } from '../../api/index.ts';
import {
  applyObject,
  deleteObject,
  replaceObject,
  type DeepReadonly,
  type KubeObject,
  type Manager,
  type ResourceKind,
} from '../../runtime/index.ts';
import { appliedHashOf, sameContent } from '../../runtime/applied-hash.ts';

/** The part of an object Berth keeps exactly as rendered, whoever else writes to it. */
export type KeptExactly = (object: DeepReadonly<KubeObject>) => unknown;

/** Applies `wanted` (with its applied hash) when `current` differs, or deletes `current` when nothing is
 * wanted; answers whether it deleted. */
export async function keepRendered(
  manager: Manager,
  kind: ResourceKind,
  key: { namespace: string; name: string },
  current: DeepReadonly<KubeObject> | undefined,
  wanted: KubeObject | undefined,
  exactly?: KeptExactly,
): Promise<boolean> {
  if (wanted && appliedHashOf(current) !== appliedHashOf(wanted)) await applyObject(manager.kubeConfig, wanted, fieldManager);
  else if (wanted && current && exactly && !sameContent(exactly(current), exactly(wanted)))
    await replaceObject(manager.kubeConfig, wanted, current.metadata?.resourceVersion ?? '', fieldManager);
  if (wanted || !current) return false;
  await deleteObject(manager.kubeConfig, kind, key);
  return true;
}

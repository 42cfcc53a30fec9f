// One object Berth keeps as rendered: applied when its applied hash differs from the cached one,
// deleted when it is no longer rendered. The organization's policy objects and TLS Certificates alike.
import { fieldManager } from '../../api/index.ts';
import { applyObject, deleteObject, type DeepReadonly, type KubeObject, type Manager, type ResourceKind } from '../../runtime/index.ts';
import { appliedHashOf } from '../../runtime/applied-hash.ts';

/** Applies `wanted` (with its applied hash) when `current` differs, or deletes `current` when nothing is
 * wanted; answers whether it deleted. */
export async function keepRendered(
  manager: Manager,
  kind: ResourceKind,
  key: { namespace: string; name: string },
  current: DeepReadonly<KubeObject> | undefined,
  wanted: KubeObject | undefined,
): Promise<boolean> {
  if (wanted && appliedHashOf(current) !== appliedHashOf(wanted)) await applyObject(manager.kubeConfig, wanted, fieldManager);
  if (wanted || !current) return false;
  await deleteObject(manager.kubeConfig, kind, key);
  return true;
}

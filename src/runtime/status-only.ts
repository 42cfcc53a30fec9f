// Which updates a controller's own status writes make. Each status write comes back as a watch event;
// a pass for it would decide from the same inputs the writing pass had, plus that status, and write
// nothing. At 10,000 Deployments those passes were a third of a start's reconciles, all run at its end.
import type { DeepReadonly, KubeObject } from './types.ts';

/** What an update may change without being more than a status write. */
const metadataKeys = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'deletionTimestamp'] as const;

/**
 * True when an update changed only the object's status: the same generation (the API server counts
 * every spec change of a kind with a status subresource) and the same labels, annotations, finalizers,
 * owners and deletion. An object without a generation is never taken for one.
 */
export function statusOnlyUpdate(object: DeepReadonly<KubeObject>, previous: DeepReadonly<KubeObject>): boolean {
  const now = object.metadata ?? {};
  const before = previous.metadata ?? {};
  if (now.generation === undefined || now.generation !== before.generation) return false;
  return metadataKeys.every((key) => JSON.stringify(now[key]) === JSON.stringify(before[key]));
}

/** An update filter (controller.ts) that lets every update through but a status-only one. */
export const unlessStatusOnly = (object: DeepReadonly<KubeObject>, previous: DeepReadonly<KubeObject>): boolean =>
  !statusOnlyUpdate(object, previous);

// The one way a controller writes an object's status, and the one policy for a status decided from a
// cache that lags the object. Each kind's pass decides its status with a pure function, then writes it
// here at most once: nothing is sent when the object already has exactly that status, and a status
// decided from an older version of the object (the cache has not seen the controller's own last write
// yet) is refused by the API server instead of taking back what a newer pass said. The controller runs
// such a pass again after staleCacheRetryMs (controller.ts), deciding from the caught-up cache.
import type { KubeConfig } from '@kubernetes/client-node';
import { appliedObjectKey, resolveResource, sameJson } from './apply.ts';
import { isKubeApiError, kubeRequest } from './kube-request.ts';
import { objectPath, type DeepReadonly, type KubeObject } from './types.ts';

/** How soon a pass that met a stale cache runs again: the lagging watch event is most often milliseconds away. */
export const staleCacheRetryMs = 100;

/** The object changed after the cache showed it: the pass decides again from a fresher cache. */
export class StaleObjectError extends Error {
  constructor(object: DeepReadonly<KubeObject> | KubeObject) {
    const name = [object.metadata?.namespace, object.metadata?.name].filter(Boolean).join('/');
    super(`${object.kind} ${name} changed since resourceVersion ${object.metadata?.resourceVersion}`);
    this.name = 'StaleObjectError';
  }
}

/**
 * Applies `status` to the status subresource (server-side apply under `fieldManager`) unless `current`
 * has exactly that status. Guarded by the resourceVersion `current` was read at: an object that changed
 * since throws StaleObjectError. Answers the object as written, or undefined when nothing was sent.
 */
export async function writeStatus<T extends KubeObject & { status?: unknown }>(
  kc: KubeConfig,
  current: DeepReadonly<T> | T,
  status: NonNullable<T['status']>,
  fieldManager: string,
): Promise<T | undefined> {
  if (sameJson(current.status, status)) return undefined;
  const { namespace, name } = appliedObjectKey(current as KubeObject);
  const resource = await resolveResource(kc, current.apiVersion!, current.kind!);
  const resourceVersion = current.metadata?.resourceVersion;
  try {
    return await kubeRequest<T>(kc, {
      method: 'PATCH',
      path: `${objectPath(resource, { namespace, name })}/status`,
      query: { fieldManager, force: 'true' },
      contentType: 'application/apply-patch+yaml',
      body: {
        apiVersion: current.apiVersion,
        kind: current.kind,
        metadata: { name, ...(namespace ? { namespace } : {}), ...(resourceVersion ? { resourceVersion } : {}) },
        status,
      },
    });
  } catch (error) {
    if (isKubeApiError(error, 409)) throw new StaleObjectError(current);
    throw error;
  }
}

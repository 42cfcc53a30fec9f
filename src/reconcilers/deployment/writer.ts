// Every write the Deployment controller makes, in one place: server-side apply under Berth's field
// manager, create-once objects, deletes, status, finalizers. Only this module talks to the API server.
import type { KubeConfig } from '@kubernetes/client-node';
import {
  applyObject,
  applyStatusIfChanged,
  collectionPath,
  deleteObject,
  isKubeApiError,
  kubeRequest,
  objectPath,
  resolveResource,
} from '../../runtime/index.ts';
import type { DeepReadonly, KubeObject, ResourceKind } from '../../runtime/index.ts';
import { fieldManager } from '../../api/group.ts';

export interface DeploymentWriter {
  apply<T extends KubeObject>(object: T): Promise<T>;
  /** Creates the object; when it exists already, returns the stored one instead (someone made it first). */
  createOrGet<T extends KubeObject>(object: T): Promise<{ object: T; created: boolean }>;
  delete(resource: ResourceKind, namespace: string, name: string): Promise<boolean>;
  /**
   * Writes the status unless the object already has exactly that status. The status was decided from
   * `current`: when the object has changed since (a cache that lags the controller's own last write),
   * it throws StaleObjectError instead of overwriting a newer status with an older decision.
   */
  status<T extends KubeObject & { status?: unknown }>(current: DeepReadonly<T>, status: NonNullable<T['status']>): Promise<boolean>;
  /** Sets metadata.finalizers, guarded by the resourceVersion the list was computed from; returns the object as stored. */
  finalizers<T extends KubeObject>(resource: ResourceKind, object: DeepReadonly<T>, finalizers: string[]): Promise<T>;
}

/** The object changed after the cache showed it: decide again from a fresher cache. */
export class StaleObjectError extends Error {
  constructor(object: DeepReadonly<KubeObject>) {
    super(
      `${object.kind} ${object.metadata?.namespace}/${object.metadata?.name} changed since resourceVersion ${object.metadata?.resourceVersion}`,
    );
    this.name = 'StaleObjectError';
  }
}

export function createDeploymentWriter(kc: KubeConfig): DeploymentWriter {
  return {
    apply: (object) => applyObject(kc, object, fieldManager),
    async createOrGet<T extends KubeObject>(object: T) {
      const resource = await resolveResource(kc, object.apiVersion!, object.kind!);
      const namespace = object.metadata?.namespace ?? '';
      try {
        const created = await kubeRequest<T>(kc, {
          method: 'POST',
          path: collectionPath(resource, namespace),
          query: { fieldManager },
          body: object,
        });
        return { object: created, created: true };
      } catch (error) {
        if (!isKubeApiError(error, 409)) throw error;
        const existing = await kubeRequest<T>(kc, {
          method: 'GET',
          path: objectPath(resource, { namespace, name: object.metadata!.name! }),
        });
        return { object: existing, created: false };
      }
    },
    delete: (resource, namespace, name) => deleteObject(kc, resource, { namespace, name }),
    async status(current, status) {
      try {
        const options = current.metadata?.resourceVersion ? { unlessChangedSince: current.metadata.resourceVersion } : {};
        return (await applyStatusIfChanged(kc, current, status, fieldManager, options)) !== undefined;
      } catch (error) {
        if (isKubeApiError(error, 409)) throw new StaleObjectError(current);
        throw error;
      }
    },
    async finalizers<T extends KubeObject>(resource: ResourceKind, object: DeepReadonly<T>, finalizers: string[]) {
      const key = { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
      try {
        return await kubeRequest<T>(kc, {
          method: 'PATCH',
          path: objectPath(resource, key),
          // Under Berth's own field manager, so managedFields name one writer for everything Berth sets.
          query: { fieldManager },
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers, resourceVersion: object.metadata?.resourceVersion } },
        });
      } catch (error) {
        if (isKubeApiError(error, 409)) throw new StaleObjectError(object);
        throw error;
      }
    },
  };
}

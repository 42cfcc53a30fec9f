// Every write the Deployment controller makes, in one place: server-side apply under Berth's field
// manager, create-once objects, deletes, status, finalizers. Only this module talks to the API server.
import type { KubeConfig, V1OwnerReference } from '@kubernetes/client-node';
import {
  applyObject,
  collectionPath,
  deleteObject,
  isKubeApiError,
  kubeRequest,
  objectPath,
  resolveResource,
  StaleObjectError,
  writeStatus,
} from '../../runtime/index.ts';
import type { DeepReadonly, KubeObject, ResourceKind } from '../../runtime/index.ts';
import { fieldManager } from '../../api/group.ts';

export interface DeploymentWriter {
  apply<T extends KubeObject>(object: T): Promise<T>;
  /** Creates the object; when it exists already, returns the stored one instead (someone made it first). */
  createOrGet<T extends KubeObject>(object: T): Promise<{ object: T; created: boolean }>;
  delete(resource: ResourceKind, namespace: string, name: string): Promise<boolean>;
  /**
   * Writes the status unless the object already has exactly that status (the runtime's writeStatus):
   * when `current` has changed since the pass read it, it throws StaleObjectError instead of
   * overwriting a newer status with an older decision.
   */
  status<T extends KubeObject & { status?: unknown }>(current: DeepReadonly<T>, status: NonNullable<T['status']>): Promise<boolean>;
  /** Merges `metadata` (owner references, labels) into the object; false when it is not there. */
  patchMetadata(resource: ResourceKind, namespace: string, name: string, metadata: MetadataPatch): Promise<boolean>;
  /** Sets metadata.finalizers, guarded by the resourceVersion the list was computed from; returns the object as stored. */
  finalizers<T extends KubeObject>(resource: ResourceKind, object: DeepReadonly<T>, finalizers: string[]): Promise<T>;
}

/** A JSON merge patch of metadata: a list replaces the stored one, a null label removes it. */
export interface MetadataPatch {
  ownerReferences?: V1OwnerReference[];
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
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
    async patchMetadata(resource, namespace, name, metadata) {
      try {
        await kubeRequest(kc, {
          method: 'PATCH',
          path: objectPath(resource, { namespace, name }),
          query: { fieldManager },
          contentType: 'application/merge-patch+json',
          body: { metadata },
        });
        return true;
      } catch (error) {
        if (isKubeApiError(error, 404)) return false;
        throw error;
      }
    },
    status: async (current, status) => (await writeStatus(kc, current, status, fieldManager)) !== undefined,
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

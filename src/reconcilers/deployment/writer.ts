// Every write the Deployment controller makes, in one place: server-side apply under Berth's field
// manager, create-once objects, deletes, status, finalizers. Only this module talks to the API server.
import type { KubeConfig } from '@kubernetes/client-node';
import { applyObject, applyStatusIfChanged, collectionPath, deleteObject, isKubeApiError, kubeRequest, objectPath, resolveResource } from '../../runtime/index.ts';
import type { DeepReadonly, KubeObject, ResourceKind } from '../../runtime/index.ts';
import { fieldManager } from '../../api/group.ts';

export interface DeploymentWriter {
  apply<T extends KubeObject>(object: T): Promise<T>;
  /** Creates the object; when it exists already, returns the stored one instead (someone made it first). */
  createOrGet<T extends KubeObject>(object: T): Promise<{ object: T; created: boolean }>;
  delete(resource: ResourceKind, namespace: string, name: string): Promise<boolean>;
  /** Writes the status unless the object already has exactly that status. */
  status<T extends KubeObject & { status?: unknown }>(current: DeepReadonly<T>, status: NonNullable<T['status']>): Promise<boolean>;
  /** Sets metadata.finalizers, guarded by the resourceVersion the list was computed from. */
  finalizers(resource: ResourceKind, object: DeepReadonly<KubeObject>, finalizers: string[]): Promise<void>;
}

export function createDeploymentWriter(kc: KubeConfig): DeploymentWriter {
  return {
    apply: (object) => applyObject(kc, object, fieldManager),
    async createOrGet<T extends KubeObject>(object: T) {
      const resource = await resolveResource(kc, object.apiVersion!, object.kind!);
      const namespace = object.metadata?.namespace ?? '';
      try {
        const created = await kubeRequest<T>(kc, { method: 'POST', path: collectionPath(resource, namespace), query: { fieldManager }, body: object });
        return { object: created, created: true };
      } catch (error) {
        if (!isKubeApiError(error, 409)) throw error;
        const existing = await kubeRequest<T>(kc, { method: 'GET', path: objectPath(resource, { namespace, name: object.metadata!.name! }) });
        return { object: existing, created: false };
      }
    },
    delete: (resource, namespace, name) => deleteObject(kc, resource, { namespace, name }),
    async status(current, status) {
      return (await applyStatusIfChanged(kc, current, status, fieldManager)) !== undefined;
    },
    async finalizers(resource, object, finalizers) {
      const key = { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
      await kubeRequest(kc, {
        method: 'PATCH',
        path: objectPath(resource, key),
        // Under Berth's own field manager, so managedFields name one writer for everything Berth sets.
        query: { fieldManager },
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers, resourceVersion: object.metadata?.resourceVersion } },
      });
    },
  };
}

// Writes go to the API server, never to the cache: this is the facade's one way to create, replace,
// patch and delete objects, and to read one fresh before a read-modify-write.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { isKubeApiError, kubeRequest } from '../runtime/kube-request.ts';
import { collectionPath, objectPath, type ResourceKind } from '../runtime/types.ts';

/** Where a kind lives: `v1` + `secrets`, or `berth.dev/v1alpha1` + `deployments`. */
export type ResourceRef = Pick<ResourceKind, 'apiVersion' | 'plural'>;

export interface WriteOptions {
  /** Run every admission and validation step (CEL rules included) without storing anything. */
  dryRun?: boolean;
}

export interface ObjectWriter {
  create<T extends KubernetesObject>(resource: ResourceRef, namespace: string, object: T, options?: WriteOptions): Promise<T>;
  /** A fresh read from the API server (for read-modify-write); undefined when the object does not exist. */
  read<T extends KubernetesObject>(resource: ResourceRef, namespace: string, name: string): Promise<T | undefined>;
  /** Replaces the object; its metadata.resourceVersion makes the write conditional (409 when stale). */
  replace<T extends KubernetesObject>(resource: ResourceRef, namespace: string, object: T, options?: WriteOptions): Promise<T>;
  /** A JSON merge patch. */
  patch<T extends KubernetesObject>(
    resource: ResourceRef,
    namespace: string,
    name: string,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T>;
  /** Deletes the object (dependents are garbage-collected in the background); false when it was already gone. */
  delete(resource: ResourceRef, namespace: string, name: string): Promise<boolean>;
}

export const fieldManager = 'berth-facade';

export function kubeObjectWriter(kubeConfig: KubeConfig): ObjectWriter {
  const query = (options?: WriteOptions) => ({ fieldManager, fieldValidation: 'Strict', dryRun: options?.dryRun ? 'All' : undefined });
  return {
    create: (resource, namespace, object, options) =>
      kubeRequest(kubeConfig, { method: 'POST', path: collectionPath(resource, namespace), query: query(options), body: object }),
    async read(resource, namespace, name) {
      try {
        return await kubeRequest(kubeConfig, { method: 'GET', path: objectPath(resource, { namespace, name }) });
      } catch (error) {
        if (isKubeApiError(error, 404)) return undefined;
        throw error;
      }
    },
    replace: (resource, namespace, object, options) =>
      kubeRequest(kubeConfig, {
        method: 'PUT',
        path: objectPath(resource, { namespace, name: object.metadata?.name ?? '' }),
        query: query(options),
        body: object,
      }),
    patch: (resource, namespace, name, patch, options) =>
      kubeRequest(kubeConfig, {
        method: 'PATCH',
        path: objectPath(resource, { namespace, name }),
        query: query(options),
        body: patch,
        contentType: 'application/merge-patch+json',
      }),
    async delete(resource, namespace, name) {
      try {
        await kubeRequest(kubeConfig, {
          method: 'DELETE',
          path: objectPath(resource, { namespace, name }),
          query: { propagationPolicy: 'Background' },
        });
        return true;
      } catch (error) {
        if (isKubeApiError(error, 404)) return false;
        throw error;
      }
    },
  };
}

// Secret values a client sends (an OAuth client secret, a deployment's secrets) go to a Secret owned
// by the object that uses them, so deleting the object deletes its values with it.
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import { managedSecretLabels } from '../api/readable-secrets.ts';
import { secretKind, type DeepReadonly } from '../runtime/types.ts';
import { isKubeApiError } from '../runtime/kube-request.ts';
import type { ObjectWriter, ResourceRef } from './kube-writer.ts';
import { conflict } from './errors.ts';
import { retryOnConflict } from './kube-errors.ts';

export interface Owner {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; uid?: string };
}

export function ownerReference(owner: Owner | DeepReadonly<Owner>): V1OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function renderOwnedSecret(
  namespace: string,
  name: string,
  owner: Owner | DeepReadonly<Owner>,
  values: Record<string, string>,
): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ownerReferences: [ownerReference(owner)], labels: { ...managedSecretLabels } },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')])),
  };
}

/**
 * Whether a Secret already there may be replaced by `secret`: it is controlled by an object of the same
 * kind and name (this one, or an earlier one of that name whose Secret was not collected yet). Any other
 * Secret (a code host's credentials, one made by hand) is never taken over, whatever its name.
 */
export function mayReplace(current: DeepReadonly<V1Secret>, secret: V1Secret): boolean {
  const wanted = secret.metadata?.ownerReferences?.find((ref) => ref.controller);
  const controller = current.metadata?.ownerReferences?.find((ref) => ref.controller);
  return (
    !!wanted &&
    !!controller &&
    controller.apiVersion === wanted.apiVersion &&
    controller.kind === wanted.kind &&
    controller.name === wanted.name
  );
}

/**
 * Creates the Secret, or replaces the one already there (values and owner) with exactly these values
 * when it belongs to the same object (mayReplace); another Secret of that name is a 409 that changes nothing.
 */
export async function writeOwnedSecret(writer: ObjectWriter, secret: V1Secret): Promise<void> {
  const namespace = secret.metadata!.namespace!;
  try {
    await writer.create(secretKind, namespace, secret);
  } catch (error) {
    if (!isKubeApiError(error, 409)) throw error;
    await retryOnConflict(async () => {
      const current = await writer.read<V1Secret>(secretKind, namespace, secret.metadata!.name!);
      if (current && !mayReplace(current, secret)) {
        throw conflict(
          `Secret ${secret.metadata!.name} exists in the namespace and does not belong to this ${secret.metadata!.ownerReferences?.[0]?.kind ?? 'object'}: choose another name.`,
        );
      }
      const next = { ...secret, metadata: { ...secret.metadata, resourceVersion: current?.metadata?.resourceVersion } };
      await (current ? writer.replace(secretKind, namespace, next) : writer.create(secretKind, namespace, secret));
    });
  }
}

/**
 * The owned Secret of an object just created, when it has one: an object whose Secret cannot be written
 * is taken back before the error goes on, so no object is left without its values.
 */
export async function writeOwnedSecretOrUndo(
  writer: ObjectWriter,
  created: { resource: ResourceRef; namespace: string; name: string },
  secret: V1Secret | undefined,
): Promise<void> {
  if (!secret) return;
  try {
    await writeOwnedSecret(writer, secret);
  } catch (error) {
    // Best effort: the Secret's failure is the one the caller must hear; an object left behind can be deleted.
    await writer.delete(created.resource, created.namespace, created.name).catch(() => {});
    throw error;
  }
}

/** The values of a Secret, decoded; empty when it does not exist. */
export async function readSecretValues(writer: ObjectWriter, namespace: string, name: string): Promise<Record<string, string>> {
  const secret = await writer.read<V1Secret>(secretKind, namespace, name);
  return Object.fromEntries(Object.entries(secret?.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

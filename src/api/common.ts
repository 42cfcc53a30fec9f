// Building blocks shared by the kinds: URL fields, Secret references, the object envelope.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { z } from 'zod';
import type { apiVersion } from './group.ts';
import { berthOwnSecretMessage, berthOwnSecretNames } from './berth-own-secrets.ts';

/** A Secret's name a spec may read: any of its namespace's but Berth's own. */
const readableSecretName = z
  .string()
  .min(1)
  .max(253)
  .refine((name) => !berthOwnSecretNames.includes(name), { message: berthOwnSecretMessage })
  .meta({
    'x-kubernetes-validations': [
      { rule: `!(self in [${berthOwnSecretNames.map((name) => `'${name}'`).join(', ')}])`, message: berthOwnSecretMessage },
    ],
  });

/** An absolute http(s) URL. A pattern rather than a format: the API server checks it before storing. */
export function httpUrl(description: string) {
  return z
    .string()
    .max(2048)
    .regex(/^https?:\/\/[^\s/?#]+[^\s]*$/, { message: 'must be an absolute http(s) URL' })
    .describe(description);
}

/**
 * A repository's http(s) URL: no user information (a credential in a spec ends up in Events and logs),
 * no query and no fragment (which would turn the paths Berth appends into something else).
 */
export function repositoryUrl(description: string) {
  return z
    .string()
    .max(2048)
    .regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, { message: 'must be an http(s) URL without user information, query or fragment' })
    .describe(description);
}

/** A UUID in any version (metadata.uid values are UUIDs). */
export function uuid(description: string) {
  return z.guid().max(36).describe(description);
}

export const secretKeySelectorSchema = z
  .object({
    name: readableSecretName.describe("Name of a Secret in the same namespace (not one of Berth's own)."),
    key: z.string().min(1).max(253).describe('Key of the value in that Secret.'),
  })
  .describe('A key of a Secret in the same namespace.');
export type SecretKeySelector = z.infer<typeof secretKeySelectorSchema>;

export const localObjectReferenceSchema = z
  .object({ name: z.string().min(1).max(253).describe('Name of the object in the same namespace.') })
  .describe('A reference to an object in the same namespace.');
export type LocalObjectReference = z.infer<typeof localObjectReferenceSchema>;

export const observedGenerationSchema = z.number().int().min(0).describe('metadata.generation of the spec the controller last acted on.');

export const updatedAtSchema = z
  .string()
  .describe('When the controller last recorded a change of this object (RFC 3339).')
  .meta({ format: 'date-time' });

/** A Berth object as the API server stores it. */
export type KindObject<K extends string, Spec, Status> = {
  apiVersion: typeof apiVersion;
  kind: K;
  metadata: V1ObjectMeta;
  spec: Spec;
  status?: Status;
};

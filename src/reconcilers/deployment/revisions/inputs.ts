// What a Deployment's spec refers to outside itself: the Secrets its secrets come from and, for a
// codehost source, the CodeHostIntegration. A reference that cannot be followed is a Problem (the spec
// passed the CRD but cannot be served): reported as Stalled, never thrown, never a crash loop.
import type { V1Secret } from '@kubernetes/client-node';
import { secretNotReadableMessage, sourceKind, type CodeHostIntegration, type SourceConfig } from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { fingerprintSecret, type SecretFingerprint } from './digest.ts';
import { childNames } from '../../../api/child-names.ts';
import type { SecretEntryInput } from '../render/spec.ts';
import type { Problem } from '../problem.ts';

export type Lookup<T> = (namespace: string, name: string) => DeepReadonly<T> | undefined;

export interface SecretReference {
  /** The environment variable (the entry's name). */
  entry: string;
  secretName: string;
  key: string;
  /** What reads it, as a message names it: `secret <entry>` unless said. */
  readBy?: string;
}

export function secretReferences(deploymentName: string, secrets: readonly SecretEntryInput[] | null | undefined): SecretReference[] {
  return (secrets ?? []).map((entry) => ({
    entry: entry.name,
    secretName: entry.valueFrom?.secretKeyRef.name ?? childNames(deploymentName).secrets,
    key: entry.valueFrom?.secretKeyRef.key ?? entry.name,
  }));
}

/** The Secret keys sourceConfig reads besides the environment's: the URIs of the team's own databases
 * (externalDatabase), and the key notifications are signed with. */
export function sourceConfigSecretReferences(sourceConfig: DeepReadonly<SourceConfig> | null | undefined): SecretReference[] {
  const keys = [
    ['externalDatabase.postgresUri', 'DATABASE_URI', sourceConfig?.externalDatabase?.postgresUri],
    ['externalDatabase.redisUri', 'REDIS_URI', sourceConfig?.externalDatabase?.redisUri],
    ['notifications.signingSecret', 'notifications', sourceConfig?.notifications?.signingSecret],
  ] as const;
  return keys.flatMap(([member, entry, key]) =>
    key ? [{ entry, secretName: key.name, key: key.key, readBy: `spec.sourceConfig.${member}` }] : [],
  );
}

/** The names of the Secrets a Deployment reads: a change to one of them may make a new revision. */
export function referencedSecretNames(
  deploymentName: string,
  spec:
    | { readonly secrets?: readonly SecretEntryInput[] | null | undefined; readonly sourceConfig?: DeepReadonly<SourceConfig> | undefined }
    | undefined,
): Set<string> {
  const references = [...secretReferences(deploymentName, spec?.secrets), ...sourceConfigSecretReferences(spec?.sourceConfig)];
  return new Set(references.map((ref) => ref.secretName));
}

export type SecretFingerprints = { fingerprints: SecretFingerprint[] } | { problem: Problem; secretName?: string };

/** How long a Deployment waits for the HTTP API's `<deployment>-secrets` Secret before it reports Stalled. */
export const facadeSecretGraceMs = 30_000;

/**
 * A missing `<deployment>-secrets` Secret is awaited (Reconciling) for a short while after the
 * Deployment was created; any other missing Secret, or that one later, stalls the Deployment.
 */
export function awaitedProblem(
  result: { problem: Problem; secretName?: string },
  deploymentName: string,
  createdAt: string | undefined,
  now: Date,
): Problem {
  const young = createdAt !== undefined && now.getTime() - Date.parse(createdAt) < facadeSecretGraceMs;
  return result.secretName === childNames(deploymentName).secrets && young ? { ...result.problem, awaited: true } : result.problem;
}

/**
 * The content hash of every secret value. Values are read from the cache and hashed here; they go
 * nowhere else (no log line, no status, no Event).
 */
export function fingerprintSecrets(
  namespace: string,
  references: readonly SecretReference[],
  secrets: Lookup<V1Secret>,
): SecretFingerprints {
  const fingerprints: SecretFingerprint[] = [];
  for (const ref of references) {
    const secret = secrets(namespace, ref.secretName);
    if (!secret) {
      return {
        problem: {
          reason: 'SecretNotFound',
          message: `${secretNotReadableMessage(ref.secretName, namespace)} (for ${ref.readBy ?? `secret ${ref.entry}`}).`,
        },
        secretName: ref.secretName,
      };
    }
    const encoded = secret.data?.[ref.key];
    if (encoded === undefined) {
      return {
        problem: {
          reason: 'SecretKeyNotFound',
          message: `Secret ${ref.secretName} has no key ${ref.key} (for ${ref.readBy ?? `secret ${ref.entry}`}).`,
        },
      };
    }
    // Hashing the base64 form is hashing the value: the encoding is a bijection.
    fingerprints.push(fingerprintSecret(ref.entry, encoded));
  }
  return { fingerprints };
}

/**
 * Each secret environment variable's value (base64, as stored), read with the fingerprints: what a new revision's
 * own Secret holds (render/revision.ts). Called once fingerprintSecrets found every key.
 */
export function secretValuesOf(
  namespace: string,
  references: readonly SecretReference[],
  secrets: Lookup<V1Secret>,
): Record<string, string> {
  return Object.fromEntries(references.map((ref) => [ref.entry, secrets(namespace, ref.secretName)?.data?.[ref.key] ?? '']));
}

export type IntegrationResolution = { integration?: DeepReadonly<CodeHostIntegration> } | { problem: Problem };

/** A codehost Deployment names its integration by id, which is the CodeHostIntegration's metadata.uid. */
export function resolveIntegration(
  source: string,
  integrationId: string | null | undefined,
  integrationsInNamespace: readonly DeepReadonly<CodeHostIntegration>[],
): IntegrationResolution {
  if (!sourceKind(source)?.usesIntegration) return {};
  if (!integrationId)
    return {
      problem: { reason: 'IntegrationNotFound', message: 'spec.sourceConfig.integrationId is required for a codehost Deployment.' },
    };
  const integration = integrationsInNamespace.find((candidate) => candidate.metadata.uid === integrationId);
  if (!integration) {
    return {
      problem: { reason: 'IntegrationNotFound', message: `No CodeHostIntegration with id ${integrationId} exists in this namespace.` },
    };
  }
  return { integration };
}

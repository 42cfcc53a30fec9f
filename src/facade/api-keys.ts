// API keys: a key is shown once, when minted; only its SHA-256 is kept, in a Secret in the operator's
// namespace labelled berth.dev/api-key=true, next to the organizations the key may reach.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KubeConfig, V1Namespace, V1Secret } from '@kubernetes/client-node';
import { fieldManager, labels as apiLabels } from '../api/group.ts';
import { applyObject } from '../runtime/apply.ts';
import { decodeSecretValue } from '../runtime/secret-data.ts';

export const apiKeyLabel = 'berth.dev/api-key';
const hashKey = 'sha256';
const organizationsKey = 'organizations';

export interface ApiKeyRecord {
  /** SHA-256 of the key. */
  hash: Buffer;
  /** The organizations the key may reach; the first is the one used without X-Tenant-Id. */
  organizationIds: string[];
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function mintApiKey(): string {
  return `berth_${randomBytes(32).toString('base64url')}`;
}

/** The Secret that stores a key's hash: its name derives from the hash so minting twice is idempotent. */
export function renderApiKeySecret(operatorNamespace: string, hash: Buffer, organizationIds: string[]): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `berth-api-key-${hash.toString('hex').slice(0, 16)}`,
      namespace: operatorNamespace,
      labels: { [apiKeyLabel]: 'true' },
    },
    type: 'Opaque',
    stringData: { [hashKey]: hash.toString('hex'), [organizationsKey]: organizationIds.join(',') },
  };
}

/** Reads a key Secret back; undefined for one that is not a well-formed key Secret. */
export function apiKeyRecordFromSecret(secret: V1Secret): ApiKeyRecord | undefined {
  if (secret.metadata?.labels?.[apiKeyLabel] !== 'true') return undefined;
  const hex = decodeSecretValue(secret.data?.[hashKey]) ?? secret.stringData?.[hashKey];
  const organizations = decodeSecretValue(secret.data?.[organizationsKey]) ?? secret.stringData?.[organizationsKey];
  if (!hex || !/^[0-9a-f]{64}$/i.test(hex.trim()) || !organizations) return undefined;
  const organizationIds = organizations
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  return { hash: Buffer.from(hex.trim(), 'hex'), organizationIds };
}

/**
 * The record whose hash matches the presented key. Every stored hash is compared, each in constant
 * time, so the time taken says nothing about how close a guess came.
 */
export function matchApiKey(key: string, records: Iterable<ApiKeyRecord>): ApiKeyRecord | undefined {
  const presented = hashApiKey(key);
  let match: ApiKeyRecord | undefined;
  for (const record of records) {
    if (record.hash.length === presented.length && timingSafeEqual(record.hash, presented) && !match) {
      match = record;
    }
  }
  return match;
}

/**
 * Stores a key (the one given, or a freshly minted one) for the given organizations and returns it.
 * Creates the operator namespace when it is missing; a key already stored gets its organizations updated.
 */
export async function ensureApiKey(
  kubeConfig: KubeConfig,
  operatorNamespace: string,
  organizationIds: string[],
  key: string = mintApiKey(),
): Promise<{ key: string; secretName: string }> {
  await applyObject<V1Namespace>(kubeConfig, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: operatorNamespace } }, fieldManager);
  const secret = renderApiKeySecret(operatorNamespace, hashApiKey(key), organizationIds);
  await applyObject(kubeConfig, secret, fieldManager);
  return { key, secretName: secret.metadata!.name! };
}

/** Labels a namespace as an organization's, creating the namespace when it is missing. */
export async function ensureOrganizationNamespace(kubeConfig: KubeConfig, namespace: string, organizationId: string): Promise<void> {
  const labels = { [apiLabels.organizationId]: organizationId };
  await applyObject<V1Namespace>(kubeConfig, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } }, fieldManager);
}

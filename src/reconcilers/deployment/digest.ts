// The revision rule (the README's "What Berth gives you"): what a Revision is, as a digest. Two specs with the same
// revision config and the same secret values get the same digest, whatever order their keys come in,
// so the digest and not the generation decides whether a new Revision is due.
import { createHash } from 'node:crypto';

export interface SecretFingerprint {
  name: string;
  /** SHA-256 of the value: the digest changes with the value without the value ever being stored. */
  valueHash: string;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * JSON with object keys sorted at every depth; `undefined` and `null` members are dropped, so an absent
 * optional field and one the API server stored as null read the same. Array order is kept: it means
 * something (the order of secrets is normalised by the caller).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined && member !== null) out[key] = normalise(member);
    }
    return out;
  }
  return value;
}

export function fingerprintSecret(name: string, value: string): SecretFingerprint {
  return { name, valueHash: sha256Hex(value) };
}

export function revisionDigest(sourceRevisionConfig: unknown, secrets: readonly SecretFingerprint[]): string {
  const sorted = [...secrets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sha256Hex(canonicalJson({ sourceRevisionConfig: sourceRevisionConfig ?? {}, secrets: sorted }));
}

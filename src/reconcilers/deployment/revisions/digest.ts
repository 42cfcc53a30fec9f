// The revision rule (the README's "What Berth gives you"): what a Revision is, as a digest. Two specs with the same
// revision config and the same secret values get the same digest, whatever order their keys come in,
// so the digest and not the generation decides whether a new Revision is due.
import { hash } from 'node:crypto';
import { canonicalJson } from '../../../runtime/canonical-json.ts';

// Declared with the API: statuses are compared in it too.
export { canonicalJson };

export interface SecretFingerprint {
  name: string;
  /** SHA-256 of the value: the digest changes with the value without the value ever being stored. */
  valueHash: string;
}

/** One call, no Hash object: every pass hashes each child it compares. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

export function fingerprintSecret(name: string, value: string): SecretFingerprint {
  return { name, valueHash: sha256Hex(value) };
}

export function revisionDigest(sourceRevisionConfig: unknown, secrets: readonly SecretFingerprint[]): string {
  const sorted = [...secrets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sha256Hex(canonicalJson({ sourceRevisionConfig: sourceRevisionConfig ?? {}, secrets: sorted }));
}

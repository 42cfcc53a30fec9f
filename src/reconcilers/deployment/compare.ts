// "Writes only when needed": a rendered child is applied only when the cached object differs from it.
// Two checks, both over the fields Berth renders:
// - a hash of the rendered manifest, stored in an annotation when applied, catches what Berth stopped
//   rendering (a removed label or sidecar), which a containment check cannot see;
// - a containment check (every rendered value is present in the cached object, which may hold more:
//   defaults, status, other managers' fields) catches drift made by someone else.
import { canonicalJson, sha256Hex } from './digest.ts';

export const appliedHashAnnotation = 'berth.dev/applied-hash';

interface Manifest {
  metadata?: object | undefined;
}

export function appliedHashOf(object: unknown): string | undefined {
  const metadata = (object as { metadata?: { annotations?: Record<string, string> } } | undefined)?.metadata;
  return metadata?.annotations?.[appliedHashAnnotation];
}

/** The manifest with its own hash in the annotation Berth compares against. */
export function withAppliedHash<T extends Manifest>(manifest: T): T {
  const hash = sha256Hex(canonicalJson(manifest)).slice(0, 16);
  const metadata = (manifest.metadata ?? {}) as { annotations?: Record<string, string> };
  return { ...manifest, metadata: { ...metadata, annotations: { ...metadata.annotations, [appliedHashAnnotation]: hash } } };
}

/**
 * True when `actual` holds every value `desired` sets. Empty lists and maps in `desired` match an
 * absent member (the API server drops them); lists must match element by element.
 */
export function contains(actual: unknown, desired: unknown): boolean {
  if (desired === undefined || desired === null) return true;
  if (Array.isArray(desired)) {
    if (actual === undefined || actual === null) return desired.length === 0;
    if (!Array.isArray(actual) || actual.length !== desired.length) return false;
    return desired.every((item, i) => contains(actual[i], item));
  }
  if (typeof desired === 'object') {
    const members = Object.entries(desired as Record<string, unknown>);
    if (actual === undefined || actual === null) return members.every(([, v]) => isEmpty(v));
    if (typeof actual !== 'object' || Array.isArray(actual)) return false;
    return members.every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }
  return actual === desired;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every(isEmpty);
  return false;
}

/** True when applying `desired` (already carrying its hash) would change nothing Berth owns. */
export function upToDate(cached: unknown, desired: Manifest): boolean {
  if (!cached) return false;
  const hash = appliedHashOf(desired);
  return hash !== undefined && hash === appliedHashOf(cached) && contains(cached, desired);
}

// "Writes only when needed": a rendered child is applied only when the cached object differs from it.
// Two checks, both over the fields Berth renders:
// - a hash of the rendered manifest, stored in an annotation when applied, catches what Berth stopped
//   rendering (a removed label or sidecar), which a containment check cannot see;
// - a containment check (every rendered value is present in the cached object, which may hold more:
//   defaults, status, other managers' fields) catches drift made by someone else.
import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { quantityValue } from './quantity.ts';

const appliedHashAnnotation = 'berth.dev/applied-hash';

interface Manifest {
  metadata?: object | undefined;
}

export function appliedHashOf(object: unknown): string | undefined {
  const metadata = (object as { metadata?: { annotations?: Record<string, string> } } | undefined)?.metadata;
  return metadata?.annotations?.[appliedHashAnnotation];
}

/** The manifest with its own hash in the annotation Berth compares against. */
export function withAppliedHash<T extends Manifest>(manifest: T): T {
  const applied = hash('sha256', canonicalJson(manifest), 'hex').slice(0, 16);
  const metadata = (manifest.metadata ?? {}) as { annotations?: Record<string, string> };
  return { ...manifest, metadata: { ...metadata, annotations: { ...metadata.annotations, [appliedHashAnnotation]: applied } } };
}

/** True when `a` and `b` hold the same values, an absent member and an empty list or map being the same
 * (the API server drops them): what someone else added shows, as well as what they changed. */
export function sameContent(a: unknown, b: unknown): boolean {
  return contains(a, b) && contains(b, a);
}

/**
 * True when `actual` holds every value `desired` sets. Empty lists and maps in `desired` match an
 * absent member (the API server drops them); lists must match element by element.
 */
export function contains(actual: unknown, desired: unknown): boolean {
  if (desired === undefined || desired === null) return true;
  // Loops rather than every(): a pass runs this over each child it compares, and closures are garbage.
  if (Array.isArray(desired)) {
    if (actual === undefined || actual === null) return desired.length === 0;
    if (!Array.isArray(actual) || actual.length !== desired.length) return false;
    for (let i = 0; i < desired.length; i++) if (!contains(actual[i], desired[i])) return false;
    return true;
  }
  if (typeof desired === 'object') {
    const wanted = desired as Record<string, unknown>;
    if (actual === undefined || actual === null) return isEmpty(wanted);
    if (typeof actual !== 'object' || Array.isArray(actual)) return false;
    const held = actual as Record<string, unknown>;
    for (const key in wanted) if (!contains(held[key], wanted[key])) return false;
    return true;
  }
  if (actual === desired) return true;
  // The API server stores quantities in canonical form ("1000m" becomes "1"); a user's sidecar may
  // spell them either way. Equal amounts are equal: what Berth renders is already covered by the hash.
  return typeof actual === 'string' && typeof desired === 'string' && sameQuantity(actual, desired);
}

function sameQuantity(a: string, b: string): boolean {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (x === undefined || y === undefined) return false;
  return Math.abs(x - y) <= Math.max(Math.abs(x), Math.abs(y)) * 1e-12;
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

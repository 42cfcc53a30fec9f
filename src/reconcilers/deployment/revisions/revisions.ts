// Choosing among a Deployment's Revisions: which one the spec describes, which one to serve, which ones
// to prune. Pure.

export interface RevisionSummary {
  name: string;
  uid: string;
  digest: string;
  /** The Deployment's generation when the Revision was created (its label); orders revisions. */
  generation: number;
  creationTimestamp: string;
}

export const defaultRevisionRetention = 10;

export function findByDigest<T extends RevisionSummary>(revisions: readonly T[], digest: string): T | undefined {
  return revisions.find((r) => r.digest === digest);
}

export type TargetChoice<T> = { revision: T; pinned: boolean } | { problem: { reason: string; message: string } };

/**
 * The revision to serve: the one spec.revisionName pins (a rollback), else the one the current spec
 * describes (the latest).
 */
export function chooseTarget<T extends RevisionSummary>(
  revisions: readonly T[],
  latest: T,
  pinnedName: string | null | undefined,
): TargetChoice<T> {
  if (!pinnedName) return { revision: latest, pinned: false };
  const pinned = revisions.find((r) => r.name === pinnedName);
  if (!pinned) {
    return {
      problem: {
        reason: 'RevisionNotFound',
        message: `spec.revisionName names Revision ${pinnedName}, which this Deployment does not have.`,
      },
    };
  }
  return { revision: pinned, pinned: true };
}

/** Newest first: by the generation label, then by creation time, then by name for a stable order. */
export function newestFirst<T extends RevisionSummary>(revisions: readonly T[]): T[] {
  return [...revisions].sort(
    (a, b) => b.generation - a.generation || b.creationTimestamp.localeCompare(a.creationTimestamp) || a.name.localeCompare(b.name),
  );
}

/**
 * The revisions beyond the newest `retention` ones, never one in `protectedNames` (the active, the
 * latest and the pinned revision).
 */
export function revisionsToPrune<T extends RevisionSummary>(
  revisions: readonly T[],
  retention: number,
  protectedNames: ReadonlySet<string>,
): T[] {
  const ordered = newestFirst(revisions);
  const kept = new Set(ordered.slice(0, Math.max(retention, 0)).map((r) => r.name));
  for (const name of protectedNames) kept.add(name);
  return ordered.filter((r) => !kept.has(r.name));
}

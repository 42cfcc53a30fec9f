import { describe, expect, it } from 'vitest';
import { chooseTarget, findByDigest, newestFirst, revisionsToPrune, type RevisionSummary } from './revisions.ts';

const revision = (name: string, generation: number, digest = name): RevisionSummary => ({
  name,
  uid: `uid-${name}`,
  digest,
  generation,
  creationTimestamp: `2026-01-01T00:00:${String(generation).padStart(2, '0')}Z`,
});

const history = Array.from({ length: 14 }, (_, i) => revision(`r${i + 1}`, i + 1));

describe('findByDigest', () => {
  it('finds the revision with the digest', () => {
    expect(findByDigest(history, 'r3')?.name).toBe('r3');
    expect(findByDigest(history, 'nope')).toBeUndefined();
  });
});

describe('chooseTarget', () => {
  const latest = history[13]!;
  it('serves the latest when nothing is pinned', () => {
    expect(chooseTarget(history, latest, undefined)).toEqual({ revision: latest, pinned: false });
  });
  it('serves the pinned revision (rollback)', () => {
    expect(chooseTarget(history, latest, 'r2')).toEqual({ revision: history[1], pinned: true });
  });
  it('reports a pin to a revision that does not exist', () => {
    expect(chooseTarget(history, latest, 'gone')).toMatchObject({ problem: { reason: 'RevisionNotFound' } });
  });
});

describe('revisionsToPrune', () => {
  it('orders newest first by generation label', () => {
    expect(newestFirst([history[2]!, history[9]!, history[0]!]).map((r) => r.name)).toEqual(['r10', 'r3', 'r1']);
  });

  it('keeps the newest ones up to the retention count', () => {
    expect(revisionsToPrune(history, 10, new Set()).map((r) => r.name)).toEqual(['r4', 'r3', 'r2', 'r1']);
  });

  it('never prunes the active, latest or pinned revision', () => {
    expect(revisionsToPrune(history, 10, new Set(['r1', 'r3'])).map((r) => r.name)).toEqual(['r4', 'r2']);
  });

  it('prunes nothing within the retention count', () => {
    expect(revisionsToPrune(history.slice(0, 5), 10, new Set())).toEqual([]);
  });

  it('keeps only the protected ones with a retention of zero', () => {
    expect(revisionsToPrune(history, 0, new Set(['r14'])).length).toBe(13);
  });
});

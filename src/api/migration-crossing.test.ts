import { describe, expect, it } from 'vitest';
import { firstMigrationAfter, madeAfter } from './migration-crossing.ts';

const revision = (name: string, generation: number, minute: number, backupName?: string) => ({
  name,
  generation,
  creationTimestamp: `2026-12-07T10:0${minute}:00Z`,
  backupName,
});

describe('the migration a rollback crosses', () => {
  const [r1, r2, r2b, r3, r4] = [
    revision('r1', 1, 1),
    revision('r2', 2, 2),
    revision('r2b', 2, 3, 'r2b-backup'),
    revision('r3', 3, 4, 'r3-backup'),
    revision('r4', 4, 5),
  ];
  const all = [r4, r3, r2b, r2, r1];

  it('orders revisions by the spec they were made for, then by when', () => {
    expect(madeAfter(r2b, r2)).toBe(true);
    expect(madeAfter(r2, r2b)).toBe(false);
    expect(madeAfter(r3, r2b)).toBe(true);
    // A later spec is later, whatever the clock says.
    expect(madeAfter(revision('x', 5, 0), r4)).toBe(true);
  });

  it('is the first revision after the target that took a backup before it migrated', () => {
    expect(firstMigrationAfter(r1, all)?.name).toBe('r2b');
    expect(firstMigrationAfter(r2, all)?.name).toBe('r2b');
    expect(firstMigrationAfter(r2b, all)?.name).toBe('r3');
  });

  it('is none when no later revision migrated', () => {
    expect(firstMigrationAfter(r3, all)).toBeUndefined();
    expect(firstMigrationAfter(r4, all)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { Revision } from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { summarize } from '../revisions/revision-records.ts';
import { rollbackCrossing, type BackupOnRecord } from './rollback-status.ts';

function revision(name: string, generation: number, backupName?: string) {
  return summarize({
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Revision',
    metadata: {
      name,
      namespace: 'acme',
      uid: `uid-${name}`,
      labels: { 'berth.dev/deployment-generation': String(generation) },
      creationTimestamp: `2026-12-06T10:0${generation}:00Z`,
    },
    spec: { source: 'external_docker', digest: name, sourceRevisionConfig: { imageUri: `${name}:1` } },
    status: { status: 'DEPLOYED', ...(backupName ? { backupName } : {}) },
  } as unknown as DeepReadonly<Revision>);
}

const backups: Record<string, BackupOnRecord> = {
  'r3-backup': { uid: 'b3', phase: 'Completed', serverName: 'd1', backupId: '20261206T100300' },
  'r4-backup': { uid: 'b4', phase: 'Completed' },
  'r2-backup': { uid: 'b2', phase: 'Failed' },
};
const backupOf = (name: string) => backups[name];

describe('a rollback past a migration', () => {
  const [r1, r2, r3, r4] = [
    revision('r1', 1),
    revision('r2', 2, 'r2-backup'),
    revision('r3', 3, 'r3-backup'),
    revision('r4', 4, 'r4-backup'),
  ];
  const all = [r4, r3, r2, r1];

  it('names the backup taken before the first migration after the target, and how to restore it', () => {
    const condition = rollbackCrossing(r2, all, backupOf, 'd1');
    expect(condition).toMatchObject({ type: 'RollbackCrossesMigration', status: 'True', reason: 'MigrationAfterTarget' });
    expect(condition?.message).toContain('older than r3, which migrates the database');
    expect(condition?.message).toContain('restore DatabaseBackup r3-backup');
    expect(condition?.message).toContain('POST /v2/deployments/d1/backups/b3/restore');
    expect(rollbackCrossing(r3, all, backupOf, 'd1')?.message).toContain('DatabaseBackup r4-backup');
  });

  it("never offers a later backup when the first migration's did not complete", () => {
    // r2's backup failed: r3's holds r2's migration already.
    const condition = rollbackCrossing(r1, all, backupOf, 'd1');
    expect(condition).toMatchObject({ reason: 'NoBackupBeforeMigration', message: expect.stringContaining('r2-backup, did not complete') });
    expect(condition?.message).not.toContain('r3-backup');
  });

  it('turns False once the serving database is that backup restored since the rollback, and only that backup', () => {
    const crossed = { status: 'True', lastTransitionTime: '2026-12-07T10:00:00Z' };
    const restored = { cluster: 'web-db-2', createdAt: '2026-12-07T10:05:00Z', serverName: 'd1', backupId: '20261206T100300' };
    expect(rollbackCrossing(r2, all, backupOf, 'd1', restored, crossed)).toMatchObject({
      type: 'RollbackCrossesMigration',
      status: 'False',
      reason: 'RestoredBeforeMigration',
      message: expect.stringContaining('(Cluster web-db-2) is DatabaseBackup r3-backup restored'),
    });
    // Another backup restored, or the same id under another server name, holds other data.
    for (const other of [
      { ...restored, backupId: '20261206T090000' },
      { ...restored, serverName: 'preview' },
    ])
      expect(rollbackCrossing(r2, all, backupOf, 'd1', other, crossed)).toMatchObject({ status: 'True', reason: 'MigrationAfterTarget' });
    expect(rollbackCrossing(r1, all, backupOf, 'd1', restored, crossed)).toMatchObject({
      status: 'True',
      reason: 'NoBackupBeforeMigration',
    });
    // Once said, it stays False while that restore serves.
    expect(rollbackCrossing(r2, all, backupOf, 'd1', restored, { status: 'False' })).toMatchObject({ status: 'False' });
  });

  it('never counts a restore made before the rollback: a migrating revision may have served on it since', () => {
    const restored = { cluster: 'web-db-2', createdAt: '2026-12-07T09:55:00Z', serverName: 'd1', backupId: '20261206T100300' };
    // Restored while r3 served, then rolled back to r2: r3's pods may have migrated the restored data again.
    expect(
      rollbackCrossing(r2, all, backupOf, 'd1', restored, { status: 'True', lastTransitionTime: '2026-12-07T10:00:00Z' }),
    ).toMatchObject({
      status: 'True',
      reason: 'MigrationAfterTarget',
    });
    // The first pass of a rollback has no condition on record: a restore already serving is from before it.
    expect(rollbackCrossing(r2, all, backupOf, 'd1', restored)).toMatchObject({ status: 'True' });
  });

  it('says nothing when no revision after the target migrated', () => {
    expect(rollbackCrossing(r4, all, backupOf, 'd1')).toBeUndefined();
    expect(rollbackCrossing(r1, [r1, revision('r5', 5)], backupOf, 'd1')).toBeUndefined();
  });
});

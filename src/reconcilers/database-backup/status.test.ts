import { describe, expect, it } from 'vitest';
import { nextDatabaseBackupStatus } from './status.ts';
import type { BackupTarget } from './target.ts';

const now = new Date('2026-12-06T12:00:00Z');
const take: BackupTarget = { state: 'take', databaseName: 'notes-db-1', serverName: 'uid-1' };
const ready = (status: ReturnType<typeof nextDatabaseBackupStatus>) => status.conditions?.find((c) => c.type === 'Ready');
const stalled = (status: ReturnType<typeof nextDatabaseBackupStatus>) => status.conditions?.find((c) => c.type === 'Stalled');

describe('nextDatabaseBackupStatus', () => {
  it('is Pending, in progress, while it waits', () => {
    const status = nextDatabaseBackupStatus(
      undefined,
      { state: 'wait', reason: 'DatabaseStarting', message: 'Waiting.' },
      undefined,
      1,
      now,
    );
    expect(status).toMatchObject({ phase: 'Pending', message: 'Waiting.', observedGeneration: 1 });
    expect(ready(status)).toMatchObject({ status: 'False', reason: 'DatabaseStarting' });
    expect(stalled(status)?.status).toBe('False');
  });

  it('is Failed and Stalled when refused', () => {
    const status = nextDatabaseBackupStatus(undefined, { state: 'refuse', reason: 'ExternalDatabase', message: 'No.' }, undefined, 1, now);
    expect(status.phase).toBe('Failed');
    expect(stalled(status)).toMatchObject({ status: 'True', reason: 'ExternalDatabase', message: 'No.' });
  });

  it("follows CloudNativePG's Backup, copying where it begins and ends", () => {
    expect(nextDatabaseBackupStatus(undefined, take, undefined, 1, now)).toMatchObject({ phase: 'Pending', databaseName: 'notes-db-1' });
    expect(nextDatabaseBackupStatus(undefined, take, { phase: 'started' }, 1, now).phase).toBe('Running');
    const done = nextDatabaseBackupStatus(
      undefined,
      take,
      { phase: 'completed', backupId: '20261206T120000', beginLSN: '0/2000028', endLSN: '0/2000100', startedAt: 'a', stoppedAt: 'b' },
      1,
      now,
    );
    expect(done).toMatchObject({
      phase: 'Completed',
      serverName: 'uid-1',
      backupId: '20261206T120000',
      beginLSN: '0/2000028',
      endLSN: '0/2000100',
      startedAt: 'a',
      stoppedAt: 'b',
    });
    expect(done.message).toBeUndefined();
    expect(ready(done)).toMatchObject({ status: 'True', reason: 'Completed' });
  });

  it("says CloudNativePG's error when the Backup failed", () => {
    const failed = nextDatabaseBackupStatus(undefined, take, { phase: 'failed', error: 'can not reach the bucket' }, 1, now);
    expect(failed).toMatchObject({ phase: 'Failed', message: 'can not reach the bucket' });
    expect(stalled(failed)?.reason).toBe('BackupFailed');
    expect(nextDatabaseBackupStatus(undefined, take, { phase: 'walArchivingFailing' }, 1, now).phase).toBe('Failed');
  });

  it('returns the stored status when nothing changed', () => {
    const first = nextDatabaseBackupStatus(undefined, take, { phase: 'running' }, 1, now);
    expect(nextDatabaseBackupStatus(first, take, { phase: 'running' }, 1, new Date('2026-12-07T00:00:00Z'))).toBe(first);
  });
});

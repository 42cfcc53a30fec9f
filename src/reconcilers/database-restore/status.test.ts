import { describe, expect, it } from 'vitest';
import { nextDatabaseRestoreStatus } from './status.ts';
import type { RestoreFacts } from './step.ts';

const facts: RestoreFacts = {
  deploymentName: 'notes',
  deployment: { external: false },
  engine: 'cnpg',
  backupsServed: true,
  storeKept: true,
  backup: { name: 'b1', deploymentName: 'notes', phase: 'Completed', backupId: 'x', serverName: 'uid-1' },
  serving: { cluster: 'notes-db-1', ready: true },
  target: { cluster: 'notes-db-2', other: 'notes-db-1', state: 'ours' },
  backupFirst: true,
};
const now = new Date('2026-12-06T12:00:00Z');

describe('the status of a DatabaseRestore', () => {
  it('says where it is, names the backup before it, and the database it retired once switched', () => {
    const backingUp = nextDatabaseRestoreStatus(undefined, { step: 'await-backup', name: 'r-before' }, facts, 1, now);
    expect(backingUp).toMatchObject({ phase: 'BackingUp', backupBeforeName: 'r-before' });
    const restoring = nextDatabaseRestoreStatus(backingUp, { step: 'await-restore', message: 'Restoring into notes-db-2.' }, facts, 1, now);
    expect(restoring).toMatchObject({ phase: 'Restoring', backupBeforeName: 'r-before', databaseName: 'notes-db-2' });
    const done = nextDatabaseRestoreStatus(restoring, { step: 'switch' }, facts, 1, now);
    expect(done).toMatchObject({
      phase: 'Completed',
      databaseName: 'notes-db-2',
      retiredDatabaseName: 'notes-db-1',
      switchedAt: now.toISOString(),
    });
    expect(done.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Restored' }));
    // Nothing changed: the stored status itself, so the caller writes nothing.
    expect(nextDatabaseRestoreStatus(done, { step: 'retire' }, { ...facts, serving: { cluster: 'notes-db-2', ready: true } }, 1, now)).toBe(
      done,
    );
  });

  it('says a failed restore left the deployment on its database', () => {
    const failed = nextDatabaseRestoreStatus(undefined, { step: 'abandon', message: 'The recovery job failed.' }, facts, 1, now);
    expect(failed).toMatchObject({ phase: 'Failed', message: expect.stringContaining('serves its database as before') });
    expect(failed.conditions).toContainEqual(expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'RestoreFailed' }));
  });
});

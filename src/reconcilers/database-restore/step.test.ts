import { describe, expect, it } from 'vitest';
import { restoreStep, type RestoreFacts } from './step.ts';

const ready: RestoreFacts = {
  deploymentName: 'notes',
  deployment: { external: false },
  engine: 'cnpg',
  backupsServed: true,
  storeKept: true,
  backup: { name: 'b1', deploymentName: 'notes', phase: 'Completed', backupId: '20261206T1', serverName: 'uid-1' },
  serving: { cluster: 'notes-db-1', ready: true },
  target: { cluster: 'notes-db-2', other: 'notes-db-1', state: 'absent' },
  backupFirst: true,
};
const with_ = (change: Partial<RestoreFacts>): RestoreFacts => ({ ...ready, ...change });
const target = (state: RestoreFacts['target']['state'], more: Partial<RestoreFacts['target']> = {}) => ({
  target: { ...ready.target, state, ...more },
});

describe('the step a DatabaseRestore is at', () => {
  it('backs up the serving database first, waits for that backup, then restores into the other Cluster', () => {
    expect(restoreStep(ready)).toEqual({ step: 'back-up' });
    expect(restoreStep(with_({ before: { name: 'r-before', phase: 'Running' } }))).toEqual({ step: 'await-backup', name: 'r-before' });
    expect(restoreStep(with_({ before: { name: 'r-before', phase: 'Completed' } }))).toEqual({ step: 'restore' });
    // Nothing to back up where the database does not serve (its volume lost), or when the user says so.
    expect(restoreStep(with_({ serving: { cluster: 'notes-db-1', ready: false } }))).toEqual({ step: 'restore' });
    expect(restoreStep(with_({ backupFirst: false }))).toEqual({ step: 'restore' });
  });

  it('refuses a point in time the backup cannot reach, before anything is made', () => {
    const outOfReach = 'The point in time to restore to, 2026-12-06T09:00:00Z, is before the backup ended (2026-12-06T10:00:00Z)';
    expect(restoreStep(with_({ targetOutOfReach: outOfReach }))).toEqual({
      step: 'refuse',
      reason: 'TargetTimeOutOfReach',
      message: outOfReach,
    });
    // Once its Cluster is made, the restore goes on to its end.
    expect(restoreStep(with_({ targetOutOfReach: outOfReach, ...target('ours') }))).toMatchObject({ step: 'await-restore' });
  });

  it('refuses to go on when the backup before it failed, and changes nothing', () => {
    expect(restoreStep(with_({ before: { name: 'r-before', phase: 'Failed', message: 'no space' } }))).toMatchObject({
      step: 'refuse',
      reason: 'BackupBeforeRestoreFailed',
      message: expect.stringContaining('no space'),
    });
  });

  it('switches once the restored Cluster serves, gives it up when its recovery failed, and retires the old one after', () => {
    expect(restoreStep(with_(target('ours', { message: 'Restoring into notes-db-2.' })))).toEqual({
      step: 'await-restore',
      message: 'Restoring into notes-db-2.',
    });
    expect(restoreStep(with_(target('ready')))).toEqual({ step: 'switch' });
    expect(restoreStep(with_(target('failed', { message: 'job failed' })))).toEqual({ step: 'abandon', message: 'job failed' });
    expect(restoreStep(with_({ ...target('ready'), serving: { cluster: 'notes-db-2', ready: true } }))).toEqual({ step: 'retire' });
    // Switched, its Cluster not ready this moment: it waits, and retires the old one once it is.
    expect(restoreStep(with_({ ...target('ours'), serving: { cluster: 'notes-db-2', ready: false } }))).toMatchObject({
      step: 'await-restore',
    });
  });

  it('goes on once its Cluster is made, whatever became of its backup since', () => {
    const { backup: _gone, ...noBackup } = ready;
    expect(restoreStep({ ...noBackup, ...target('ready') })).toEqual({ step: 'switch' });
    expect(restoreStep({ ...noBackup, ...target('failed', { message: 'job failed' }) })).toEqual({
      step: 'abandon',
      message: 'job failed',
    });
  });

  it('waits while the other Cluster is the database an earlier restore retired, or another restore runs', () => {
    expect(restoreStep(with_(target('another', { madeBy: 'notes-restore-1' })))).toMatchObject({
      step: 'wait',
      reason: 'RetiredDatabaseExists',
      message: expect.stringContaining('held by DatabaseRestore notes-restore-1'),
    });
    expect(restoreStep(with_({ earlierRestore: 'notes-restore-1' }))).toMatchObject({ step: 'wait', reason: 'AnotherRestoreRunning' });
  });

  it('refuses what it can never restore, and waits for what is not there yet', () => {
    expect(restoreStep(with_({ deployment: { external: true } }))).toMatchObject({ step: 'refuse', reason: 'ExternalDatabase' });
    expect(restoreStep(with_({ engine: 'statefulset' }))).toMatchObject({ step: 'refuse', reason: 'RestoresNeedCloudNativePG' });
    expect(restoreStep(with_({ backupsServed: false }))).toMatchObject({ step: 'refuse', reason: 'RestoresNeedCloudNativePG' });
    const { backup: _none, ...noBackup } = ready;
    expect(restoreStep(noBackup)).toMatchObject({ step: 'refuse', reason: 'BackupNotFound' });
    expect(restoreStep(with_({ backup: { ...ready.backup!, deploymentName: 'shop' } }))).toMatchObject({
      step: 'refuse',
      reason: 'BackupOfAnotherDeployment',
    });
    expect(restoreStep(with_({ backup: { ...ready.backup!, phase: 'Failed' } }))).toMatchObject({ step: 'refuse', reason: 'BackupFailed' });
    expect(restoreStep(with_({ backup: { name: 'b1', deploymentName: 'notes', phase: 'Running' } }))).toMatchObject({
      step: 'wait',
      reason: 'BackupRunning',
    });
    const { deployment: _gone, ...noDeployment } = ready;
    expect(restoreStep(noDeployment)).toMatchObject({ step: 'wait', reason: 'DeploymentNotFound' });
    expect(restoreStep(with_({ storeKept: false }))).toMatchObject({ step: 'wait', reason: 'AwaitingBackupStore' });
  });
});

import { describe, expect, it } from 'vitest';
import { backupTarget, type BackupFacts } from './target.ts';

const ready: BackupFacts = {
  deploymentName: 'notes',
  deployment: { uid: 'uid-1', external: false },
  engine: 'cnpg',
  backupsServed: true,
  storeKept: true,
  databaseReady: true,
  databaseName: 'notes-db-1',
  serverName: 'uid-1',
};

describe('backupTarget', () => {
  it("takes a serving CloudNativePG database under the Deployment's uid", () => {
    expect(backupTarget(ready)).toEqual({ state: 'take', databaseName: 'notes-db-1', serverName: 'uid-1' });
  });

  it('waits for a Deployment not made yet, the backup store and a starting database', () => {
    const { deployment: _, ...missing } = ready;
    expect(backupTarget(missing)).toMatchObject({ state: 'wait', reason: 'DeploymentNotFound' });
    expect(backupTarget({ ...ready, storeKept: false })).toMatchObject({ state: 'wait', reason: 'AwaitingBackupStore' });
    expect(backupTarget({ ...ready, databaseReady: false })).toMatchObject({ state: 'wait', reason: 'DatabaseStarting' });
  });

  it("refuses a team's own database, a StatefulSet's and a cluster without CloudNativePG, whatever else holds", () => {
    const external = backupTarget({ ...ready, deployment: { uid: 'uid-1', external: true }, backupsServed: false });
    expect(external).toMatchObject({ state: 'refuse', reason: 'ExternalDatabase' });
    expect(backupTarget({ ...ready, backupsServed: false, storeKept: false })).toMatchObject({
      state: 'refuse',
      reason: 'BackupsNeedCloudNativePG',
      message: expect.stringContaining('serves no CloudNativePG Backup'),
    });
    expect(backupTarget({ ...ready, engine: 'statefulset', databaseReady: false })).toMatchObject({
      state: 'refuse',
      reason: 'BackupsNeedCloudNativePG',
      message: expect.stringContaining("notes's database is a StatefulSet"),
    });
  });
});

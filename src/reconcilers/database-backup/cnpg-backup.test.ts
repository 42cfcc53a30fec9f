import { describe, expect, it } from 'vitest';
import { renderCnpgBackup, takenFor } from './cnpg-backup.ts';

const owner = { name: 'notes-backup-x1', namespace: 'org', uid: 'uid-b' };

describe('renderCnpgBackup', () => {
  it('backs up the Cluster through the barman-cloud plugin, owned by its DatabaseBackup', () => {
    const backup = renderCnpgBackup(owner, 'notes-db-1');
    expect(backup).toMatchObject({
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'Backup',
      metadata: { name: 'notes-backup-x1', namespace: 'org' },
      spec: { cluster: { name: 'notes-db-1' }, method: 'plugin', pluginConfiguration: { name: 'barman-cloud.cloudnative-pg.io' } },
    });
    expect(takenFor(backup, owner)).toBe(true);
    expect(takenFor(backup, { ...owner, uid: 'another' })).toBe(false);
    expect(takenFor({ ...backup, metadata: { name: owner.name } }, owner)).toBe(false);
  });
});

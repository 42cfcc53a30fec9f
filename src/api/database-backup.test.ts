import { describe, expect, it } from 'vitest';
import { backupRequestedAt, backupRequestedAtAnnotation, newestCompletedBackup } from './database-backup.ts';

describe('backupRequestedAt', () => {
  it("orders by Berth's annotation to the millisecond, else by when the object was made", () => {
    const asked = {
      metadata: { annotations: { [backupRequestedAtAnnotation]: '2026-12-06T11:00:00.250Z' }, creationTimestamp: '2026-12-06T11:00:00Z' },
    };
    expect(backupRequestedAt(asked)).toBe(Date.parse('2026-12-06T11:00:00.250Z'));
    expect(backupRequestedAt({ metadata: { creationTimestamp: '2026-12-06T11:00:01Z' } })).toBe(Date.parse('2026-12-06T11:00:01Z'));
    expect(backupRequestedAt({ metadata: { creationTimestamp: new Date('2026-12-06T11:00:02Z') } })).toBe(
      Date.parse('2026-12-06T11:00:02Z'),
    );
    expect(backupRequestedAt({ metadata: { annotations: { [backupRequestedAtAnnotation]: 'soon' } } })).toBe(0);
  });
});

describe('newestCompletedBackup', () => {
  const backup = (name: string, phase: string, stoppedAt: string, uid = 'uid-1', deploymentName = 'shop') => ({
    metadata: { name, ownerReferences: [{ uid }] },
    spec: { deploymentName },
    status: { phase, stoppedAt, serverName: uid, backupId: `id-${name}` },
  });
  it("picks the deployment's own completed backup that ended last, one it can be restored from", () => {
    const backups = [
      backup('old', 'Completed', '2026-12-06T10:00:00Z'),
      backup('new', 'Completed', '2026-12-06T12:00:00Z'),
      backup('running', 'Running', ''),
      backup('failed', 'Failed', '2026-12-06T13:00:00Z'),
      // An earlier deployment of the same name, and another deployment.
      backup('earlier', 'Completed', '2026-12-06T14:00:00Z', 'uid-0'),
      backup('other', 'Completed', '2026-12-06T15:00:00Z', 'uid-1', 'other'),
    ];
    expect(newestCompletedBackup(backups, { name: 'shop', uid: 'uid-1' })?.metadata.name).toBe('new');
    expect(newestCompletedBackup(backups.slice(2), { name: 'shop', uid: 'uid-1' })).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { backupScheduleOf, renderScheduledBackup, scheduledRecordExpired, scheduleStep } from './schedule.ts';

const at = (text: string) => Date.parse(text);

describe('backupScheduleOf', () => {
  it("takes the deployment's schedule, else the installation's, and none when either says off", () => {
    expect(backupScheduleOf('30 2 * * *', '0 3 * * *')).toBe('30 2 * * *');
    expect(backupScheduleOf(undefined, '0 3 * * *')).toBe('0 3 * * *');
    expect(backupScheduleOf('off', '0 3 * * *')).toBeUndefined();
    expect(backupScheduleOf(undefined, 'off')).toBeUndefined();
    expect(backupScheduleOf(undefined, undefined)).toBeUndefined();
  });
});

describe('scheduleStep', () => {
  it('is due at the first tick after the deployment was made, and waits for it before', () => {
    const since = at('2026-12-06T10:00:00Z');
    expect(scheduleStep('0 3 * * *', undefined, since, at('2026-12-07T02:59:00Z'))).toEqual({ next: new Date('2026-12-07T03:00:00Z') });
    expect(scheduleStep('0 3 * * *', undefined, since, at('2026-12-07T03:00:05Z'))).toEqual({ due: new Date('2026-12-07T03:00:00Z') });
  });

  it('counts from the last scheduled backup: ticks missed meanwhile make one backup', () => {
    const last = at('2026-12-07T03:00:01Z');
    // Away three days: the first tick after the last backup is due, once.
    expect(scheduleStep('0 3 * * *', last, 0, at('2026-12-10T12:00:00Z'))).toEqual({ due: new Date('2026-12-08T03:00:00Z') });
  });

  it('takes at most one an hour, whatever the pattern', () => {
    const last = at('2026-12-07T03:00:00Z');
    expect(scheduleStep('*/5 * * * *', last, 0, at('2026-12-07T03:30:00Z'))).toEqual({ next: new Date('2026-12-07T04:00:00Z') });
    expect(scheduleStep('* * * * * *', undefined, at('2026-12-07T03:00:00Z'), at('2026-12-07T03:00:02Z'))).toEqual({
      due: new Date('2026-12-07T03:00:01Z'),
    });
  });

  it('says never for a pattern with no tick to come', () => {
    expect(scheduleStep('0 0 30 2 *', undefined, 0, 0)).toEqual({ never: true });
  });
});

describe('renderScheduledBackup', () => {
  it('names the backup after its deployment and tick, reason scheduled, under the Deployment', () => {
    const backup = renderScheduledBackup(
      { name: 'notes', namespace: 'org', uid: 'uid-1' },
      new Date('2026-12-07T03:00:00Z'),
      new Date('2026-12-07T03:00:01.500Z'),
    );
    expect(backup).toMatchObject({
      metadata: {
        name: 'notes-20261207-030000',
        annotations: { 'berth.dev/requested-at': '2026-12-07T03:00:01.500Z' },
        ownerReferences: [{ kind: 'Deployment', name: 'notes', uid: 'uid-1' }],
      },
      spec: { deploymentName: 'notes', reason: 'scheduled' },
    });
  });

  it('lets a record go once its files are gone from the bucket', () => {
    expect(scheduledRecordExpired(at('2026-12-01T00:00:00Z'), at('2026-12-15T00:00:00Z'))).toBe(false);
    expect(scheduledRecordExpired(at('2026-12-01T00:00:00Z'), at('2026-12-16T00:00:01Z'))).toBe(true);
  });
});

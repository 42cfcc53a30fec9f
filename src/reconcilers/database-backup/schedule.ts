// When a deployment's scheduled backups are due (docs/data.md §2.3): each tick of its schedule (its own,
// sourceConfig.backups.schedule, or the installation's) asks for one DatabaseBackup of reason scheduled,
// named after the tick, so two passes that see the same tick make one backup. Ticks missed while Berth
// was away make one backup, not one each, and a deployment gets at most one an hour. Pure.
import { Cron } from 'croner';
import { boundedName, databaseBackupFor, dnsLabelBase, scheduledBackupRecordDays, type DatabaseBackup } from '../../api/index.ts';

/** The least time between two scheduled backups of one database: a tick sooner is passed over. */
export const scheduleFloorMs = 3_600_000;

/** The deployment's schedule (a cron pattern), or the installation's where it names none; undefined when off. */
export function backupScheduleOf(own: string | undefined, installation: string | undefined): string | undefined {
  const pattern = own ?? installation;
  return pattern && pattern !== 'off' ? pattern : undefined;
}

export type ScheduleStep = { due: Date } | { next: Date } | { never: true };

/**
 * The tick due now (the first after `last`, the last scheduled backup's request, or after `since`, when
 * the deployment was made), or when the next one falls.
 */
export function scheduleStep(pattern: string, last: number | undefined, since: number, now: number): ScheduleStep {
  const cron = new Cron(pattern, { paused: true, timezone: 'UTC' });
  const from = last === undefined ? since : last + scheduleFloorMs - 1;
  const tick = cron.nextRun(new Date(from));
  if (!tick) return { never: true };
  return tick.getTime() <= now ? { due: tick } : { next: tick };
}

/** The DatabaseBackup a tick asks for: named after the deployment and the tick (to the second). */
export function renderScheduledBackup(owner: { name: string; namespace: string; uid: string }, tick: Date, now: Date): DatabaseBackup {
  const stamp = tick.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15).toLowerCase();
  return databaseBackupFor(owner, { name: boundedName(dnsLabelBase(owner.name), `-${stamp}`) }, { reason: 'scheduled' }, now);
}

/** Whether a scheduled backup's record has outlived its files (kept 14 days in the bucket). */
export function scheduledRecordExpired(requestedAt: number, now: number): boolean {
  return now - requestedAt > scheduledBackupRecordDays * 86_400_000;
}

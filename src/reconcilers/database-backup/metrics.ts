// What a platform team monitors of its databases' backups: when each deployment's newest backup
// completed (read from the cache at each scrape, so it holds nothing of its own), and how many backups
// ended each way. The chart's alert BerthDatabaseBackupStale reads the first (api/metrics-views.ts).
import { Counter, Gauge, type Registry } from 'prom-client';
import { databaseBackupMetricNames, type DatabaseBackup } from '../../api/index.ts';
import type { DeepReadonly, Informer } from '../../runtime/index.ts';

export interface BackupMetrics {
  /** Counts a backup that just ended, Completed or Failed. */
  ended(phase: 'Completed' | 'Failed'): void;
}

export function registerBackupMetrics(registry: Registry, backups: Informer<DatabaseBackup>): BackupMetrics {
  const registers = [registry];
  new Gauge({
    name: databaseBackupMetricNames.lastCompleted,
    help: "When each deployment's newest completed database backup ended (Unix seconds).",
    labelNames: ['namespace', 'deployment'],
    registers,
    collect() {
      this.reset();
      for (const [key, seconds] of newestCompleted(backups.list())) {
        const [namespace, deployment] = key.split('/') as [string, string];
        this.set({ namespace, deployment }, seconds);
      }
    },
  });
  const ended = new Counter({
    name: databaseBackupMetricNames.ended,
    help: 'Database backups that ended, by phase (Completed, Failed).',
    labelNames: ['phase'],
    registers,
  });
  return { ended: (phase) => ended.inc({ phase }) };
}

/** The newest completed backup's end per `<namespace>/<deployment>`, in Unix seconds. Pure. */
export function newestCompleted(backups: readonly DeepReadonly<DatabaseBackup>[]): Map<string, number> {
  const newest = new Map<string, number>();
  for (const backup of backups) {
    if (backup.status?.phase !== 'Completed') continue;
    const seconds = Date.parse(backup.status.stoppedAt ?? '') / 1000;
    if (Number.isNaN(seconds)) continue;
    const key = `${backup.metadata?.namespace}/${backup.spec.deploymentName}`;
    if (seconds > (newest.get(key) ?? 0)) newest.set(key, seconds);
  }
  return newest;
}

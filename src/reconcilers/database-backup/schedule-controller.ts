// Scheduled backups: one pass per Deployment whose database Berth can back up (CloudNativePG, a backup
// store) deletes the records of scheduled backups whose files are gone, asks for the DatabaseBackup of a
// due tick (schedule.ts), and looks again at the next tick.
import {
  backupRequestedAt,
  cronAccepts,
  databaseBackupKind,
  type DatabaseBackup,
  type DatabaseEngine,
  type Deployment,
} from '../../api/index.ts';
import {
  deleteObject,
  unlessStatusOnly,
  type Controller,
  type DeepReadonly,
  type EventRecorder,
  type Informer,
  type Manager,
  type ReconcileResult,
} from '../../runtime/index.ts';
import { databaseBacksUp } from '../deployment/database.ts';
import type { DeploymentInformers } from '../deployment/informers.ts';
import { createDeploymentWriter, type DeploymentWriter } from '../deployment/writer.ts';
import { backupScheduleOf, renderScheduledBackup, scheduledRecordExpired, scheduleStep } from './schedule.ts';

export interface BackupScheduleOptions {
  /** The installation's schedule where a deployment names none (--backup-schedule); off or undefined: none. */
  schedule: string | undefined;
  databaseEngine: DatabaseEngine;
  now?: () => Date;
}

/** Needs the caches of a cluster that serves CloudNativePG's and the plugin's kinds (informers.databaseBackups). */
export function registerBackupScheduleController(
  manager: Manager,
  informers: DeploymentInformers & { databaseBackups: Informer<DatabaseBackup> },
  options: BackupScheduleOptions,
): Controller<Deployment> {
  const writer = createDeploymentWriter(manager.kubeConfig);
  const now = options.now ?? (() => new Date());
  return manager.addController({
    name: 'backup-schedule',
    informer: informers.deployments,
    changed: unlessStatusOnly,
    reconcile: async ({ namespace, name }, { recorder }) => {
      const deployment = informers.deployments.get(namespace, name);
      if (!deployment || deployment.metadata.deletionTimestamp || !databaseBacksUp(informers, options.databaseEngine, deployment)) return;
      const at = now();
      const scheduled = informers.databaseBackups
        .byIndex('owner', deployment.metadata.uid!)
        .filter((backup) => backup.spec.reason === 'scheduled');
      for (const backup of scheduled)
        if (scheduledRecordExpired(backupRequestedAt(backup), at.getTime()))
          await deleteObject(manager.kubeConfig, databaseBackupKind, { namespace, name: backup.metadata.name! });
      const schedule = backupScheduleOf(deployment.spec.sourceConfig?.backups?.schedule, options.schedule);
      if (!schedule) return;
      if (!cronAccepts(schedule)) {
        recorder.event(deployment, 'Warning', 'BackupScheduleInvalid', `No scheduled backups: croner cannot read "${schedule}".`);
        return;
      }
      const last = scheduled.length > 0 ? Math.max(...scheduled.map(backupRequestedAt)) : undefined;
      return takeDue({ writer, recorder }, deployment, schedule, last, at);
    },
  });
}

/** Asks for the backup of a due tick, and says when to look again. */
async function takeDue(
  io: { writer: DeploymentWriter; recorder: EventRecorder },
  deployment: DeepReadonly<Deployment>,
  schedule: string,
  last: number | undefined,
  at: Date,
): Promise<ReconcileResult | void> {
  const step = scheduleStep(schedule, last, Date.parse(String(deployment.metadata.creationTimestamp)), at.getTime());
  if ('never' in step) return;
  if ('next' in step) return { requeueAfter: step.next.getTime() - at.getTime() };
  const { name, namespace, uid } = deployment.metadata;
  const { created } = await io.writer.createOrGet(renderScheduledBackup({ name: name!, namespace: namespace!, uid: uid! }, step.due, at));
  if (created)
    io.recorder.event(deployment, 'Normal', 'BackupScheduled', `Backing up the database, as scheduled for ${step.due.toISOString()}.`);
  // The next tick counts from this request, which the cache may not hold yet.
  const next = scheduleStep(schedule, at.getTime(), 0, at.getTime());
  return 'next' in next ? { requeueAfter: next.next.getTime() - at.getTime() } : undefined;
}

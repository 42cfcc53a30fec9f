// What a Deployment says when it is rolled back (spec.revisionName pins an older revision) past a
// revision that migrated its database: the backup taken before that migration, and how to restore it.
// Berth never restores by itself (docs/data.md §2.6): a restore is a request of its own. Pure.
import { firstMigrationAfter, type ConditionDecision } from '../../../api/index.ts';
import type { RevisionRecord } from '../revisions/revision-records.ts';

export const rollbackCrossesMigrationCondition = 'RollbackCrossesMigration';

/** A DatabaseBackup as the condition needs it. */
export interface BackupOnRecord {
  uid: string;
  phase: string | undefined;
  /** Where its files are: the server name and CloudNativePG's backup id (status). */
  serverName?: string;
  backupId?: string;
}

/** The serving database, when a restore made it: its Cluster, when it was made, and the backup it was
 * recovered from. */
export interface RestoredDatabase {
  cluster: string;
  createdAt: string;
  serverName: string;
  backupId: string;
}

/** The condition as the Deployment's status has it. */
export interface ConditionOnRecord {
  status: string;
  lastTransitionTime?: string;
}

/** Whether the restore came after the rollback crossed the migration (a restore before it, made while
 * a migrating revision served, may have been migrated again), or counted at an earlier pass. */
function restoredSinceCrossing(restored: RestoredDatabase, previous: ConditionOnRecord | undefined): boolean {
  if (!previous) return false;
  if (previous.status === 'False') return true;
  return Date.parse(restored.createdAt) >= Date.parse(previous.lastTransitionTime ?? '');
}

/**
 * The condition for a rollback to `target` past a revision made after it that migrated the database (it
 * names a before-revision backup in status.backupName): the first such, whose backup holds the data from
 * before every one of those migrations. When that backup did not complete, no backup does: the condition
 * says so rather than offer a later one. Once the serving database is that backup restored, by a
 * restore made since the rollback crossed the migration (`previous`, the condition as recorded), the
 * condition turns False: the data is from before the migration. Undefined when the rollback crosses no
 * migration.
 */
export function rollbackCrossing(
  target: RevisionRecord,
  all: readonly RevisionRecord[],
  backupOf: (name: string) => BackupOnRecord | undefined,
  deploymentUid: string,
  restored?: RestoredDatabase,
  previous?: ConditionOnRecord,
): ConditionDecision | undefined {
  const withBackups = (revision: RevisionRecord) => ({ ...revision, backupName: revision.object.status?.backupName });
  const first = firstMigrationAfter(withBackups(target), all.map(withBackups));
  if (!first) return undefined;
  const name = first.backupName!;
  const backup = backupOf(name);
  const crossed = `Revision ${target.name} is older than ${first.name}, which migrates the database: the database may hold ${first.name}'s schema.`;
  if (backup?.phase !== 'Completed')
    return {
      type: rollbackCrossesMigrationCondition,
      status: 'True',
      reason: 'NoBackupBeforeMigration',
      message: `${crossed} Its backup, DatabaseBackup ${name}, did not complete: no backup holds the data from before it.`,
    };
  if (
    restored &&
    restored.backupId === backup.backupId &&
    restored.serverName === backup.serverName &&
    restoredSinceCrossing(restored, previous)
  )
    return {
      type: rollbackCrossesMigrationCondition,
      status: 'False',
      reason: 'RestoredBeforeMigration',
      message: `The database (Cluster ${restored.cluster}) is DatabaseBackup ${name} restored, taken before ${first.name} migrated it: it holds the data from before that migration.`,
    };
  return {
    type: rollbackCrossesMigrationCondition,
    status: 'True',
    reason: 'MigrationAfterTarget',
    message:
      `${crossed} Berth does not restore by itself; to serve the data as it was before that migration, restore DatabaseBackup ${name}, taken before it ` +
      `(POST /v2/deployments/${deploymentUid}/backups/${backup.uid}/restore, or a DatabaseRestore with backupName ${name}).`,
  };
}

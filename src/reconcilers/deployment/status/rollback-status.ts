// What a Deployment says when it is rolled back (spec.revisionName pins an older revision) past a
// revision that migrated its database: the backup taken before that migration, and how to restore it.
// Berth never restores by itself (docs/data.md §2.6): a restore is a request of its own. Pure.
import type { ConditionDecision } from '../../../api/index.ts';
import type { RevisionRecord } from '../revisions/revision-records.ts';

export const rollbackCrossesMigrationCondition = 'RollbackCrossesMigration';

/** A DatabaseBackup as the condition needs it. */
export interface BackupOnRecord {
  uid: string;
  phase: string | undefined;
}

/** Whether `revision` was made after `target`: a later spec, or the same spec's later build. */
function madeAfter(revision: RevisionRecord, target: RevisionRecord): boolean {
  if (revision.generation !== target.generation) return revision.generation > target.generation;
  return revision.creationTimestamp > target.creationTimestamp;
}

/**
 * The condition for a rollback to `target` when a revision made after it migrated the database behind a
 * completed backup (its status.backupName): the first such, as its backup holds the data before any of
 * those migrations. Undefined when the rollback crosses none.
 */
export function rollbackCrossing(
  target: RevisionRecord,
  all: readonly RevisionRecord[],
  backupOf: (name: string) => BackupOnRecord | undefined,
  deploymentUid: string,
): ConditionDecision | undefined {
  const crossed = all
    .filter((revision) => madeAfter(revision, target) && revision.object.status?.backupName)
    .sort((a, b) => (madeAfter(a, b) ? 1 : -1))
    .map((revision) => ({ revision, name: revision.object.status!.backupName!, backup: backupOf(revision.object.status!.backupName!) }))
    .find(({ backup }) => backup?.phase === 'Completed');
  if (!crossed) return undefined;
  const { revision, name, backup } = crossed;
  return {
    type: rollbackCrossesMigrationCondition,
    status: 'True',
    reason: 'MigrationAfterTarget',
    message:
      `Revision ${target.name} is older than ${revision.name}, which migrated the database after DatabaseBackup ${name} was taken: ` +
      `the database may hold ${revision.name}'s schema. Berth does not restore by itself; to serve the data as it was before that migration, ` +
      `restore that backup (POST /v2/deployments/${deploymentUid}/backups/${backup!.uid}/restore, or a DatabaseRestore with backupName ${name}).`,
  };
}

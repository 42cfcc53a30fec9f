// Which migration a rollback crosses: the first revision made after the one pinned that took a backup
// before it migrated the database (status.backupName). That backup holds the data from before every
// migration since the target. One rule for the Deployment's RollbackCrossesMigration condition and the
// redeploy answer's `crosses_migration`. Pure.

/** A revision as the rule reads it: its name, the spec generation it was made at, when, and the backup
 * taken before it migrated, if it did. */
export interface RevisionInOrder {
  name: string;
  generation: number;
  creationTimestamp: string;
  backupName?: string | undefined;
}

/** Whether `revision` was made after `other`: a later spec, or the same spec's later build. */
export function madeAfter(revision: RevisionInOrder, other: RevisionInOrder): boolean {
  if (revision.generation !== other.generation) return revision.generation > other.generation;
  return revision.creationTimestamp > other.creationTimestamp;
}

/** The first revision after `target` that migrated the database (it names a before-revision backup);
 * undefined when a rollback to `target` crosses no migration. */
export function firstMigrationAfter<T extends RevisionInOrder>(target: T, all: readonly T[]): T | undefined {
  return all.filter((revision) => revision.backupName && madeAfter(revision, target)).sort((a, b) => (madeAfter(a, b) ? 1 : -1))[0];
}

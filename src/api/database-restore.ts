// DatabaseRestore: a Deployment's database brought back from one of its DatabaseBackups, asked for once
// (kubectl, the HTTP API). Berth restores into a new CloudNativePG Cluster beside the serving one, and
// switches the Deployment to it only once it serves; the database it retired stays, hibernated, until the
// DatabaseRestore is deleted (docs/data.md §2.4).
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import { observedGenerationSchema, type KindObject } from './common.ts';
import { apiVersion, type KindDescriptor } from './group.ts';
import { askedUnder } from './database-backup.ts';

export const databaseRestoreSpecSchema = z
  .object({
    deploymentName: z.string().min(1).max(253).describe('Name of the Deployment, in the same namespace, whose database is restored.'),
    backupName: z
      .string()
      .min(1)
      .max(253)
      .describe('The DatabaseBackup to restore, of the same Deployment and Completed: the database as it was when that backup ended.'),
    backupFirst: z
      .boolean()
      .default(true)
      .describe(
        'Whether the serving database is backed up first (a DatabaseBackup, reason before-restore, named in the status), so the restore can itself be undone. ' +
          'A database that does not serve has nothing to back up, and is restored without one.',
      ),
    targetTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        'A point in time (RFC 3339) to restore to, a second or more after the backup ended: the backup, then the archive of its database replayed up to the first transaction after that time. ' +
          'Unset: the database as the backup ended. A time with no transaction after it in the archive (its newest segment is shipped when full or within 5 minutes) fails the restore, and the deployment stays on its database.',
      ),
  })
  .describe('Which database to restore, and from which backup. Immutable: a restore happens once; make a new DatabaseRestore for another.')
  .meta({
    'x-kubernetes-validations': [
      { rule: 'self == oldSelf', message: 'spec is immutable: a restore happens once, make a new DatabaseRestore' },
    ],
  });
export type DatabaseRestoreSpec = z.infer<typeof databaseRestoreSpecSchema>;

/** Why a restore to `targetTime` from a backup that ended at `backupEnded` cannot be: the time is ahead of
 * `now`, or not past the backup's end, which is recorded to the second (an earlier backup reaches it).
 * Undefined when it can. Pure. */
export function targetTimeProblem(targetTime: string, backupEnded: string | undefined, now: Date): string | undefined {
  const target = Date.parse(targetTime);
  if (target > now.getTime()) return `The point in time to restore to, ${targetTime}, has not come yet.`;
  if (backupEnded && target < Date.parse(backupEnded) + 1000)
    return `The point in time to restore to, ${targetTime}, is not a second past the backup's end (${backupEnded}): restore an earlier backup to reach it, or choose a later time.`;
  return undefined;
}

/** On the Cluster a restore retired: the restore's uid (the one it made carries restoredByLabel). */
export const retiredByLabel = 'berth.dev/retired-by';

export const databaseRestorePhases = ['Pending', 'BackingUp', 'Restoring', 'Completed', 'Failed'] as const;
export type DatabaseRestorePhase = (typeof databaseRestorePhases)[number];

/** The phases a restore ends in: nothing about it changes after them. */
export const settledRestorePhases: ReadonlySet<DatabaseRestorePhase> = new Set(['Completed', 'Failed']);

export const databaseRestoreStatusSchema = z
  .object({
    phase: z
      .enum(databaseRestorePhases)
      .optional()
      .describe(`Where the restore is: ${databaseRestorePhases.join(', ')}.`),
    backupBeforeName: z.string().max(253).optional().describe('The DatabaseBackup of the serving database taken before the restore.'),
    databaseName: z.string().max(253).optional().describe('The CloudNativePG Cluster the backup is restored into.'),
    retiredDatabaseName: z
      .string()
      .max(253)
      .optional()
      .describe('The Cluster that served before the switch: hibernated, its volume kept until this DatabaseRestore is deleted.'),
    switchedAt: z.string().max(64).optional().describe('When the Deployment was switched to the restored database.'),
    message: z.string().max(32768).optional().describe('Why the restore waits or failed.'),
    observedGeneration: observedGenerationSchema.optional(),
    conditions: conditionsSchema.optional(),
  })
  .describe('Observed state of the DatabaseRestore, written by the controller.');
export type DatabaseRestoreStatus = z.infer<typeof databaseRestoreStatusSchema>;

export type DatabaseRestore = KindObject<'DatabaseRestore', DatabaseRestoreSpec, DatabaseRestoreStatus>;

export const databaseRestoreKind = {
  kind: 'DatabaseRestore',
  plural: 'databaserestores',
  singular: 'databaserestore',
  shortNames: ['dbrestore'],
  apiVersion,
} as const satisfies KindDescriptor;

/** A DatabaseRestore Berth makes for the HTTP API: listed under its Deployment (label and ownerReference)
 * and stamped with when it was asked for. */
export function databaseRestoreFor(
  deployment: { name: string; namespace: string; uid: string },
  spec: Omit<DatabaseRestoreSpec, 'deploymentName'>,
  now: Date,
): DatabaseRestore {
  return {
    apiVersion,
    kind: databaseRestoreKind.kind,
    metadata: { generateName: `${deployment.name}-restore-`, ...askedUnder(deployment, now) },
    spec: { deploymentName: deployment.name, ...spec },
  };
}

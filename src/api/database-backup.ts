// DatabaseBackup: one backup of a Deployment's database, asked for once (kubectl, the HTTP API, later a
// schedule or a revision's rollout). Berth takes it as one CloudNativePG Backup into the organization's
// bucket and copies what that Backup reports. Not `Backup`: `kubectl get backups` would meet CNPG's kind.
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import { observedGenerationSchema, type KindObject } from './common.ts';
import { deploymentLabelValue } from './child-names.ts';
import { apiVersion, labels, type KindDescriptor } from './group.ts';

export const databaseBackupReasons = ['manual', 'scheduled', 'before-revision', 'before-restore', 'before-preview'] as const;
export type DatabaseBackupReason = (typeof databaseBackupReasons)[number];

export const databaseBackupSpecSchema = z
  .object({
    deploymentName: z.string().min(1).max(253).describe('Name of the Deployment, in the same namespace, whose database is backed up.'),
    reason: z
      .enum(databaseBackupReasons)
      .default('manual')
      .describe(`Why the backup is taken: ${databaseBackupReasons.join(', ')}.`),
    revisionName: z.string().min(1).max(253).optional().describe('The Revision the backup was taken before (reason before-revision).'),
  })
  .describe('Which database to back up, and why. Immutable: a backup is taken once; make a new DatabaseBackup for another.')
  .meta({
    'x-kubernetes-validations': [
      { rule: 'self == oldSelf', message: 'spec is immutable: a backup is taken once, make a new DatabaseBackup' },
    ],
  });
export type DatabaseBackupSpec = z.infer<typeof databaseBackupSpecSchema>;

/**
 * When Berth asked for the backup (RFC 3339 with milliseconds), on those it makes: lists order by it, as
 * a creationTimestamp counts whole seconds and two backups asked for in one second would tie.
 */
export const backupRequestedAtAnnotation = 'berth.dev/requested-at';

/** When the backup was asked for, in milliseconds: Berth's annotation, else when the object was made. */
export function backupRequestedAt(backup: {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>>; readonly creationTimestamp?: unknown } | undefined;
}): number {
  const asked = Date.parse(backup.metadata?.annotations?.[backupRequestedAtAnnotation] ?? '');
  if (!Number.isNaN(asked)) return asked;
  const created = backup.metadata?.creationTimestamp;
  return created instanceof Date ? created.getTime() : Date.parse(String(created ?? '')) || 0;
}

/** Berth's metrics of backups (reconcilers/database-backup/metrics.ts), which the chart's alert reads. */
export const databaseBackupMetricNames = {
  lastCompleted: 'berth_database_backup_last_completed_timestamp_seconds',
  ended: 'berth_database_backups_ended_total',
} as const;

/** How old a deployment's newest completed backup may be before the chart's alert fires. */
export const backupStaleAfterHours = 48;

export const databaseBackupPhases = ['Pending', 'Running', 'Completed', 'Failed'] as const;
export type DatabaseBackupPhase = (typeof databaseBackupPhases)[number];

/** The phases a backup ends in: nothing about it changes after them. */
export const settledBackupPhases: ReadonlySet<DatabaseBackupPhase> = new Set(['Completed', 'Failed']);

const lsnSchema = z.string().max(32);
const timeSchema = z.string().max(64);

export const databaseBackupStatusSchema = z
  .object({
    phase: z
      .enum(databaseBackupPhases)
      .optional()
      .describe(`Where the backup is: ${databaseBackupPhases.join(', ')}.`),
    databaseName: z.string().max(253).optional().describe("The CloudNativePG Cluster backed up (the Deployment's database)."),
    serverName: z.string().max(253).optional().describe("The folder of the bucket the backup lands in: the Deployment's uid."),
    backupId: z.string().max(128).optional().describe("The backup's id in the bucket, as CloudNativePG reports it."),
    startedAt: timeSchema.optional().describe('When the backup began.'),
    stoppedAt: timeSchema.optional().describe('When it ended.'),
    beginLSN: lsnSchema.optional().describe('The write-ahead log position the backup begins at.'),
    endLSN: lsnSchema.optional().describe('The position it ends at: a restore from it has everything written before.'),
    message: z.string().max(32768).optional().describe('Why the backup waits or failed.'),
    observedGeneration: observedGenerationSchema.optional(),
    conditions: conditionsSchema.optional(),
  })
  .describe('Observed state of the DatabaseBackup, written by the controller.');
export type DatabaseBackupStatus = z.infer<typeof databaseBackupStatusSchema>;

export type DatabaseBackup = KindObject<'DatabaseBackup', DatabaseBackupSpec, DatabaseBackupStatus>;

export const databaseBackupKind = {
  kind: 'DatabaseBackup',
  plural: 'databasebackups',
  singular: 'databasebackup',
  shortNames: ['dbbackup'],
  apiVersion,
} as const satisfies KindDescriptor;

/** The metadata of what Berth asks for on a Deployment's behalf (a DatabaseBackup, a DatabaseRestore):
 * listed under it (label and ownerReference) and stamped with when it was asked for. */
export function askedUnder(deployment: { name: string; namespace: string; uid: string }, now: Date) {
  return {
    namespace: deployment.namespace,
    labels: { [labels.deployment]: deploymentLabelValue(deployment.name) },
    annotations: { [backupRequestedAtAnnotation]: now.toISOString() },
    ownerReferences: [{ apiVersion, kind: 'Deployment', name: deployment.name, uid: deployment.uid }],
  };
}

/**
 * A DatabaseBackup Berth asks for (the HTTP API, a schedule's tick, a revision's gate): listed under its
 * Deployment (label and ownerReference) and stamped with when it was asked for. `naming` is its name, or
 * the prefix the API server completes.
 */
export function databaseBackupFor(
  deployment: { name: string; namespace: string; uid: string },
  naming: { name: string } | { generateName: string },
  spec: Omit<DatabaseBackupSpec, 'deploymentName'>,
  now: Date,
): DatabaseBackup {
  return {
    apiVersion,
    kind: databaseBackupKind.kind,
    metadata: { ...naming, ...askedUnder(deployment, now) },
    spec: { deploymentName: deployment.name, ...spec },
  };
}

/** What newestCompletedBackup reads of a backup. */
interface RestorableFacts {
  readonly metadata?: { readonly ownerReferences?: readonly { readonly uid: string }[] | undefined } | undefined;
  readonly spec: { readonly deploymentName: string };
  readonly status?:
    { readonly phase?: string; readonly serverName?: string; readonly backupId?: string; readonly stoppedAt?: string } | undefined;
}

/** The newest completed backup of a Deployment (by name, and by uid where it owns it) that can be
 * restored from (its server name and id reported), or undefined. Pure. */
export function newestCompletedBackup<T extends RestorableFacts>(
  backups: readonly T[],
  deployment: { name: string; uid: string },
): T | undefined {
  const restorable = backups.filter(
    (backup) =>
      backup.spec.deploymentName === deployment.name &&
      backup.status?.phase === 'Completed' &&
      backup.status.serverName &&
      backup.status.backupId &&
      backup.metadata?.ownerReferences?.some((reference) => reference.uid === deployment.uid),
  );
  const endOf = (backup: T) => Date.parse(backup.status?.stoppedAt ?? '') || 0;
  return restorable.reduce<T | undefined>((newest, backup) => (!newest || endOf(backup) > endOf(newest) ? backup : newest), undefined);
}

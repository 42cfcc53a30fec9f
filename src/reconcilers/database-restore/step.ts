// What a DatabaseRestore does next: wait, refuse, take the backup before it, make the Cluster it restores
// into, give up on one that failed, switch the Deployment to it, or retire the database it replaced.
// Pure: the controller gathers the facts from its caches and does the step (index.ts).
import type { DatabaseBackupPhase, DatabaseEngine } from '../../api/index.ts';

export interface RestoreFacts {
  deploymentName: string;
  /** The Deployment, when it exists and is not going. */
  deployment?: { external: boolean };
  engine: DatabaseEngine;
  /** The cluster serves CloudNativePG's Cluster and the plugin's ObjectStore. */
  backupsServed: boolean;
  /** The namespace has its organization's backup store (Secret berth-backups). */
  storeKept: boolean;
  /** The DatabaseBackup named in the spec, when it exists. */
  backup?: { name: string; deploymentName: string; phase: DatabaseBackupPhase; backupId?: string; serverName?: string };
  /** The Cluster that serves now, whether it does, and its room (a restore gets no less). */
  serving: { cluster: string; ready: boolean; storage?: string };
  /** The Cluster this restore restores into, and what of it exists: none, another's, or this restore's
   * (`ours` while it recovers, `failed`, `ready`). */
  target: { cluster: string; other: string; state: 'absent' | 'ours' | 'another' | 'failed' | 'ready'; message?: string; madeBy?: string };
  /** Back up the serving database first (spec.backupFirst), and that backup's phase once asked for. */
  backupFirst: boolean;
  before?: { name: string; phase: DatabaseBackupPhase; message?: string };
  /** An earlier restore of the same Deployment that has not ended. */
  earlierRestore?: string;
  /** Why the spec's point in time cannot be reached from the backup (targetTimeProblem), once it completed. */
  targetOutOfReach?: string;
}

export type RestoreStep =
  | { step: 'wait' | 'refuse'; reason: string; message: string }
  | { step: 'back-up' | 'restore' | 'switch' | 'retire' }
  | { step: 'await-backup'; name: string }
  | { step: 'await-restore'; message: string }
  | { step: 'abandon'; message: string };

export function restoreStep(facts: RestoreFacts): RestoreStep {
  const { target } = facts;
  // Once its Cluster is made, the restore goes on whatever became of its backup: it is ended by its
  // Cluster's fate, never left half-done by a refusal.
  if (facts.deployment && (target.state === 'ours' || target.state === 'ready' || target.state === 'failed')) return afterMade(facts);
  const refusal = unrestorable(facts);
  if (refusal) return refusal;
  if (facts.earlierRestore)
    return {
      step: 'wait',
      reason: 'AnotherRestoreRunning',
      message: `Waiting for DatabaseRestore ${facts.earlierRestore} of the same Deployment to end: restores happen one at a time.`,
    };
  if (target.state === 'another')
    return {
      step: 'wait',
      reason: 'RetiredDatabaseExists',
      message: `Cluster ${target.cluster}, the other of the deployment's two databases, still exists${target.madeBy ? ` (held by DatabaseRestore ${target.madeBy})` : ''}: delete that DatabaseRestore to delete it, and this restore goes on.`,
    };
  return beforeRestoring(facts);
}

/** The restore's Cluster exists: wait for it, give it up, switch to it, or retire the one it replaces. */
function afterMade({ target, serving }: RestoreFacts): RestoreStep {
  const switched = serving.cluster === target.cluster;
  if (target.state === 'failed' && !switched)
    return { step: 'abandon', message: target.message ?? `The restore into ${target.cluster} failed.` };
  if (target.state === 'ready') return switched ? { step: 'retire' } : { step: 'switch' };
  return { step: 'await-restore', message: target.message ?? `Restoring into ${target.cluster}.` };
}

/** Why this restore can never happen, or must wait for its Deployment or its backup. */
function unrestorable(facts: RestoreFacts): RestoreStep | undefined {
  const { deployment, deploymentName, backup } = facts;
  if (!deployment)
    return { step: 'wait', reason: 'DeploymentNotFound', message: `Deployment ${deploymentName} does not exist in this namespace.` };
  if (deployment.external)
    return {
      step: 'refuse',
      reason: 'ExternalDatabase',
      message: `Deployment ${deploymentName} uses its team's own Postgres (sourceConfig.externalDatabase): Berth restores only the databases it runs.`,
    };
  if (!facts.backupsServed || facts.engine !== 'cnpg')
    return {
      step: 'refuse',
      reason: 'RestoresNeedCloudNativePG',
      message: `Deployment ${deploymentName}'s database is not on CloudNativePG with a backup store: only those are restored.`,
    };
  if (!facts.storeKept)
    return { step: 'wait', reason: 'AwaitingBackupStore', message: 'This namespace has no backup store yet (Secret berth-backups).' };
  if (!backup) return { step: 'refuse', reason: 'BackupNotFound', message: 'The DatabaseBackup named in spec.backupName does not exist.' };
  if (backup.deploymentName !== deploymentName)
    return {
      step: 'refuse',
      reason: 'BackupOfAnotherDeployment',
      message: `DatabaseBackup ${backup.name} is of Deployment ${backup.deploymentName}, not ${deploymentName}.`,
    };
  if (backup.phase === 'Failed')
    return {
      step: 'refuse',
      reason: 'BackupFailed',
      message: `DatabaseBackup ${backup.name} failed: there is nothing to restore from it.`,
    };
  if (backup.phase !== 'Completed' || !backup.backupId || !backup.serverName)
    return { step: 'wait', reason: 'BackupRunning', message: `Waiting for DatabaseBackup ${backup.name} to complete.` };
  if (facts.targetOutOfReach) return { step: 'refuse', reason: 'TargetTimeOutOfReach', message: facts.targetOutOfReach };
  return undefined;
}

/** The backup of the serving database before it is replaced: taken where it serves, and waited for. */
function beforeRestoring(facts: RestoreFacts): RestoreStep {
  const { before } = facts;
  if (!facts.backupFirst) return { step: 'restore' };
  if (!before) return facts.serving.ready ? { step: 'back-up' } : { step: 'restore' };
  if (before.phase === 'Failed')
    return {
      step: 'refuse',
      reason: 'BackupBeforeRestoreFailed',
      message: `The backup of the serving database before the restore (DatabaseBackup ${before.name}) failed, and nothing was changed: ${before.message ?? 'see it'}. Make a new DatabaseRestore, with backupFirst false to restore without one.`,
    };
  if (before.phase !== 'Completed') return { step: 'await-backup', name: before.name };
  return { step: 'restore' };
}

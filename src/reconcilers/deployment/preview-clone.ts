// Where a preview's database begins (docs/data.md §2.7): a clone of its deployment's newest completed
// backup when the deployment asks it (previews.database clone), the installation lists its repository
// and the request is not a fork's; empty otherwise. A preview with no such backup yet asks for one
// (DatabaseBackup `<deployment>-previews`) and waits. Once its first Cluster is made, it keeps the
// bootstrap it was made with, whatever the deployment asks later.
import {
  boundedName,
  databaseBackupFor,
  newestCompletedBackup,
  previewCloneRefusal,
  type DatabaseBackup,
  type Deployment,
} from '../../api/index.ts';
import { childNames } from '../../api/child-names.ts';
import { optional, type DeepReadonly } from '../../runtime/index.ts';
import { databaseBacksUp, servingClusterStorage, servingDatabaseFor } from './database.ts';
import type { DatabaseEngine } from '../../api/database-engine.ts';
import type { Pass } from './pass.ts';
import type { Problem } from './problem.ts';
import type { OwnerDeployment } from './render/common.ts';
import { recoveryOfCluster, type RecoverySource } from './render/postgres-cluster.ts';

/** The backup a preview's first Cluster begins from; none for an empty one; or why it cannot begin yet. */
export async function previewDatabaseRecovery(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  engine: DatabaseEngine,
): Promise<{ recovery?: RecoverySource } | { problem: Problem }> {
  const previewOf = deployment.spec.previewOf;
  const { informers } = pass;
  if (!previewOf) return {};
  const names = childNames(owner.name);
  const made = informers.postgresClusters?.get(owner.namespace, names.postgresCluster);
  if (made) return optional('recovery', recoveryOfCluster(made));
  // A database made before (a restore's Cluster, a StatefulSet) is never made again from a backup.
  const serving = servingDatabaseFor(informers, owner);
  const spare = informers.postgresClusters?.get(owner.namespace, names.postgresClusterSpare);
  if (serving.restored || serving.cluster !== names.postgresCluster || spare || informers.statefulSets.get(owner.namespace, names.postgres))
    return {};
  const parent = informers.deployments.get(owner.namespace, previewOf.deploymentName);
  // Only the deployment that made the preview (its owner) lends it its data; never to a fork's request.
  const owned = parent && deployment.metadata.ownerReferences?.some((reference) => reference.uid === parent.metadata.uid);
  if (!owned || previewOf.fromFork || parent.spec.sourceConfig?.previews?.database !== 'clone') return {};
  return cloneOf(pass, deployment, parent, engine);
}

async function cloneOf(
  pass: Pass,
  preview: DeepReadonly<Deployment>,
  parent: DeepReadonly<Deployment>,
  engine: DatabaseEngine,
): Promise<{ recovery: RecoverySource } | { problem: Problem }> {
  const name = parent.metadata.name!;
  const refused = previewCloneRefusal(parent.spec.sourceConfig?.repoUrl ?? '', pass.options.previewDatabaseClone);
  if (refused)
    return { problem: { reason: 'PreviewCloneRefused', message: `Deployment ${name} asks previews.database clone, but ${refused}.` } };
  const backups = pass.informers.databaseBackups;
  if (engine !== 'cnpg' || !backups || !databaseBacksUp(pass.informers, pass.options.databaseEngine, parent))
    return {
      problem: {
        reason: 'PreviewCloneUnavailable',
        message: `Deployment ${name} asks previews.database clone, but its database is not backed up (that needs CloudNativePG and a backup store): set it to empty.`,
      },
    };
  const parentOwner = { name, namespace: parent.metadata.namespace!, uid: parent.metadata.uid! };
  const backup = newestCompletedBackup(backups.list(parentOwner.namespace), parentOwner);
  if (backup) {
    return {
      recovery: {
        objectStore: childNames(name).postgres,
        serverName: backup.status!.serverName!,
        backupId: backup.status!.backupId!,
        // A preview is small (dev_zero); its clone has the parent's room, or more if it asks.
        ...optional('storage', servingClusterStorage(pass.informers, parentOwner)),
      },
    };
  }
  return { problem: await awaitParentBackup(pass, preview, parentOwner) };
}

/** One backup per deployment its previews wait for: asked for once, then observed. */
async function awaitParentBackup(pass: Pass, preview: DeepReadonly<Deployment>, parent: OwnerDeployment): Promise<Problem> {
  const name = previewsBackupName(parent.name);
  let backup: DeepReadonly<DatabaseBackup> | undefined = pass.informers.databaseBackups?.get(parent.namespace, name);
  if (!backup) {
    const { object, created } = await pass.writer.createOrGet(
      databaseBackupFor(parent, { name }, { reason: 'before-preview' }, pass.options.now()),
    );
    backup = object;
    if (created)
      pass.context.recorder.event(
        preview,
        'Normal',
        'BackupStarted',
        `Backing up Deployment ${parent.name}'s database to clone it: DatabaseBackup ${name}.`,
      );
  }
  if (backup.status?.phase === 'Completed')
    // Completed, yet not one the deployment's newest restorable backups include: another's of that name.
    return {
      reason: 'ParentBackupUnusable',
      message: `DatabaseBackup ${name} is not a backup of this Deployment ${parent.name}'s database that a clone can begin from: delete it, and another is taken.`,
    };
  if (backup.status?.phase === 'Failed')
    return {
      reason: 'ParentBackupFailed',
      message: `DatabaseBackup ${name} of Deployment ${parent.name}, which this preview's database was to be cloned from, failed: ${backup.status.message ?? 'see its status'}. Delete it to try again.`,
    };
  return {
    reason: 'AwaitingParentBackup',
    message: `Waiting for DatabaseBackup ${name} of Deployment ${parent.name} to clone its database.`,
    awaited: true,
  };
}

/** The backup a deployment's previews wait for when it has none to clone. */
export function previewsBackupName(deploymentName: string): string {
  return boundedName(deploymentName, '-previews');
}

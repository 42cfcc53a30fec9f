// The DatabaseBackup controller: each DatabaseBackup is taken once, as one CloudNativePG Backup of its
// Deployment's database (cnpg-backup.ts), when that database serves and archives (target.ts); its status
// follows the Backup's until it is Completed or Failed, and then never changes. The DatabaseBackup is
// listed under its Deployment (an ownerReference, so it goes with it; the data stays in the bucket until
// the archive's retention ends).
import {
  apiVersion,
  childNames,
  databaseBackupKind,
  deploymentKind,
  fieldManager,
  settledBackupPhases,
  type DatabaseBackup,
  type DatabaseEngine,
  type Deployment,
} from '../../api/index.ts';
import {
  applyObject,
  owned,
  ownerKeys,
  unlessStatusOnly,
  watch,
  writeStatus,
  type Controller,
  type DeepReadonly,
  type EventRecorder,
  type KubeObject,
  type Manager,
  type ObjectKey,
} from '../../runtime/index.ts';
import { archiveStoreOf, databaseEngineFor, databaseServes, servingDatabaseFor } from '../deployment/database.ts';
import type { DeploymentInformers } from '../deployment/informers.ts';
import { cnpgBackupKind, renderCnpgBackup, takenFor, type BackupOwner, type CnpgBackup } from './cnpg-backup.ts';
import { registerBackupMetrics } from './metrics.ts';
import { nextDatabaseBackupStatus } from './status.ts';
import { backupTarget, type BackupTarget } from './target.ts';

export interface DatabaseBackupControllerOptions {
  namespaces?: string[];
  /** The installation's engine for databases not made yet (--database-engine). */
  databaseEngine: DatabaseEngine;
  now?: () => Date;
}

/** DatabaseBackups by the Deployment they name (`<namespace>/<name>`). */
const byDeployment = 'berth.dev/backup-of';

export function registerDatabaseBackupController(
  manager: Manager,
  informers: DeploymentInformers,
  options: DatabaseBackupControllerOptions,
): Controller<DatabaseBackup> {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const backups = manager.informer<DatabaseBackup>(databaseBackupKind, {
    ...scope,
    indexes: { [byDeployment]: (backup) => [`${backup.metadata?.namespace}/${backup.spec?.deploymentName}`] },
  });
  // CloudNativePG's Backups come with its Cluster, and Berth takes them through the plugin's ObjectStore.
  const taken = informers.objectStores ? manager.informer<CnpgBackup>(cnpgBackupKind, scope) : undefined;
  const now = options.now ?? (() => new Date());
  const metrics = registerBackupMetrics(manager.metrics.registry, backups);
  const waiting = (namespace: string, deploymentName: string): ObjectKey[] =>
    backups
      .byIndex(byDeployment, `${namespace}/${deploymentName}`)
      .filter((backup) => !settledBackupPhases.has(backup.status?.phase ?? 'Pending'))
      .map((backup) => ({ namespace, name: backup.metadata.name! }));
  const byOwner = (object: DeepReadonly<KubeObject>) =>
    ownerKeys(object, deploymentKind).flatMap((key) => waiting(key.namespace, key.name));
  /** Another backup of the same database that CloudNativePG is taking now. */
  const runningBefore = (backup: DeepReadonly<DatabaseBackup>): string | undefined =>
    backups.byIndex(byDeployment, `${backup.metadata.namespace}/${backup.spec.deploymentName}`).find((other) => {
      const otherName = other.metadata.name!;
      if (otherName === backup.metadata.name || settledBackupPhases.has(other.status?.phase ?? 'Pending')) return false;
      const made = taken?.get(other.metadata.namespace!, otherName);
      return made !== undefined && takenFor(made, { name: otherName, namespace: other.metadata.namespace!, uid: other.metadata.uid! });
    })?.metadata.name;

  return manager.addController({
    name: 'database-backup',
    informer: backups,
    changed: unlessStatusOnly,
    owns: taken ? [owned({ informer: taken })] : [],
    // One backup of a database at a time: one that ends or goes lets the next begin.
    concurrency: 1,
    watches: [
      watch({ informer: backups, map: (backup) => waiting(backup.metadata.namespace!, backup.spec.deploymentName) }),
      watch({ informer: informers.deployments, map: (deployment) => waiting(deployment.metadata.namespace!, deployment.metadata.name!) }),
      ...(informers.postgresClusters ? [watch({ informer: informers.postgresClusters, map: byOwner })] : []),
      ...(informers.objectStores ? [watch({ informer: informers.objectStores, map: byOwner })] : []),
    ],
    reconcile: async ({ namespace, name }, { recorder }) => {
      const backup = backups.get(namespace, name);
      if (!backup || backup.metadata.deletionTimestamp || settledBackupPhases.has(backup.status?.phase ?? 'Pending')) return;
      const deployment = informers.deployments.get(namespace, backup.spec.deploymentName);
      const live = deployment && !deployment.metadata.deletionTimestamp ? deployment : undefined;
      if (live) await listUnder(manager, databaseBackupKind, backup, live);
      const owner: BackupOwner = { name, namespace, uid: backup.metadata.uid! };
      let target = backupTarget(factsOf(informers, options.databaseEngine, backup.spec.deploymentName, namespace, live));
      const made = taken?.get(namespace, name);
      if (target.state === 'take' && made && !takenFor(made, owner)) target = nameTaken(name);
      const before = target.state === 'take' && !made ? runningBefore(backup) : undefined;
      if (before) target = queued(before);
      if (target.state === 'take' && !made)
        await applyObject(manager.kubeConfig, renderCnpgBackup(owner, target.databaseName), fieldManager);
      const next = nextDatabaseBackupStatus(backup.status, target, made?.status, backup.metadata.generation ?? 0, now());
      if (next === backup.status) return;
      await writeStatus<DatabaseBackup>(manager.kubeConfig, backup, next, fieldManager);
      announce(recorder, backup, next);
      if (next.phase === 'Completed' || next.phase === 'Failed') metrics.ended(next.phase);
    },
  });
}

function factsOf(
  informers: DeploymentInformers,
  configured: DatabaseEngine,
  deploymentName: string,
  namespace: string,
  deployment: DeepReadonly<Deployment> | undefined,
) {
  const owner = { name: deploymentName, namespace, uid: deployment?.metadata.uid ?? '' };
  const serving = servingDatabaseFor(informers, owner);
  const engine = databaseEngineFor(informers, configured, owner);
  const archived = informers.objectStores?.get(namespace, childNames(deploymentName).postgres) !== undefined;
  return {
    deploymentName,
    ...(deployment ? { deployment: { uid: owner.uid, external: !!deployment.spec.sourceConfig?.externalDatabase?.postgresUri } } : {}),
    engine,
    backupsServed: informers.objectStores !== undefined,
    storeKept: archiveStoreOf(informers, owner) !== undefined,
    databaseReady: archived && engine === 'cnpg' && databaseServes(informers, owner, engine),
    databaseName: serving.cluster,
    serverName: serving.serverName,
  };
}

function queued(running: string): BackupTarget {
  return {
    state: 'wait',
    reason: 'AnotherBackupRunning',
    message: `Waiting for DatabaseBackup ${running} of the same database to end: its backups are taken one at a time.`,
  };
}

function nameTaken(name: string): BackupTarget {
  return {
    state: 'refuse',
    reason: 'NameTaken',
    message: `A CloudNativePG Backup named ${name} exists and was not made for this DatabaseBackup: give the DatabaseBackup another name.`,
  };
}

/** A DatabaseBackup or DatabaseRestore lists under its Deployment and goes with it: an ownerReference, set once. */
export async function listUnder(
  manager: Manager,
  kind: { kind: string },
  object: DeepReadonly<KubeObject>,
  deployment: DeepReadonly<Deployment>,
): Promise<void> {
  const uid = deployment.metadata.uid!;
  if (object.metadata?.ownerReferences?.some((reference) => reference.uid === uid)) return;
  const reference = { apiVersion, kind: deploymentKind.kind, name: deployment.metadata.name!, uid };
  const metadata = { name: object.metadata!.name!, namespace: object.metadata!.namespace!, ownerReferences: [reference] };
  await applyObject(manager.kubeConfig, { apiVersion, kind: kind.kind, metadata }, fieldManager);
}

function announce(recorder: EventRecorder, backup: DeepReadonly<DatabaseBackup>, next: DatabaseBackup['status']): void {
  const before = backup.status?.phase;
  if (next?.phase === before) return;
  if (next?.phase === 'Completed') recorder.event(backup, 'Normal', 'BackupCompleted', `Backup of ${next.databaseName} completed.`);
  const ready = next?.conditions?.find((condition) => condition.type === 'Ready');
  if (next?.phase === 'Failed') recorder.event(backup, 'Warning', ready?.reason ?? 'BackupFailed', next.message ?? 'The backup failed.');
}

// The DatabaseRestore controller (docs/data.md §2.4): each DatabaseRestore restores its Deployment's
// database from one of its DatabaseBackups into the Cluster that does not serve (`<name>-db-1` and
// `-db-2` take turns), after a backup of the serving one, and switches the Deployment to it once it serves:
// one write of the password Secret's annotations (api/database-engine.ts), after which Berth's Service
// `<name>-postgres` and the archive follow the new Cluster. The Cluster it replaced is hibernated and kept
// until the DatabaseRestore is deleted; a restore that fails deletes what it made and changes nothing.
import type { V1Secret } from '@kubernetes/client-node';
import {
  backupStoreSecretName,
  childNames,
  databaseBackupFor,
  databaseClusterAnnotation,
  databaseRestoreKind,
  deploymentKind,
  restoredByLabel,
  retiredByLabel,
  settledRestorePhases,
  targetTimeProblem,
  type DatabaseBackup,
  type DatabaseEngine,
  type DatabaseRestore,
  type Deployment,
} from '../../api/index.ts';
import {
  applyObject,
  isKubeApiError,
  kubeRequest,
  optional,
  ownerKeys,
  unlessStatusOnly,
  watch,
  writeStatus,
  type Controller,
  type DeepReadonly,
  type EventRecorder,
  type Informer,
  type KubeObject,
  type Manager,
  type ObjectKey,
} from '../../runtime/index.ts';
import { boundedName, postgresClusterClaimName } from '../../api/child-names.ts';
import { fieldManager } from '../../api/index.ts';
import {
  archiveStoreOf,
  databaseEngineFor,
  databaseServes,
  otherClusterOf,
  servingClusterStorage,
  servingDatabaseFor,
  servingDatabaseOf,
  spareClusterOf,
} from '../deployment/database.ts';
import { childKinds, type DeploymentInformers } from '../deployment/informers.ts';
import { databaseArchiveOf } from '../deployment/render/database-archive.ts';
import {
  postgresClusterKind,
  postgresClusterReady,
  postgresClusterSettings,
  renderPostgresCluster,
} from '../deployment/render/postgres-cluster.ts';
import { createDeploymentWriter, type DeploymentWriter } from '../deployment/writer.ts';
import { listUnder } from '../database-backup/index.ts';
import { nextDatabaseRestoreStatus } from './status.ts';
import { restoreStep, type RestoreFacts, type RestoreStep } from './step.ts';

export interface DatabaseRestoreControllerOptions {
  namespaces?: string[];
  databaseEngine: DatabaseEngine;
  /** What the Deployment controller renders its Clusters with. */
  clusterSettings: { images: { cnpgPostgres?: string }; requestScale: number; cnpgStorageClass?: string };
  now?: () => Date;
}

/** Its own field manager: the Cluster's bootstrap is the restore's, which the Deployment's pass never applies. */
const restoreFieldManager = `${fieldManager}-database-restore`;
/** Held while the restore has a Cluster to delete when it goes: a half-made one, or the one it retired. */
const restoreFinalizer = 'berth.dev/restored-database';
const hibernationAnnotation = 'cnpg.io/hibernation';

const byDeployment = 'berth.dev/restore-of';

/** What the controller's steps read and write through. */
interface RestoreContext {
  manager: Manager;
  informers: DeploymentInformers;
  restores: Informer<DatabaseRestore>;
  options: DatabaseRestoreControllerOptions;
  writer: DeploymentWriter;
  now: () => Date;
}

function restoresOf({ restores }: RestoreContext, namespace: string, deploymentName: string): ObjectKey[] {
  return restores.byIndex(byDeployment, `${namespace}/${deploymentName}`).map((restore) => ({ namespace, name: restore.metadata.name! }));
}

function byOwnerDeployment(ctx: RestoreContext, object: DeepReadonly<KubeObject>): ObjectKey[] {
  return ownerKeys(object, deploymentKind).flatMap((key) => restoresOf(ctx, key.namespace, key.name));
}

export function registerDatabaseRestoreController(
  manager: Manager,
  informers: DeploymentInformers,
  options: DatabaseRestoreControllerOptions,
): Controller<DatabaseRestore> {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const restores = manager.informer<DatabaseRestore>(databaseRestoreKind, {
    ...scope,
    indexes: { [byDeployment]: (restore) => [`${restore.metadata?.namespace}/${restore.spec?.deploymentName}`] },
  });
  const ctx: RestoreContext = {
    manager,
    informers,
    restores,
    options,
    writer: createDeploymentWriter(manager.kubeConfig),
    now: options.now ?? (() => new Date()),
  };
  const ofDeployment = (namespace: string, deploymentName: string) => restoresOf(ctx, namespace, deploymentName);
  const byOwner = (object: DeepReadonly<KubeObject>) => byOwnerDeployment(ctx, object);

  return manager.addController({
    name: 'database-restore',
    informer: restores,
    changed: unlessStatusOnly,
    concurrency: 1,
    watches: [
      watch({ informer: restores, map: (restore) => ofDeployment(restore.metadata.namespace!, restore.spec.deploymentName) }),
      watch({
        informer: informers.deployments,
        map: (deployment) => ofDeployment(deployment.metadata.namespace!, deployment.metadata.name!),
      }),
      watch({
        informer: informers.secrets,
        // Its Deployment's password; and the organization's backup store, which restores may wait for.
        map: (secret) =>
          secret.metadata?.name === backupStoreSecretName
            ? restores
                .list(secret.metadata.namespace ?? '')
                .map((restore) => ({ namespace: restore.metadata.namespace!, name: restore.metadata.name! }))
            : byOwner(secret),
      }),
      watch({ informer: informers.jobs, map: (job) => byCluster(ctx, job.metadata?.labels?.['cnpg.io/cluster'], job.metadata?.namespace) }),
      ...(informers.postgresClusters ? [watch({ informer: informers.postgresClusters, map: byOwner })] : []),
      ...(informers.databaseBackups
        ? [
            watch({
              informer: informers.databaseBackups,
              map: (backup) => ofDeployment(backup.metadata.namespace!, backup.spec.deploymentName),
            }),
          ]
        : []),
    ],
    reconcile: async ({ namespace, name }, { recorder }) => {
      const restore = restores.get(namespace, name);
      if (!restore) return;
      if (restore.metadata.deletionTimestamp) return release(ctx, restore);
      if (settledRestorePhases.has(restore.status?.phase ?? 'Pending')) return;
      const deployment = liveDeployment(ctx, namespace, restore.spec.deploymentName);
      if (deployment) await listUnder(manager, databaseRestoreKind, restore, deployment);
      const facts = factsOf(ctx, restore, deployment);
      const done = await act(ctx, restore, deployment, facts, restoreStep(facts));
      const next = nextDatabaseRestoreStatus(restore.status, done, facts, restore.metadata.generation ?? 0, ctx.now());
      if (next === restore.status) return;
      await writeStatus<DatabaseRestore>(manager.kubeConfig, restore, next, fieldManager);
      announce(recorder, restore, next);
    },
  });
}

function byCluster(ctx: RestoreContext, cluster: string | undefined, namespace: string | undefined): ObjectKey[] {
  const { informers } = ctx;
  const owner = cluster && namespace ? informers.postgresClusters?.get(namespace, cluster) : undefined;
  return owner ? byOwnerDeployment(ctx, owner) : [];
}

function liveDeployment({ informers }: RestoreContext, namespace: string, deploymentName: string): DeepReadonly<Deployment> | undefined {
  const deployment = informers.deployments.get(namespace, deploymentName);
  return deployment && !deployment.metadata.deletionTimestamp ? deployment : undefined;
}

function factsOf(
  ctx: RestoreContext,
  restore: DeepReadonly<DatabaseRestore>,
  deployment: DeepReadonly<Deployment> | undefined,
): RestoreFacts {
  const { informers, restores, options } = ctx;
  const namespace = restore.metadata.namespace!;
  const { deploymentName } = restore.spec;
  const owner = { name: deploymentName, namespace, uid: deployment?.metadata.uid ?? '' };
  const serving = servingDatabaseFor(informers, owner);
  const engine = databaseEngineFor(informers, options.databaseEngine, owner);
  const backup = informers.databaseBackups?.get(namespace, restore.spec.backupName);
  const before = informers.databaseBackups?.get(namespace, beforeBackupName(restore));
  const earlier = restores
    .byIndex(byDeployment, `${namespace}/${deploymentName}`)
    .find(
      (other) =>
        other.metadata.uid !== restore.metadata.uid &&
        !settledRestorePhases.has(other.status?.phase ?? 'Pending') &&
        startedBefore(other, restore),
    );
  return {
    deploymentName,
    ...(deployment ? { deployment: { external: !!deployment.spec.sourceConfig?.externalDatabase?.postgresUri } } : {}),
    engine,
    backupsServed: informers.objectStores !== undefined && informers.postgresClusters !== undefined,
    storeKept: archiveStoreOf(informers, owner) !== undefined,
    ...(backup
      ? {
          backup: {
            name: backup.metadata.name!,
            deploymentName: backup.spec.deploymentName,
            phase: backup.status?.phase ?? 'Pending',
            ...(backup.status?.backupId ? { backupId: backup.status.backupId } : {}),
            ...(backup.status?.serverName ? { serverName: backup.status.serverName } : {}),
          },
        }
      : {}),
    serving: {
      cluster: serving.cluster,
      ready: engine === 'cnpg' && databaseServes(informers, owner, engine),
      ...optional('storage', servingClusterStorage(informers, owner)),
    },
    target: targetOf(ctx, restore, owner.name, restore.status?.databaseName ?? spareClusterOf(owner, serving)),
    backupFirst: restore.spec.backupFirst ?? true,
    ...(before
      ? {
          before: {
            name: before.metadata.name!,
            phase: before.status?.phase ?? 'Pending',
            ...(before.status?.message ? { message: before.status.message } : {}),
          },
        }
      : {}),
    ...(earlier ? { earlierRestore: earlier.metadata.name! } : {}),
    ...optional('targetOutOfReach', targetOutOfReach(restore, backup)),
  };
}

/** Why the restore's point in time is out of the backup's reach, once the backup completed. */
function targetOutOfReach(restore: DeepReadonly<DatabaseRestore>, backup: DeepReadonly<DatabaseBackup> | undefined): string | undefined {
  const { targetTime } = restore.spec;
  if (!targetTime || backup?.status?.phase !== 'Completed') return undefined;
  return targetTimeProblem(targetTime, backup.status.stoppedAt, new Date());
}

function targetOf(
  ctx: RestoreContext,
  restore: DeepReadonly<DatabaseRestore>,
  deploymentName: string,
  cluster: string,
): RestoreFacts['target'] {
  return { cluster, other: otherClusterOf(deploymentName, cluster), ...targetStateOf(ctx, restore, cluster) };
}

function targetStateOf(
  { informers, restores }: RestoreContext,
  restore: DeepReadonly<DatabaseRestore>,
  cluster: string,
): Pick<RestoreFacts['target'], 'state' | 'message' | 'madeBy'> {
  const namespace = restore.metadata.namespace!;
  const made = informers.postgresClusters?.get(namespace, cluster);
  if (!made) return { state: 'absent' };
  const labels = made.metadata?.labels ?? {};
  if (labels[restoredByLabel] !== restore.metadata.uid) {
    const madeBy = restores.list(namespace).find((other) => other.metadata.uid === labels[retiredByLabel])?.metadata.name;
    return { state: 'another', ...(madeBy ? { madeBy } : {}) };
  }
  if (postgresClusterReady(made)) return { state: 'ready' };
  const job = informers.jobs.get(namespace, `${cluster}-1-full-recovery`);
  const failed = job?.status?.conditions?.find((condition) => condition.type === 'Failed' && condition.status === 'True');
  if (failed)
    return {
      state: 'failed',
      message: `CloudNativePG's recovery job ${job?.metadata?.name} failed: ${failed.message ?? failed.reason ?? 'see its pods'}.`,
    };
  const ready = (made as { status?: { conditions?: { type?: string; message?: string }[] } }).status?.conditions?.find(
    (c) => c.type === 'Ready',
  );
  return { state: 'ours', message: `Restoring into ${cluster}${ready?.message ? `: ${ready.message}` : '.'}` };
}

/** Does the step; returns the step the status tells of (a switch done is a retirement). */
async function act(
  ctx: RestoreContext,
  restore: DeepReadonly<DatabaseRestore>,
  deployment: DeepReadonly<Deployment> | undefined,
  facts: RestoreFacts,
  step: RestoreStep,
): Promise<RestoreStep> {
  const { writer, options, manager, now } = ctx;
  const namespace = restore.metadata.namespace!;
  const owner = { name: restore.spec.deploymentName, namespace, uid: deployment?.metadata.uid ?? '' };
  if (step.step === 'back-up') {
    const name = beforeBackupName(restore);
    await writer.createOrGet(databaseBackupFor(owner, { name }, { reason: 'before-restore' }, now()));
    return { step: 'await-backup', name };
  }
  if (step.step === 'restore' && deployment) {
    // The volume of a Cluster of that name deleted a moment ago, which its operator would adopt.
    if (await claimExists(ctx, namespace, postgresClusterClaimName(facts.target.cluster)))
      return { step: 'wait', reason: 'VolumeGoing', message: `Waiting for the volume of the deleted ${facts.target.cluster} to go.` };
    await holdFinalizer(ctx, restore);
    const cluster = renderPostgresCluster({
      ...postgresClusterSettings(owner, deployment.spec, options.clusterSettings),
      cluster: facts.target.cluster,
      archive: databaseArchiveOf(owner, restore.metadata.uid!),
      recovery: {
        objectStore: childNames(owner.name).postgres,
        serverName: facts.backup!.serverName!,
        backupId: facts.backup!.backupId!,
        ...optional('targetTime', restore.spec.targetTime),
        ...optional('storage', facts.serving.storage),
      },
    });
    cluster.metadata = { ...cluster.metadata, labels: { ...cluster.metadata?.labels, [restoredByLabel]: restore.metadata.uid! } };
    try {
      await applyObject(manager.kubeConfig, cluster, restoreFieldManager);
    } catch (error) {
      // CloudNativePG's webhook refused the Cluster: the same one cannot do better later.
      if (!isKubeApiError(error, 422)) throw error;
      return { step: 'refuse', reason: 'RestoreRejected', message: `The Cluster to restore into was refused: ${error.message}` };
    }
    return { step: 'await-restore', message: `Restoring into ${facts.target.cluster}.` };
  }
  if (step.step === 'abandon') {
    await writer.delete(postgresClusterKind, namespace, facts.target.cluster);
    return step;
  }
  if (step.step === 'switch') {
    // The switch: one write, after which the Deployment's pass serves the new Cluster.
    const switched = await writer.patchMetadata(childKinds.secret, namespace, childNames(owner.name).postgresCredentials, {
      annotations: { [databaseClusterAnnotation]: facts.target.cluster },
    });
    if (!switched) return passwordMissing(owner.name);
    return retire(ctx, restore, namespace, facts.target.other);
  }
  if (step.step === 'retire') return retire(ctx, restore, namespace, facts.target.other);
  return step;
}

/** The Cluster that served before: hibernated (its pods go, its volume stays), and this restore's. */
async function retire(
  { informers, writer }: RestoreContext,
  restore: DeepReadonly<DatabaseRestore>,
  namespace: string,
  retired: string,
): Promise<RestoreStep> {
  const cluster = informers.postgresClusters?.get(namespace, retired);
  if (cluster && cluster.metadata?.labels?.[retiredByLabel] !== restore.metadata.uid) {
    await writer.patchMetadata(postgresClusterKind, namespace, retired, {
      labels: { [retiredByLabel]: restore.metadata.uid! },
      annotations: { [hibernationAnnotation]: 'on' },
    });
  }
  return { step: 'retire' };
}

async function holdFinalizer({ writer }: RestoreContext, restore: DeepReadonly<DatabaseRestore>): Promise<void> {
  const finalizers = restore.metadata.finalizers ?? [];
  if (!finalizers.includes(restoreFinalizer)) await writer.finalizers(databaseRestoreKind, restore, [...finalizers, restoreFinalizer]);
}

/** A DatabaseRestore that goes takes with it the Cluster it holds that does not serve: the one it
 * retired, or the one it was making. Which serves is read from the API server, not the cache: a switch
 * just written must not look undone. */
async function release(ctx: RestoreContext, restore: DeepReadonly<DatabaseRestore>): Promise<void> {
  const { writer, manager } = ctx;
  const finalizers = restore.metadata.finalizers ?? [];
  if (!finalizers.includes(restoreFinalizer)) return;
  const namespace = restore.metadata.namespace!;
  const owner = { name: restore.spec.deploymentName, namespace, uid: '' };
  const credentials = await kubeRequest<V1Secret>(manager.kubeConfig, {
    method: 'GET',
    path: `/api/v1/namespaces/${namespace}/secrets/${childNames(owner.name).postgresCredentials}`,
  }).catch((error: unknown) => {
    if (isKubeApiError(error, 404)) return undefined;
    throw error;
  });
  const serving = servingDatabaseOf(credentials, owner).cluster;
  const held = restore.status?.phase === 'Completed' ? restore.status.retiredDatabaseName : restore.status?.databaseName;
  if (held && held !== serving) await writer.delete(postgresClusterKind, namespace, held);
  await writer.finalizers(
    databaseRestoreKind,
    restore,
    finalizers.filter((finalizer) => finalizer !== restoreFinalizer),
  );
}

async function claimExists({ manager }: RestoreContext, namespace: string, name: string): Promise<boolean> {
  return kubeRequest(manager.kubeConfig, { method: 'GET', path: `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${name}` }).then(
    () => true,
    (error: unknown) => {
      if (isKubeApiError(error, 404)) return false;
      throw error;
    },
  );
}

function passwordMissing(deploymentName: string): RestoreStep {
  return {
    step: 'wait',
    reason: 'PasswordSecretMissing',
    message: `The database's password Secret of Deployment ${deploymentName} is missing: the switch waits for the Deployment to make it again.`,
  };
}

/** The backup of the serving database a restore takes first. */
export function beforeBackupName(restore: DeepReadonly<DatabaseRestore>): string {
  return boundedName(restore.metadata.name!, '-before', 253);
}

function startedBefore(other: DeepReadonly<DatabaseRestore>, restore: DeepReadonly<DatabaseRestore>): boolean {
  const time = (r: DeepReadonly<DatabaseRestore>) => Date.parse(String(r.metadata.creationTimestamp ?? '')) || 0;
  return time(other) < time(restore) || (time(other) === time(restore) && other.metadata.name! < restore.metadata.name!);
}

function announce(recorder: EventRecorder, restore: DeepReadonly<DatabaseRestore>, next: DatabaseRestore['status']): void {
  if (next?.phase === restore.status?.phase) return;
  const ready = next?.conditions?.find((condition) => condition.type === 'Ready');
  if (next?.phase === 'Completed')
    recorder.event(
      restore,
      'Normal',
      'Restored',
      `Deployment ${restore.spec.deploymentName} now serves ${next.databaseName}; ${next.retiredDatabaseName ?? 'the database before'} is kept, hibernated.`,
    );
  else if (next?.phase === 'Failed')
    recorder.event(restore, 'Warning', ready?.reason ?? 'RestoreFailed', next.message ?? 'The restore failed.');
  else if (next?.phase === 'Restoring') recorder.event(restore, 'Normal', 'Restoring', `Restoring into ${next.databaseName}.`);
}

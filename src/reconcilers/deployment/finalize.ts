// Deleting a Deployment: the finalizer berth.dev/cleanup holds the object (status AWAITING_DELETE)
// until every child Berth made is gone, so the status never claims a deletion that garbage collection
// has not done yet. The TracingProject stays: it has no ownerReference on purpose. So does the
// database's data unless the user chose to delete it (retained-data.ts).
import { deploymentKind, type Deployment } from '../../api/index.ts';
import type { DeepReadonly, Informer, KubeObject, ReconcileResult } from '../../runtime/index.ts';
import { childKinds, workloadInformers, type DeploymentInformers } from './informers.ts';
import { childNames } from '../../api/child-names.ts';
import { buildForDeploymentLabel } from '../../workloads/build-jobs.ts';
import type { DeploymentControllerOptions } from './options.ts';
import type { OwnerDeployment } from './render/common.ts';
import type { PassStatus } from './status/status-decision.ts';
import { releaseActivatorGrant } from './rollout/scale-to-zero.ts';
import { deletesData } from './render/postgres.ts';
import { databaseClaimName, databaseEngineOf, servingDatabaseOf } from './database.ts';
import { releaseDatabase } from './retained-data.ts';
import type { DeploymentWriter } from './writer.ts';
import { deleteRevision } from './revisions/delete-revision.ts';
import type { CachedRevision } from './revisions/revision-records.ts';
import { optional } from '../../runtime/index.ts';

export const cleanupFinalizer = 'berth.dev/cleanup';

/** A safety net: the delete events of the children normally bring the Deployment back sooner. */
const recheckAfterMs = 5_000;

/** Whether the Deployment still holds its children's clean-up: its deletion is Berth's to finish. */
export function awaitsCleanup(deployment: DeepReadonly<Deployment>): boolean {
  return (deployment.metadata.finalizers ?? []).includes(cleanupFinalizer);
}

/**
 * One pass of a deletion that awaits its clean-up (awaitsCleanup), once its status says so
 * (deletingStatus, written first): the children deleted, the finalizer removed once none is left.
 */
export async function finalizeDeployment(
  deps: { informers: DeploymentInformers; writer: DeploymentWriter; options: DeploymentControllerOptions },
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
): Promise<ReconcileResult | void> {
  const { informers, writer } = deps;
  const names = childNames(owner.name);
  const ownsItsOwn = (object: DeepReadonly<KubeObject> | undefined) =>
    object?.metadata?.ownerReferences?.some((reference) => reference.uid === owner.uid) === true;
  // Only this Deployment's own: one refused its names (NameTaken) must not take another's data with it.
  const credentials = informers.secrets.get(owner.namespace, names.postgresCredentials);
  const ownsPassword = ownsItsOwn(credentials);
  const serving = servingDatabaseOf(credentials, owner).cluster;
  const ownsDatabase =
    ownsPassword ||
    ownsItsOwn(informers.statefulSets.get(owner.namespace, names.postgres)) ||
    ownsItsOwn(informers.postgresClusters?.get(owner.namespace, serving));
  const engine = databaseEngineOf(credentials, deps.options.databaseEngine);
  const keepsData = !deletesData(deployment.spec);
  // Once: a released password is no longer this Deployment's.
  if (ownsPassword && keepsData) await releaseDatabase(writer, owner, engine, serving);
  const owned: Informer[] = [...workloadInformers(informers), informers.jobs, informers.secrets, informers.revisions];
  let remaining = 0;
  for (const informer of owned) {
    for (const object of informer.byIndex('owner', owner.uid)) {
      if (object.metadata?.namespace !== owner.namespace) continue;
      // Released above; the cache may not have seen it yet.
      if (keepsData && informer === informers.secrets && object.metadata.name === names.postgresCredentials) continue;
      remaining += 1;
      if (object.metadata.deletionTimestamp) continue;
      if (informer === informers.revisions) await deleteRevision(writer, object as CachedRevision);
      else await writer.delete(informer.resource, owner.namespace, object.metadata.name!);
    }
  }
  remaining += await deleteBuildsApart(deps, owner);
  if (ownsDatabase && !keepsData) {
    // The StatefulSet controller (retention policy Delete) or the garbage collector (a Cluster owns its
    // claim) would delete the claim; say it here too, so the data goes with the Deployment wherever that
    // is not running.
    await writer.delete(childKinds.persistentVolumeClaim, owner.namespace, databaseClaimName(owner, engine, serving));
  }
  if (remaining > 0) return { requeueAfter: recheckAfterMs };
  await releaseActivatorGrant(deps, owner);

  await writer.finalizers(
    deploymentKind,
    deployment,
    (deployment.metadata.finalizers ?? []).filter((f) => f !== cleanupFinalizer),
  );
}

/** AWAITING_DELETE, naming the revisions the status named before. */
export function deletingStatus(deployment: DeepReadonly<Deployment>): PassStatus {
  const status = deployment.status;
  return {
    deployment,
    observation: {
      deleting: true,
      database: 'none',
      scaledToZero: false,
      workloadsAvailable: false,
      workloadsRolledOut: false,
      targetIsActive: false,
    },
    facts: {
      ...(status?.latestRevisionName && status.latestRevisionId
        ? { latest: { name: status.latestRevisionName, uid: status.latestRevisionId } }
        : {}),
      ...(status?.activeRevisionName && status.activeRevisionId
        ? { active: { name: status.activeRevisionName, uid: status.activeRevisionId, ...optional('image', status.imageVersion) } }
        : {}),
    },
    revisionPhases: [],
  };
}

/** Build Jobs in the build namespace have no ownerReference to the Deployment: found by its uid's label.
 * Each build's Secret is the Job's, and goes with it. Returns how many are not gone yet. */
async function deleteBuildsApart(
  deps: { informers: DeploymentInformers; writer: DeploymentWriter; options: DeploymentControllerOptions },
  owner: OwnerDeployment,
): Promise<number> {
  const { buildNamespace } = deps.options;
  if (!buildNamespace || buildNamespace === owner.namespace) return 0;
  const jobs = deps.informers.jobs.list(buildNamespace).filter((job) => job.metadata?.labels?.[buildForDeploymentLabel] === owner.uid);
  for (const job of jobs) {
    if (!job.metadata?.deletionTimestamp) await deps.writer.delete(childKinds.job, buildNamespace, job.metadata?.name ?? '');
  }
  return jobs.length;
}

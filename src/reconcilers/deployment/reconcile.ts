// The Deployment reconcile loop: observe (caches), decide (pure modules), write only what differs.
//
//   spec ──digest──▶ latest Revision (created once, named by digest) ──pin?──▶ target Revision
//   target ──build Job (codehost)──▶ image ──render/──▶ workloads (applied when they differ)
//   rollout of the workloads ──▶ target DEPLOYED ──▶ activeRevision, status, conditions
//
// Each step is a module of its own: choose-revisions.ts (1, 2), target-image.ts (3), the workloads
// here (4), outcome.ts (5), pruning here (6). Every pass, a halted one too, ends with its status
// decided once (status-decision.ts) and written once (write-status.ts); a pass of a deletion writes
// its status (AWAITING_DELETE) the same way, before its deletes.
import { randomBytes } from 'node:crypto';
import { adoptDatabase, isRetainedPassword } from './retained-data.ts';
import { deploymentKind, idleSecondsOf, organizationShards, type Deployment } from '../../api/index.ts';
import { isKubeApiError, type DeepReadonly, type ReconcileContext, type ReconcileResult, optional } from '../../runtime/index.ts';
import { chooseRevisions, type Halt } from './revisions/choose-revisions.ts';
import { deleteRevision } from './revisions/delete-revision.ts';
import { upToDate, withAppliedHash } from '../../runtime/applied-hash.ts';
import { awaitsCleanup, cleanupFinalizer, deletingStatus, finalizeDeployment } from './finalize.ts';
import { childKinds } from './informers.ts';
import { childNames } from '../../api/child-names.ts';
import { buildJobLocation } from '../../workloads/build-jobs.ts';
import { type DeploymentReconcilerDependencies, type Pass } from './pass.ts';
import type { V1Secret } from '@kubernetes/client-node';
import type { Problem } from './problem.ts';
import { stallStatus, targetOutcome } from './status/outcome.ts';
import type { ServingRevision } from './render/application.ts';
import { backingServices } from './render/backing.ts';
import { renderPasswordSecret, type OwnerDeployment } from './render/common.ts';
import { postgresDnsNames, renderPostgresTlsSecret } from './render/postgres.ts';
import { postgresClusterKind, renderPostgresCredentials } from './render/postgres-cluster.ts';
import { archiveStoreOf, databaseEngineFor, servingClusterStorage, servingDatabaseFor } from './database.ts';
import { previewDatabaseRecovery } from './preview-clone.ts';
import { selfSignedServerCertificate } from '../../runtime/self-signed.ts';
import type { DeploymentSpecInput } from './render/spec.ts';
import { renderTracingProject } from './render/tracing-project.ts';
import { renderWorkloads, type WorkloadsInput } from './render/workloads.ts';
import { routeTargetsOf } from './rollout/route-targets.ts';
import { canaryPlan } from './rollout/canary-pass.ts';
import { revisionHistory, type RevisionRecord } from './revisions/revision-records.ts';
import { revisionsToPrune } from './revisions/revisions.ts';
import { createSourceHeads, trackedBranch } from './revisions/source-head.ts';
import { buildQueueRecheckMs, targetImage } from './builds/target-image.ts';
import { syncWorkloads, type CurrentWorkloads } from './rollout/workloads.ts';
import { ensureActivatorGrant, releaseActivatorGrant, scaleToZeroOf } from './rollout/scale-to-zero.ts';
import { keepAwake, type KeepAwake } from './rollout/keep-awake.ts';
import { decideStatus, type PassStatus } from './status/status-decision.ts';
import { writeStatus } from './status/write-status.ts';
import { ownershipVerdicts } from '../../domains/ownership-verdicts.ts';

/** What a pass leaves: its status, and when to run again; or what it does once its status is written. */
interface PassEnd {
  status?: PassStatus;
  result?: ReconcileResult;
  /** A deletion's work: AWAITING_DELETE is there for readers before the children go. */
  afterStatus?: () => Promise<ReconcileResult | void>;
}

export function createDeploymentReconciler(deps: DeploymentReconcilerDependencies) {
  const heads = createSourceHeads({ intervalMs: deps.options.sourcePollIntervalMs });
  const hostVerdicts = deps.options.hostOwnership && ownershipVerdicts(deps.options.hostOwnership);
  return async function reconcileDeployment(
    key: { namespace: string; name: string },
    context: ReconcileContext,
  ): Promise<ReconcileResult | void> {
    const pass: Pass = { ...deps, heads, ...optional('hostVerdicts', hostVerdicts), context };
    const end = await reconcileOnce(pass, key);
    if (end.status) await writeStatus(pass, decideStatus(end.status, deps.options.now()));
    return end.afterStatus ? end.afterStatus() : end.result;
  };
}

/** A pass that cannot go on: the problem in its status, and when to look again. */
function halt(pass: Pass, deployment: DeepReadonly<Deployment>, halted: Halt): PassEnd {
  return {
    status: stallStatus(pass, deployment, halted.problem, halted.known),
    ...(halted.requeueAfterMs === undefined ? {} : { result: { requeueAfter: halted.requeueAfterMs } }),
  };
}

async function reconcileOnce(pass: Pass, key: { namespace: string; name: string }): Promise<PassEnd> {
  const { informers, options } = pass;
  const found = informers.deployments.get(key.namespace, key.name);
  if (!found) return {};
  const owner: OwnerDeployment = { name: key.name, namespace: key.namespace, uid: found.metadata.uid ?? '' };
  if (found.metadata.deletionTimestamp) return finalizeDeploymentPass(pass, found, owner);
  const deployment = await withFinalizer(pass, found);
  const spec: DeploymentSpecInput = deployment.spec;
  const history = revisionHistory(informers, deployment, owner);
  await ensureTracingProject(pass, owner);

  // 1, 2. The revision the spec describes, and the one to serve.
  const chosen = await chooseRevisions(pass, deployment, owner, history);
  if ('problem' in chosen) return halt(pass, deployment, chosen);
  // 3. Its image.
  const image = await targetImage(pass, deployment, owner, chosen, history.previousActive);
  // 3b. Which Services the routes name (route-targets.ts), and the canary, when the spec asks for one:
  // which revision the application runs, and the canary's share.
  const routes = routeTargetsOf(informers, owner, options.now());
  const canary = await canaryPlan(pass, deployment, owner, chosen, image, history.previousActive, routes.routeTo);
  // 4. Workloads: applied only where the cache differs from the rendering. The activator's grant goes in
  // before routes that lead to the activator, so that they resolve at once, and out after they no longer do.
  const activated = scaleToZeroOf(options, deployment) === 'activated';
  if (activated) await ensureActivatorGrant(pass, owner.namespace);
  const serving = canary ? canary.serving : image.serving;
  const awake = keepAwakeOf(pass, deployment, activated, image.serving?.name !== history.previousActive?.name, history.previousActive);
  const applied = await applyWorkloads(pass, deployment, owner, serving, {
    keepOnePod: awake.keepOnePod,
    routeTo: routes.routeTo,
    ...optional('canary', canary?.canary),
  });
  if ('problem' in applied)
    return halt(pass, deployment, {
      problem: applied.problem,
      known: { latest: chosen.latest, ...optional('active', history.previousActive) },
    });
  if (!activated) await releaseActivatorGrant(pass, owner);
  // 5. Where the target stands: the status, the revisions' phases.
  const outcome = targetOutcome(pass, deployment, owner, chosen, image, applied.current, history.previousActive, canary?.decision);
  // 6. Old revisions beyond the retention count go; never the active, latest or pinned one. A revision
  // pruned here gets no phase.
  const pruned = await pruneRevisions(pass, owner, chosen.all, [
    chosen.latest.name,
    chosen.target.name,
    ...(outcome.active ? [outcome.active.name] : []),
  ]);
  const status = { ...outcome.status, revisionPhases: outcome.status.revisionPhases.filter(({ revision }) => !pruned.has(revision.name)) };
  // 7. A build-on-push Deployment looks at its branch again after the poll interval; a queued build, at
  // its organization's builds sooner; a canary, when its step's pause is over.
  const queued = image.build.state === 'awaiting' && image.build.reason === 'BuildQueued';
  const recheck = [
    queued ? buildQueueRecheckMs : undefined,
    trackedBranch(spec) ? options.sourcePollIntervalMs : undefined,
    canary?.decision.recheckMs,
    routes.recheckMs,
    awake.recheckMs,
  ];
  const requeueAfter = Math.min(...recheck.filter((ms) => ms !== undefined));
  return { status, ...(Number.isFinite(requeueAfter) ? { result: { requeueAfter } } : {}) };
}

/** Whether an app that scales to zero keeps a pod (keep-awake.ts); one that does not scale to zero needs no recheck. */
function keepAwakeOf(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  activated: boolean,
  rollingOut: boolean,
  active: RevisionRecord | undefined,
): KeepAwake {
  if (!activated || !active) return { keepOnePod: rollingOut };
  return keepAwake({
    rollingOut,
    activeConditions: active.object.status?.conditions,
    idleSeconds: idleSecondsOf(pass.options.activator, deployment.spec.sourceConfig?.idleSeconds),
    now: pass.options.now(),
  });
}

/** A pass of a deletion: its status (AWAITING_DELETE), then the deletes, in the same pass. */
function finalizeDeploymentPass(pass: Pass, deployment: DeepReadonly<Deployment>, owner: OwnerDeployment): PassEnd {
  if (!awaitsCleanup(deployment)) return {};
  return { status: deletingStatus(deployment), afterStatus: () => finalizeDeployment(pass, deployment, owner) };
}

/** A Deployment that is not being deleted carries the cleanup finalizer before any child exists. */
async function withFinalizer(pass: Pass, deployment: DeepReadonly<Deployment>): Promise<DeepReadonly<Deployment>> {
  const finalizers = deployment.metadata.finalizers ?? [];
  if (finalizers.includes(cleanupFinalizer)) return deployment;
  // So that no child can outlive a deletion the finalizer did not see. The reconcile goes on: its
  // status write gives the object its first conditions in this same pass.
  return pass.writer.finalizers<Deployment>(deploymentKind, deployment, [...finalizers, cleanupFinalizer]);
}

async function ensureTracingProject(pass: Pass, owner: OwnerDeployment): Promise<void> {
  const desired = withAppliedHash(renderTracingProject(owner));
  const cached = pass.informers.tracingProjects.get(owner.namespace, desired.metadata.name);
  // A project of that name made for another deployment is left alone: its deploymentName is immutable.
  if (cached && cached.spec.deploymentName !== owner.name) return;
  if (!upToDate(cached, desired)) await pass.writer.apply(desired);
}

/** The workloads for a spec and the revision they serve: credentials first, then what differs from the cache. */
async function applyWorkloads(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  serving: ServingRevision | undefined,
  placement: Pick<WorkloadsInput, 'keepOnePod' | 'routeTo' | 'canary'>,
): Promise<{ current: CurrentWorkloads } | { problem: Problem }> {
  const { informers, writer, options } = pass;
  const spec: DeploymentSpecInput = deployment.spec;
  const names = childNames(owner.name);
  const backing = backingServices(spec);
  const databaseEngine = databaseEngineFor(informers, options.databaseEngine, owner);
  if (backing.database && databaseEngine === 'cnpg' && !informers.postgresClusters) return { problem: postgresClustersMissing };
  await syncCredentials(
    pass,
    owner,
    names.postgresCredentials,
    backing.database,
    (password) => renderPostgresCredentials(owner, password, databaseEngine),
    () => adoptDatabase(writer, owner, databaseEngine, servingDatabaseFor(informers, owner).cluster),
  );
  await syncDatabaseCertificate(pass, owner, backing.database && databaseEngine === 'statefulset');
  if (backing.database && databaseEngine === 'cnpg') await releaseClusterService(pass, owner);
  const clone = backing.database ? await previewDatabaseRecovery(pass, deployment, owner, databaseEngine) : {};
  if ('problem' in clone) return clone;
  await syncCredentials(pass, owner, names.redisCredentials, backing.redis, (password) =>
    renderPasswordSecret(owner, names.redisCredentials, 'redis', password),
  );
  const existingDatabaseStorage =
    databaseEngine === 'cnpg'
      ? servingClusterStorage(informers, owner)
      : informers.statefulSets.get(owner.namespace, names.postgres)?.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;
  try {
    const desired = renderWorkloads({
      owner,
      spec,
      ...optional('serving', serving),
      ...placement,
      ...optional('listenerShards', listenerShards(pass, owner)),
      settings: options,
      databaseEngine,
      servingDatabase: servingDatabaseFor(informers, owner),
      ...optional('databaseRecovery', clone.recovery),
      ...optional('backupStore', databaseEngine === 'cnpg' ? archiveStoreOf(informers, owner) : undefined),
      ...(existingDatabaseStorage ? { existingDatabaseStorage: String(existingDatabaseStorage) } : {}),
    });
    return { current: await syncWorkloads(informers, writer, owner, desired) };
  } catch (error) {
    // The API server refused a workload (422): retrying the same rendering cannot succeed.
    if (!isKubeApiError(error, 422)) throw error;
    return { problem: { reason: 'WorkloadRejected', message: error.message } };
  }
}

/** Where the organization's listeners are on shards of the Gateway (gateway-shards.ts), with TLS. */
function listenerShards({ informers, options }: Pass, owner: OwnerDeployment): Map<string, string> | undefined {
  const { tls } = options;
  if (!tls || !informers.gateways) return undefined;
  return organizationShards(tls.gateway.name, informers.gateways.list(tls.gateway.namespace), owner.namespace);
}

/** A database made a Cluster while the cluster no longer serves CloudNativePG: nothing is rendered, so
 * nothing of it is pruned either. */
const postgresClustersMissing: Problem = {
  reason: 'DatabaseEngineMissing',
  message: `the database is a CloudNativePG Cluster, and this cluster serves no ${postgresClusterKind.kind} (${postgresClusterKind.apiVersion}): install CloudNativePG again, or restart Berth once it is`,
};

/** A backing service's password: made once (`render` with a random one), kept while the service is
 * wanted, gone with it. The database's may be one a deleted Deployment of the same name left: `adopt`
 * takes it back (retained-data.ts). */
async function syncCredentials(
  pass: Pass,
  owner: OwnerDeployment,
  name: string,
  wanted: boolean,
  render: (password: string) => V1Secret,
  adopt?: () => Promise<void>,
): Promise<void> {
  const secret = pass.informers.secrets.get(owner.namespace, name);
  if (wanted && !secret) await pass.writer.createOrGet(render(randomBytes(24).toString('base64url')));
  if (wanted && secret && adopt && isRetainedPassword(secret, owner)) await adopt();
  if (!wanted && secret?.metadata?.ownerReferences?.some((r) => r.uid === owner.uid))
    await pass.writer.delete(childKinds.secret, owner.namespace, name);
}

/** The database server's certificate: made once, kept while the database is wanted, gone with it. */
async function syncDatabaseCertificate(pass: Pass, owner: OwnerDeployment, wanted: boolean): Promise<void> {
  const name = childNames(owner.name).postgresTls;
  const secret = pass.informers.secrets.get(owner.namespace, name);
  if (wanted && !secret)
    await pass.writer.createOrGet(renderPostgresTlsSecret(owner, await selfSignedServerCertificate(postgresDnsNames(owner))));
  if (!wanted && secret?.metadata?.ownerReferences?.some((r) => r.uid === owner.uid))
    await pass.writer.delete(childKinds.secret, owner.namespace, name);
}

/** `<name>-postgres` as an earlier Berth had it, a Service its Cluster owned: deleted, so that Berth's
 * own (render/postgres-cluster.ts) takes its place in the same pass rather than after the Cluster's
 * operator deletes it. */
async function releaseClusterService(pass: Pass, owner: OwnerDeployment): Promise<void> {
  const name = childNames(owner.name).postgres;
  const service = pass.informers.services.get(owner.namespace, name);
  const ownedByCluster = service?.metadata?.ownerReferences?.some((r) => r.controller && r.kind === postgresClusterKind.kind);
  if (ownedByCluster && !service?.metadata?.deletionTimestamp) await pass.writer.delete(childKinds.service, owner.namespace, name);
}

/** Old revisions beyond the retention count go, with their Secrets and build Jobs; never one in `keep`. Answers their names. */
async function pruneRevisions(pass: Pass, owner: OwnerDeployment, all: RevisionRecord[], keep: string[]): Promise<Set<string>> {
  const pruned = revisionsToPrune(all, pass.options.revisionRetention, new Set(keep));
  for (const revision of pruned) {
    await deleteRevision(pass.writer, revision.object);
    const job = buildJobLocation(pass.options.buildNamespace, { ...owner, name: revision.name, uid: revision.object.metadata.uid ?? '' });
    if (pass.informers.jobs.get(job.namespace, job.name)) await pass.writer.delete(childKinds.job, job.namespace, job.name);
  }
  return new Set(pruned.map((revision) => revision.name));
}

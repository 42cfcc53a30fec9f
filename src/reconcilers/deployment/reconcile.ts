// The Deployment reconcile loop: observe (caches), decide (pure modules), write only what differs.
//
//   spec ──digest──▶ latest Revision (created once, named by digest) ──pin?──▶ target Revision
//   target ──build Job (codehost)──▶ image ──render/──▶ workloads (applied when they differ)
//   rollout of the workloads ──▶ target DEPLOYED ──▶ activeRevision, status, conditions
import { randomBytes } from 'node:crypto';
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import { deploymentKind, findCondition, isBuiltSource, labels, revisionKind, type Deployment, type Revision } from '../../api/index.ts';
import { isKubeApiError, type DeepReadonly, type ReconcileContext, type ReconcileResult } from '../../runtime/index.ts';
import { upToDate, withAppliedHash } from './compare.ts';
import { revisionDigest } from './digest.ts';
import { cleanupFinalizer, finalizeDeployment } from './finalize.ts';
import { childKinds, type DeploymentInformers } from './informers.ts';
import { awaitedProblem, facadeSecretGraceMs, fingerprintSecrets, resolveIntegration, secretReferences } from './inputs.ts';
import { buildState, builtImageReference } from './build-state.ts';
import { createSourceHeads, trackedBranch } from './source-head.ts';
import { secretValues } from '../../codehost/credentials.ts';
import { codeHostCredentialKeys } from '../../api/codehost-integration.ts';
import { bypassedPhase, rolloutOf, targetPhase, type TargetPhase } from './lifecycle.ts';
import { buildJobName, childNames } from './names.ts';
import type { DeploymentControllerOptions } from './options.ts';
import { backingServices, scaling } from './render/backing.ts';
import { builtImage, renderBuildJob, type BuildSources } from './render/build-job.ts';
import { sourceArchiveUrls, uploadIdOf } from '../../registry/source-archives.ts';
import { renderPasswordSecret, type OwnerDeployment } from './render/common.ts';
import { applicationUrl, type ServingRevision } from './render/application.ts';
import { podsOfRevision, revisionPodsProblem } from './pods.ts';
import { renderRevision } from './render/revision.ts';
import type { DeploymentSpecInput } from './render/spec.ts';
import { renderTracingProject } from './render/tracing-project.ts';
import { renderWorkloads } from './render/workloads.ts';
import { chooseTarget, findByDigest, revisionsToPrune, type RevisionSummary } from './revisions.ts';
import { conditionVerdict, deploymentPhase, type Problem, type StatusObservation } from './status.ts';
import { nextDeploymentStatus, nextRevisionStatus } from './status-writer.ts';
import { tierCondition, type TierCondition } from './tier.ts';
import { syncWorkloads, workloadKey, type CurrentWorkloads } from './workloads.ts';
import { StaleObjectError, type DeploymentWriter } from './writer.ts';

type CachedRevision = DeepReadonly<Revision>;
interface StatusFacts {
  latest?: RevisionRecord;
  active?: RevisionRecord;
  url?: string;
}
interface RevisionRecord extends RevisionSummary {
  object: CachedRevision;
}
interface RevisionHistory {
  revisions: RevisionRecord[];
  previousActive?: RevisionRecord | undefined;
  previousLatest?: RevisionRecord | undefined;
}
/** The revisions a pass works with once its spec could be followed. */
interface ChosenRevisions {
  latest: RevisionRecord;
  all: RevisionRecord[];
  target: RevisionRecord;
  pinned: boolean;
  credentialsSecretName: string | undefined;
  token: string | undefined;
}
/** A pass that ends early, with what to answer the work queue. */
type Stop = { stop: ReconcileResult | void };

export interface DeploymentReconcilerDependencies {
  informers: DeploymentInformers;
  writer: DeploymentWriter;
  options: DeploymentControllerOptions;
}

function summarize(revision: CachedRevision): RevisionRecord {
  return {
    name: revision.metadata.name ?? '',
    uid: revision.metadata.uid ?? '',
    digest: revision.spec.digest,
    generation: Number(revision.metadata.labels?.[labels.deploymentGeneration] ?? 0) || 0,
    creationTimestamp: String(revision.metadata.creationTimestamp ?? ''),
    object: revision,
  };
}

/** The image a revision runs: recorded once built, or named by its config for image sources. */
function imageOf(revision: CachedRevision): string | undefined {
  if (revision.status?.imageUri) return revision.status.imageUri;
  return isBuiltSource(revision.spec.source) ? undefined : revision.spec.sourceRevisionConfig.imageUri;
}

function tierFact(deployment: DeepReadonly<Deployment>): { tier?: TierCondition } {
  const tier = tierCondition(deployment.spec.sourceConfig?.deploymentType);
  return tier ? { tier } : {};
}

export function createDeploymentReconciler(deps: DeploymentReconcilerDependencies) {
  const { informers, writer, options } = deps;
  const heads = createSourceHeads({ intervalMs: options.sourcePollIntervalMs });

  async function writeStatus(deployment: DeepReadonly<Deployment>, observation: StatusObservation, facts: StatusFacts, context: ReconcileContext): Promise<void> {
    const generation = deployment.metadata.generation ?? 0;
    const verdict = conditionVerdict(observation);
    const previous = deployment.status as Deployment['status'];
    const next = nextDeploymentStatus(
      previous,
      {
        phase: deploymentPhase(observation),
        verdict,
        generation,
        ...(facts.latest ? { latest: { name: facts.latest.name, uid: facts.latest.uid } } : {}),
        ...(facts.active ? { active: { name: facts.active.name, uid: facts.active.uid, image: imageOf(facts.active.object) } } : {}),
        ...(facts.url ? { url: facts.url } : {}),
        ...tierFact(deployment),
      },
      options.now(),
    );
    if (next === previous) return;
    await writer.status<Deployment>(deployment, next);
    // An Event for each new reason to be stuck, not for each reconcile that sees the same one.
    const wasStalled = findCondition(previous?.conditions, 'Stalled');
    if (verdict.kind === 'stalled' && !(wasStalled?.status === 'True' && wasStalled.reason === verdict.reason)) {
      context.recorder.event(deployment, 'Warning', verdict.reason, verdict.message);
    }
    if (facts.active && facts.active.name !== previous?.activeRevisionName) {
      context.recorder.event(deployment, 'Normal', 'RevisionActive', `Revision ${facts.active.name} is now serving.`);
    }
  }

  async function stall(deployment: DeepReadonly<Deployment>, problem: Problem, facts: StatusFacts, context: ReconcileContext): Promise<void> {
    const status = deployment.status;
    // Where the app answers does not change while a new spec cannot be acted on.
    const url = facts.url ?? status?.url;
    await writeStatus(
      deployment,
      {
        deleting: false,
        problem,
        database: 'none',
        scaledToZero: false,
        workloadsAvailable: status?.status === 'READY',
        workloadsRolledOut: false,
        targetIsActive: false,
      },
      { ...facts, ...(url ? { url } : {}) },
      context,
    );
  }

  /** The code host token a build clones with and a branch head is read with: the integration's Secret's `token`. */
  function integrationToken(namespace: string, integration: ReturnType<typeof resolveIntegration>): string | undefined {
    const secretName = credentialsSecretOf(integration);
    const secret = secretName ? informers.secrets.get(namespace, secretName) : undefined;
    return (secret ? secretValues(secret)[codeHostCredentialKeys.token]?.trim() : undefined) || undefined;
  }

  /** The branch head a build-on-push Deployment builds; when the repository does not answer, the commit
   * of its latest revision (no new revision until it answers again). */
  async function trackedCommit(deployment: DeepReadonly<Deployment>, token: string | undefined, latestKnown: RevisionRecord | undefined, context: ReconcileContext): Promise<string | undefined> {
    const branch = trackedBranch(deployment.spec);
    if (!branch) return undefined;
    try {
      return await heads.head({ ...branch, ...optional('token', token) });
    } catch (error) {
      const message = `Cannot read branch ${branch.ref} of ${branch.repoUrl}: ${(error as Error).message}. A push is seen once it answers.`;
      context.recorder.event(deployment, 'Warning', 'SourceHeadUnknown', message);
      return latestKnown?.object.spec.sourceRevisionConfig.repoCommitSha;
    }
  }

  /** The Revision for this digest: from the cache, or created (AlreadyExists means someone made it first). */
  async function latestRevision(deployment: DeepReadonly<Deployment>, owner: OwnerDeployment, digest: string, revisions: RevisionRecord[], context: ReconcileContext, repoCommitSha?: string): Promise<RevisionRecord | Problem> {
    const cached = findByDigest(revisions, digest);
    if (cached) return cached;
    const manifest = renderRevision({
      owner,
      generation: deployment.metadata.generation ?? 0,
      source: deployment.spec.source,
      sourceRevisionConfig: structuredClone(deployment.spec.sourceRevisionConfig ?? {}) as Record<string, unknown>,
      digest,
      ...optional('repoCommitSha', repoCommitSha),
      ...optional('trackedPackages', deployment.spec.trackedPackages as string[] | undefined),
    });
    const { object, created } = await writer.createOrGet(manifest as unknown as Revision);
    if (object.spec?.digest !== digest) {
      return { reason: 'RevisionNameConflict', message: `Revision ${manifest.metadata.name} exists with another digest.` };
    }
    if (created) context.recorder.event(deployment, 'Normal', 'RevisionCreated', `Created Revision ${manifest.metadata.name}.`);
    return summarize(object as CachedRevision);
  }

  /** A backing service's password: made once, kept while the service is wanted, gone with it. */
  async function syncCredentials(owner: OwnerDeployment, name: string, component: 'postgres' | 'redis', wanted: boolean): Promise<void> {
    const secret = informers.secrets.get(owner.namespace, name);
    if (wanted && !secret) await writer.createOrGet(renderPasswordSecret(owner, name, component, randomBytes(24).toString('base64url')));
    if (!wanted && secret?.metadata?.ownerReferences?.some((r) => r.uid === owner.uid)) await writer.delete(childKinds.secret, owner.namespace, name);
  }

  async function ensureTracingProject(owner: OwnerDeployment): Promise<void> {
    const desired = withAppliedHash(renderTracingProject(owner));
    const cached = informers.tracingProjects.get(owner.namespace, desired.metadata.name);
    // A project of that name made for another deployment is left alone: its deploymentName is immutable.
    if (cached && cached.spec.deploymentName !== owner.name) return;
    if (!upToDate(cached, desired)) await writer.apply(desired);
  }

  async function recordRevisionPhase(revision: RevisionRecord, update: Omit<TargetPhase, 'phase'> & { phase: TargetPhase['phase'] }): Promise<void> {
    const previous = revision.object.status as Revision['status'];
    const repoCommitSha = revision.object.spec.sourceRevisionConfig.repoCommitSha ?? update.repoCommitSha;
    const next = nextRevisionStatus(
      previous,
      { ...update, generation: revision.object.metadata.generation ?? 1, ...optional('repoCommitSha', repoCommitSha) },
      options.now(),
    );
    if (next !== previous) await writer.status<Revision>(revision.object, next);
  }

  /** The workloads for a spec and the revision they serve: credentials first, then what differs from the cache. */
  async function applyWorkloads(owner: OwnerDeployment, spec: DeploymentSpecInput, serving: ServingRevision | undefined): Promise<{ current: CurrentWorkloads } | { problem: Problem }> {
    const names = childNames(owner.name);
    const backing = backingServices(spec);
    await syncCredentials(owner, names.postgresCredentials, 'postgres', backing.database);
    await syncCredentials(owner, names.redisCredentials, 'redis', backing.redis);
    const existingDatabaseStorage = informers.statefulSets.get(owner.namespace, names.postgres)?.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;
    try {
      const desired = renderWorkloads({
        owner,
        spec,
        ...(serving ? { serving } : {}),
        settings: options,
        ...(existingDatabaseStorage ? { existingDatabaseStorage: String(existingDatabaseStorage) } : {}),
      });
      return { current: await syncWorkloads(informers, writer, owner, desired) };
    } catch (error) {
      // The API server refused a workload (422): retrying the same rendering cannot succeed.
      if (!isKubeApiError(error, 422)) throw error;
      return { problem: { reason: 'WorkloadRejected', message: error.message } };
    }
  }

  /** Where a revision's build gets its sources: the Deployment's repository, or the revision's uploaded archive. */
  function buildSources(deployment: DeepReadonly<Deployment>, owner: OwnerDeployment, target: RevisionRecord, credentialsSecretName: string | undefined): BuildSources {
    const config = target.object.spec.sourceRevisionConfig;
    if (target.object.spec.source === 'internal_source') {
      return { kind: 'archive', ...sourceArchiveUrls(options.registry, owner.namespace, owner.name, uploadIdOf(config.sourceTarballPath ?? '') ?? '') };
    }
    return {
      kind: 'repository',
      repoUrl: deployment.spec.sourceConfig?.repoUrl ?? '',
      // The commit the revision records (a build-on-push head, a ref that is a commit), else the branch.
      repoRef: config.repoCommitSha ?? config.repoRef ?? '',
      ...optional('credentialsSecretName', credentialsSecretName),
    };
  }

  /** A revision of a built source without an image is built by a Job: started once, then observed. */
  async function ensureBuild(
    deployment: DeepReadonly<Deployment>,
    owner: OwnerDeployment,
    target: RevisionRecord,
    inputs: { knownImage: string | undefined; credentialsSecretName: string | undefined; token: string | undefined },
    context: ReconcileContext,
  ) {
    const building = isBuiltSource(target.object.spec.source) && !inputs.knownImage;
    const existing = building ? informers.jobs.get(owner.namespace, buildJobName(target.name)) : undefined;
    const pods = existing ? podsOfRevision(informers.pods, owner.namespace, target.name, 'build') : [];
    const build = buildState(existing, pods, redactToken(inputs.token));
    if (!building || build.state !== 'absent') return build;
    const spec = deployment.spec;
    const job = renderBuildJob({
      owner,
      revisionName: target.name,
      sources: buildSources(deployment, owner, target, inputs.credentialsSecretName),
      installCommand: spec.sourceConfig?.installCommand,
      buildCommand: spec.sourceConfig?.buildCommand,
      images: { git: options.images.git, tools: options.images.buildTools, builder: options.images.builder },
      registry: options.registry,
      ...(options.buildServiceAccountName ? { serviceAccountName: options.buildServiceAccountName } : {}),
      privileged: options.buildPrivileged,
    });
    await writer.apply(withAppliedHash(job));
    context.recorder.event(deployment, 'Normal', 'BuildStarted', `Building Revision ${target.name}.`);
    return build;
  }

  /** Revisions the target went past are marked so (SKIPPED by a pin, INTERRUPTED by a newer choice). */
  async function recordBypassed(all: RevisionRecord[], target: RevisionRecord, latest: RevisionRecord, pinned: boolean): Promise<void> {
    for (const revision of all) {
      if (revision.name === target.name) continue;
      const skippedByPin = pinned && revision.name === latest.name;
      const bypassed = bypassedPhase(revision.object.status?.status, skippedByPin);
      if (!bypassed) continue;
      const message = skippedByPin ? `spec.revisionName pins Revision ${target.name}.` : `Revision ${target.name} was chosen before this one was deployed.`;
      await recordRevisionPhase(revision, { phase: bypassed, message });
    }
  }

  /** Old revisions beyond the retention count go, with their build Jobs; never one in `keep`. */
  async function pruneRevisions(owner: OwnerDeployment, all: RevisionRecord[], keep: string[]): Promise<void> {
    for (const revision of revisionsToPrune(all, options.revisionRetention, new Set(keep))) {
      await writer.delete(revisionKind, owner.namespace, revision.name);
      if (informers.jobs.get(owner.namespace, buildJobName(revision.name))) await writer.delete(childKinds.job, owner.namespace, buildJobName(revision.name));
    }
  }

  /** A Deployment that is not being deleted carries the cleanup finalizer before any child exists. */
  async function withFinalizer(deployment: DeepReadonly<Deployment>): Promise<DeepReadonly<Deployment>> {
    const finalizers = deployment.metadata.finalizers ?? [];
    if (finalizers.includes(cleanupFinalizer)) return deployment;
    // So that no child can outlive a deletion the finalizer did not see. The reconcile goes on: its
    // status write gives the object its first conditions in this same pass.
    return (await writer.finalizers(deploymentKind, deployment, [...finalizers, cleanupFinalizer])) as DeepReadonly<Deployment>;
  }

  /** The Deployment's revisions, and the latest and active ones its status names. */
  function revisionHistory(deployment: DeepReadonly<Deployment>, owner: OwnerDeployment): RevisionHistory {
    const revisions = informers.revisions
      .byIndex('owner', owner.uid)
      .filter((r) => r.metadata.namespace === owner.namespace)
      .map(summarize);
    const previousActive = revisions.find((r) => r.name === deployment.status?.activeRevisionName);
    const previousLatest = revisions.find((r) => r.name === deployment.status?.latestRevisionName);
    return { revisions, previousActive, previousLatest };
  }

  /**
   * Steps 1 and 2: what the spec refers to (Secrets, the integration), then the Revision it describes
   * (made once) and the one to serve (it, or the pinned one). A problem stalls the pass here.
   */
  async function chooseRevisions(deployment: DeepReadonly<Deployment>, owner: OwnerDeployment, history: RevisionHistory, context: ReconcileContext): Promise<ChosenRevisions | Stop> {
    const spec = deployment.spec;
    const { revisions, previousActive, previousLatest } = history;
    // What the status said before: kept while a problem stops this pass before the revision is known.
    const known = { ...(previousLatest ? { latest: previousLatest } : {}), ...(previousActive ? { active: previousActive } : {}) };
    const secrets = fingerprintSecrets(owner.namespace, secretReferences(owner.name, spec.secrets), (ns, name) => informers.secrets.get(ns, name));
    if ('problem' in secrets) {
      const problem = awaitedProblem(secrets, owner.name, deployment.metadata.creationTimestamp as unknown as string | undefined, options.now());
      await stall(deployment, problem, known, context);
      // The Secret's arrival enqueues the Deployment; this re-check turns the wait into Stalled if it never comes.
      return { stop: problem.awaited ? { requeueAfter: facadeSecretGraceMs } : undefined };
    }
    const integration = resolveIntegration(spec.source, spec.sourceConfig?.integrationId, informers.integrations.list(owner.namespace));
    if ('problem' in integration) return { stop: await stall(deployment, integration.problem, known, context) };
    // A deployment created before its first image or source archive has no revision yet: it waits,
    // Reconciling, until a change brings one.
    const awaiting = awaitedInput(spec);
    if (awaiting) return { stop: await stall(deployment, awaiting, known, context) };
    const token = integrationToken(owner.namespace, integration);
    const tracked = await trackedCommit(deployment, token, previousLatest, context);
    const revisionConfig = tracked ? { ...spec.sourceRevisionConfig, repoCommitSha: tracked } : spec.sourceRevisionConfig;
    const latest = await latestRevision(deployment, owner, revisionDigest(revisionConfig, secrets.fingerprints), revisions, context, tracked);
    if (!('uid' in latest)) return { stop: await stall(deployment, latest, known, context) };
    const all = revisions.some((r) => r.name === latest.name) ? revisions : [...revisions, latest];
    const choice = chooseTarget(all, latest, spec.revisionName);
    if ('problem' in choice) return { stop: await stall(deployment, choice.problem, { latest, active: previousActive }, context) };
    return { latest, all, target: choice.revision, pinned: choice.pinned, credentialsSecretName: credentialsSecretOf(integration), token };
  }

  /** Step 3: the target's image, named by its config or built by a Job, and the revision the workloads run. */
  async function targetImage(deployment: DeepReadonly<Deployment>, owner: OwnerDeployment, chosen: ChosenRevisions, previousActive: RevisionRecord | undefined, context: ReconcileContext) {
    const { target } = chosen;
    const knownImage = imageOf(target.object);
    const buildImage = builtImage(options.registry, owner.namespace, owner.name, target.name);
    const build = await ensureBuild(deployment, owner, target, { knownImage, credentialsSecretName: chosen.credentialsSecretName, token: chosen.token }, context);
    const image = knownImage ?? (build.state === 'succeeded' ? builtImageReference(buildImage, build) : undefined);
    return { knownImage, buildImage, build, serving: servingRevision(target, image, previousActive) };
  }

  /**
   * Steps 5 and 6: where the target stands, then the status and the revisions' phases. The Deployment
   * records a revision active before that revision says DEPLOYED, so a failed or refused status write
   * never leaves a DEPLOYED revision nobody serves from (the next pass decides both again), and a client
   * that sees DEPLOYED sees it active too. Answers the revision that serves.
   */
  async function recordOutcome(
    deployment: DeepReadonly<Deployment>,
    owner: OwnerDeployment,
    chosen: ChosenRevisions,
    image: Awaited<ReturnType<typeof targetImage>>,
    current: CurrentWorkloads,
    previousActive: RevisionRecord | undefined,
    context: ReconcileContext,
  ): Promise<RevisionRecord | undefined> {
    const spec = deployment.spec as DeploymentSpecInput & Deployment['spec'];
    const { target, latest } = chosen;
    const names = childNames(owner.name);
    const backing = backingServices(spec);
    const application = current.get(workloadKey('Deployment', names.application)) as V1Deployment | undefined;
    const queueWorker = current.get(workloadKey('Deployment', names.queueWorker)) as V1Deployment | undefined;
    const phase = targetPhase({
      revisionName: target.name,
      source: target.object.spec.source,
      ...optional('knownImage', image.knownImage),
      buildImage: image.buildImage,
      ...optional('recordedPhase', target.object.status?.status),
      serving: previousActive?.name === target.name,
      build: image.build,
      rollout: rolloutOf(application),
      ...optional('podProblem', revisionPodsProblem(podsOfRevision(informers.pods, owner.namespace, target.name, 'workload'))),
    });
    const active = phase.phase === 'DEPLOYED' ? target : previousActive;
    const postgres = backing.database ? informers.statefulSets.get(owner.namespace, names.postgres) : undefined;
    await writeStatus(
      deployment,
      {
        ...workloadsObservation({ spec, hasDatabase: backing.database, postgres, application, queueWorker, targetName: target.name }),
        deleting: false,
        target: phase,
        targetIsActive: active?.name === target.name,
      },
      { latest, ...(active ? { active } : {}), ...optional('url', applicationUrl(spec, informers.services.get(owner.namespace, names.application))) },
      context,
    );
    await recordRevisionPhase(target, phase);
    await recordBypassed(chosen.all, target, latest, chosen.pinned);
    return active;
  }

  async function reconcileOnce(key: { namespace: string; name: string }, context: ReconcileContext): Promise<ReconcileResult | void> {
    const found = informers.deployments.get(key.namespace, key.name);
    if (!found) return;
    const owner: OwnerDeployment = { name: key.name, namespace: key.namespace, uid: found.metadata.uid ?? '' };
    if (found.metadata.deletionTimestamp) return finalizeDeployment({ informers, writer, options }, found, owner, context);
    const deployment = await withFinalizer(found);
    const spec = deployment.spec as DeploymentSpecInput & Deployment['spec'];
    const history = revisionHistory(deployment, owner);
    await ensureTracingProject(owner);

    // 1, 2. The revision the spec describes, and the one to serve.
    const chosen = await chooseRevisions(deployment, owner, history, context);
    if ('stop' in chosen) return chosen.stop;
    // 3. Its image.
    const image = await targetImage(deployment, owner, chosen, history.previousActive, context);
    // 4. Workloads: applied only where the cache differs from the rendering.
    const applied = await applyWorkloads(owner, spec, image.serving);
    if ('problem' in applied) return stall(deployment, applied.problem, { latest: chosen.latest, active: history.previousActive }, context);
    // 5, 6. Where the target stands, the status, the revisions' phases.
    const active = await recordOutcome(deployment, owner, chosen, image, applied.current, history.previousActive, context);
    // 7. Old revisions beyond the retention count go; never the active, latest or pinned one.
    await pruneRevisions(owner, chosen.all, [chosen.latest.name, chosen.target.name, ...(active ? [active.name] : [])]);
    // 8. A build-on-push Deployment looks at its branch again after the poll interval.
    return trackedBranch(spec) ? { requeueAfter: options.sourcePollIntervalMs } : undefined;
  }

  /**
   * One pass; a status decided from a cache older than the object (the controller's own last write not
   * seen yet) is not written: the pass runs again once the cache has caught up (its event enqueues it too).
   */
  return async function reconcileDeployment(key: { namespace: string; name: string }, context: ReconcileContext): Promise<ReconcileResult | void> {
    try {
      return await reconcileOnce(key, context);
    } catch (error) {
      if (!(error instanceof StaleObjectError)) throw error;
      context.logger.debug({ err: error.message }, 'the cache lags the object: deciding again');
      return { requeueAfter: staleRetryMs };
    }
  };
}

/** Hides the code host token in what a build said (its failed step's last log lines). */
function redactToken(token: string | undefined): (text: string) => string {
  return token && token.length >= 4 ? (text) => text.replaceAll(token, '********') : (text) => text;
}

/** The Secret a build clones with: the integration's credentials, when the source has an integration. */
function credentialsSecretOf(integration: ReturnType<typeof resolveIntegration>): string | undefined {
  return 'integration' in integration && integration.integration ? integration.integration.spec.credentialsSecretRef.name : undefined;
}

/** What the workloads say about the Deployment's status: its database, its scale, its rollout. */
function workloadsObservation(input: {
  spec: DeploymentSpecInput;
  hasDatabase: boolean;
  postgres: DeepReadonly<V1StatefulSet> | undefined;
  application: V1Deployment | undefined;
  queueWorker: V1Deployment | undefined;
  targetName: string;
}): Pick<StatusObservation, 'database' | 'scaledToZero' | 'workloadsAvailable' | 'workloadsRolledOut'> {
  const { application, queueWorker } = input;
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  const queueScaledToZero = scaling(resources.queueMinScale, resources.queueMaxScale).kind === 'scaledToZero';
  const available = (d: V1Deployment | undefined) => (d?.status?.availableReplicas ?? 0) >= 1;
  const appRollout = rolloutOf(application);
  return {
    database: !input.hasDatabase ? 'none' : (input.postgres?.status?.readyReplicas ?? 0) >= 1 ? 'ready' : 'notReady',
    scaledToZero: scaling(resources.minScale, resources.maxScale).kind === 'scaledToZero',
    workloadsAvailable: available(application) && (!queueWorker || queueScaledToZero || available(queueWorker)),
    workloadsRolledOut: appRollout.complete && appRollout.revision === input.targetName && (!queueWorker || rolloutOf(queueWorker).complete),
  };
}

/** What the workloads run: the target once its image exists, else the revision serving now (if any). */
/** What a spec that cannot make a revision yet waits for: its first image, or its first source archive. */
function awaitedInput(spec: DeepReadonly<Deployment['spec']>): Problem | undefined {
  if (spec.source === 'internal_docker' && !spec.sourceRevisionConfig?.imageUri) return { reason: 'AwaitingImage', message: awaitingImageMessage, awaited: true };
  if (spec.source === 'internal_source' && !spec.sourceRevisionConfig?.sourceTarballPath) return { reason: 'AwaitingSource', message: awaitingSourceMessage, awaited: true };
  return undefined;
}

function servingRevision(target: RevisionRecord, targetImage: string | undefined, previousActive: RevisionRecord | undefined): ServingRevision | undefined {
  if (targetImage) return { name: target.name, image: targetImage };
  const activeImage = previousActive ? imageOf(previousActive.object) : undefined;
  return previousActive && activeImage ? { name: previousActive.name, image: activeImage } : undefined;
}

/** How soon a pass that met a stale cache runs again, if the cache's own event has not enqueued it first. */
const staleRetryMs = 100;

export const awaitingSourceMessage =
  'Waiting for the first source archive: ask POST /v2/deployments/{id}/upload-url, PUT the .tar.gz there, then PATCH source_tarball_path (sourceRevisionConfig.sourceTarballPath).';
export const awaitingImageMessage = 'Waiting for the first image: push it to the deployment\'s repository and set sourceRevisionConfig.imageUri (PATCH image_uri).';

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}


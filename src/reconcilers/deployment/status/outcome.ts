// What a pass saw, for its status: where the target stands, what the workloads, autoscaler and
// certificates say, and the phases its Revisions reached. Reads caches, writes nothing: the status is
// decided from this once (status-decision.ts) and written once (write-status.ts).
import type { V1Deployment } from '@kubernetes/client-node';
import {
  appUrl,
  customHostOf,
  idleSecondsOf,
  interruptionOf,
  organizationTlsNames,
  organizationWildcardHost,
  timestampText,
  type ConditionDecision,
  type Deployment,
} from '../../../api/index.ts';
import { scalingStatus } from './scaling-status.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { bypassedPhase, hasAvailableReplica, rolloutOf, targetPhase, withBackupName, type TargetPhase } from '../rollout/lifecycle.ts';
import { childNames } from '../../../api/child-names.ts';
import { type Pass } from '../pass.ts';
import type { Problem } from '../problem.ts';
import { podsOfRevision } from '../../../workloads/revision-pods.ts';
import { revisionPodsSay, type PodProblem } from '../rollout/pods.ts';
import { backingServices, scaling } from '../render/backing.ts';
import { applicationUrl, clusterUrl } from '../render/application.ts';
import type { OwnerDeployment } from '../render/common.ts';
import type { DeploymentSpecInput } from '../render/spec.ts';
import type { RevisionRecord } from '../revisions/revision-records.ts';
import type { ChosenRevisions } from '../revisions/choose-revisions.ts';
import type { StatusObservation } from './status.ts';
import { namedRevision, type PassStatus, type StatusFacts } from './status-decision.ts';
import type { TargetImage } from '../builds/target-image.ts';
import { tierCondition } from '../render/tier.ts';
import { scaleToZeroOf } from '../rollout/scale-to-zero.ts';
import { certificateCondition } from './certificate-status.ts';
import { canaryCondition, canaryTargetPhase, type CanaryDecision } from '../rollout/canary.ts';
import { canaryAbility } from '../rollout/canary-pass.ts';
import { workloadKey, type CurrentWorkloads } from '../rollout/workloads.ts';
import { pathBlocked } from '../rollout/network-path.ts';
import { optional } from '../../../runtime/index.ts';
import { durableServerOf } from '../render/agent-server.ts';
import { databaseConnections } from './database-connections.ts';
import { archiveStoreOf, databaseEngineFor, databaseServes, servingDatabaseFor } from '../database.ts';
import { databaseArchiving } from './database-archive-status.ts';
import { databaseArchiveOf } from '../render/database-archive.ts';
import { rollbackCrossesMigrationCondition, rollbackCrossing, type BackupOnRecord, type RestoredDatabase } from './rollback-status.ts';
import { recoveryOfCluster } from '../render/postgres-cluster.ts';
import type { DeploymentInformers } from '../informers.ts';

/** What the cluster says beside the verdict: the tier's condition and, with TLS for the apps' URLs,
 * the readiness of the organization's certificates. */
function clusterFacts(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
): Pick<StatusFacts, 'tier' | 'certificate' | 'canaryCondition' | 'connections' | 'archiving'> {
  const idleSeconds = idleSecondsOf(pass.options.activator, deployment.spec.sourceConfig?.idleSeconds);
  const tier = tierCondition(scaleToZeroOf(pass.options, deployment), idleSeconds);
  const canary = canaryCondition(canaryAbility(pass, deployment));
  const spec: DeploymentSpecInput = deployment.spec;
  const backing = backingServices(spec);
  const connections = databaseConnections(spec, durableServerOf(spec, pass.options.images.agentServer, backing), backing);
  const sides = {
    ...optional('tier', tier),
    ...optional('canaryCondition', canary),
    ...optional('connections', connections),
    ...optional('archiving', backing.database ? archivingOf(pass, deployment) : undefined),
  };
  const tls = pass.options.tls;
  const certificates = pass.informers.certificates;
  if (!tls || !certificates) return sides;
  const organization = deployment.metadata.namespace ?? '';
  const names = organizationTlsNames(organization);
  const get = (name: string) => certificates.get(tls.gateway.namespace, name);
  const host = customHostOf(deployment);
  return {
    ...sides,
    certificate: certificateCondition(tls, [
      { name: names.certificate, for: organizationWildcardHost(tls, organization), object: get(names.certificate) },
      ...(host ? [{ name: names.customCertificate, for: host, object: get(names.customCertificate) }] : []),
    ]),
  };
}

/** Where Berth gives the database an archive (a CloudNativePG database with a backup store): how it goes. */
function archivingOf({ informers, options }: Pass, deployment: DeepReadonly<Deployment>): ConditionDecision | undefined {
  const { name = '', namespace = '', uid = '' } = deployment.metadata;
  const owner = { name, namespace, uid };
  if (databaseEngineFor(informers, options.databaseEngine, owner) !== 'cnpg') return undefined;
  const reach = archiveStoreOf(informers, owner);
  if (!reach) return undefined;
  const serving = servingDatabaseFor(informers, owner);
  const cluster = informers.postgresClusters?.get(owner.namespace, serving.cluster);
  return databaseArchiving(cluster, databaseArchiveOf(owner, serving.serverName), reach);
}

/** Where the Deployment is rolled back past a revision that migrated its database: the backup before it. */
function rollbackOf({ informers }: Pass, deployment: DeepReadonly<Deployment>, chosen: ChosenRevisions): ConditionDecision | undefined {
  const namespace = deployment.metadata.namespace ?? '';
  const backupOf = (name: string): BackupOnRecord | undefined => {
    const backup = informers.databaseBackups?.get(namespace, name);
    if (!backup) return undefined;
    const { phase, serverName, backupId } = backup.status ?? {};
    return { uid: backup.metadata.uid ?? '', phase, ...(serverName && backupId ? { serverName, backupId } : {}) };
  };
  const previous = deployment.status?.conditions?.find((condition) => condition.type === rollbackCrossesMigrationCondition);
  return rollbackCrossing(
    chosen.target,
    chosen.all,
    backupOf,
    deployment.metadata.uid ?? '',
    restoredDatabaseOf(informers, deployment),
    previous,
  );
}

/** The serving database, when it is a Cluster recovered to a backup's end (a restore's, or a preview's
 * clone); one replayed past it to a point in time holds what was written after. */
function restoredDatabaseOf(informers: DeploymentInformers, deployment: DeepReadonly<Deployment>): RestoredDatabase | undefined {
  const { name = '', namespace = '', uid = '' } = deployment.metadata;
  const { cluster } = servingDatabaseFor(informers, { name, namespace, uid });
  const serving = informers.postgresClusters?.get(namespace, cluster);
  const recovery = serving ? recoveryOfCluster(serving) : undefined;
  if (!recovery || recovery.targetTime) return undefined;
  return {
    cluster,
    createdAt: timestampText(serving?.metadata?.creationTimestamp) ?? '',
    serverName: recovery.serverName,
    backupId: recovery.backupId,
  };
}

/** A pass that cannot act on the spec: the problem in the status, the workloads as they are. */
export function stallStatus(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  problem: Problem,
  known: { latest?: RevisionRecord; active?: RevisionRecord },
): PassStatus {
  const status = deployment.status;
  return {
    deployment,
    observation: {
      deleting: false,
      problem,
      database: 'none',
      scaledToZero: false,
      workloadsAvailable: status?.status === 'READY',
      workloadsRolledOut: false,
      targetIsActive: false,
    },
    // Where the app answers does not change while a new spec cannot be acted on.
    facts: {
      ...optional('latest', known.latest && namedRevision(known.latest)),
      ...optional('active', known.active && namedRevision(known.active)),
      ...optional('url', status?.url),
      ...optional('clusterUrl', status?.clusterUrl),
      ...optional('scaling', status?.scaling),
      ...optional('canary', status?.canary),
      ...clusterFacts(pass, deployment),
    },
    revisionPhases: [],
  };
}

/** Revisions the target went past are marked so (SKIPPED by a pin, INTERRUPTED by a newer choice). */
function bypassedPhases(chosen: ChosenRevisions): PassStatus['revisionPhases'] {
  const { all, target, latest, pinned } = chosen;
  return all.flatMap((revision) => {
    if (revision.name === target.name) return [];
    const skippedByPin = pinned && revision.name === latest.name;
    const bypassed = bypassedPhase(revision.object.status?.status, skippedByPin);
    if (!bypassed) return [];
    const message = skippedByPin
      ? `spec.revisionName pins Revision ${target.name}.`
      : `Revision ${target.name} was chosen before this one was deployed.`;
    return [{ revision, phase: { phase: bypassed, message } }];
  });
}

/** Where the target stands and what the workloads say: the pass's status, and the revision that serves. */
export function targetOutcome(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  image: TargetImage,
  current: CurrentWorkloads,
  previousActive: RevisionRecord | undefined,
  canary?: CanaryDecision,
): { status: PassStatus; active: RevisionRecord | undefined } {
  const spec: DeploymentSpecInput = deployment.spec;
  const { target, latest } = chosen;
  const names = childNames(owner.name);
  const backing = backingServices(spec);
  const application = current.get(workloadKey('Deployment', names.application)) as V1Deployment | undefined;
  const queueWorker = current.get(workloadKey('Deployment', names.queueWorker)) as V1Deployment | undefined;
  const activated = scaleToZeroOf(pass.options, deployment) === 'activated';
  const decided = canary && image.serving && canaryTargetPhase(canary, image.serving.image);
  const podsSay = revisionPodsSay(podsOfRevision(pass.informers.pods, owner.namespace, target.name, 'workload'));
  const phase = withBackupName(
    decided ??
      targetPhase({
        revisionName: target.name,
        source: target.object.spec.source,
        ...optional('knownImage', image.knownImage),
        buildImage: image.buildImage,
        ...optional('recordedPhase', target.object.status?.status),
        serving: previousActive?.name === target.name,
        build: image.build,
        ...optional('preDeploy', image.preDeploy),
        // An app that scales to zero is not DEPLOYED before a pod of the revision is available (the
        // ScaledObject holds one while the revision is new: render/scale-to-zero.ts).
        rollout: rolloutOf(application, previousActive?.name !== target.name && activated ? 1 : 0),
        ...podsSay,
        ...optional('interruptedAt', interruptionOf(target.object)),
        ...optional('reusedBuildKey', image.reusedBuildKey),
        ...optional('backup', image.backup),
      }),
    image.backup,
  );
  const active = phase.phase === 'DEPLOYED' ? target : previousActive;
  const databaseReady =
    backing.database && databaseServes(pass.informers, owner, databaseEngineFor(pass.informers, pass.options.databaseEngine, owner));
  const service = pass.informers.services.get(owner.namespace, names.application);
  const appUrls = pass.options.appUrls;
  const status: PassStatus = {
    deployment,
    observation: {
      ...workloadsObservation({
        spec,
        hasDatabase: backing.database,
        databaseReady,
        application,
        queueWorker,
        targetName: target.name,
        activated,
      }),
      deleting: false,
      target: phase,
      targetIsActive: active?.name === target.name,
      ...optional('pathBlocked', pathBlocked(pass.informers, pass.options, deployment, application)),
      ...optional('crashLooping', crashLoopOf(phase, podsSay.podProblem)),
    },
    facts: {
      latest: namedRevision(latest),
      ...optional('active', active && namedRevision(active)),
      ...optional('url', applicationUrl(spec, service, appUrls && appUrl(appUrls, owner.name, owner.namespace))),
      ...optional('clusterUrl', clusterUrl(service)),
      ...optional('scaling', scalingStatus(pass.informers.autoscalers.get(owner.namespace, names.application))),
      ...optional('canary', canary?.status),
      ...clusterFacts(pass, deployment),
      ...optional('rollback', chosen.pinned ? rollbackOf(pass, deployment, chosen) : undefined),
    },
    revisionPhases: [{ revision: target, phase }, ...bypassedPhases(chosen)],
  };
  return { status, active };
}

/** What the workloads say about the Deployment's status: its database, its scale, its rollout. */
function workloadsObservation(input: {
  spec: DeploymentSpecInput;
  hasDatabase: boolean;
  databaseReady: boolean;
  application: V1Deployment | undefined;
  queueWorker: V1Deployment | undefined;
  targetName: string;
  /** The app scales to zero when idle (tier.ts): at zero replicas it is idle, not unavailable. */
  activated: boolean;
}): Pick<StatusObservation, 'database' | 'scaledToZero' | 'idle' | 'workloadsAvailable' | 'workloadsRolledOut'> {
  const { application, queueWorker } = input;
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  const queueScaledToZero = scaling(resources.queueMinScale, resources.queueMaxScale).kind === 'scaledToZero';
  const appRollout = rolloutOf(application);
  return {
    database: !input.hasDatabase ? 'none' : input.databaseReady ? 'ready' : 'notReady',
    scaledToZero: scaling(resources.minScale, resources.maxScale).kind === 'scaledToZero',
    idle: input.activated && application?.spec?.replicas === 0,
    workloadsAvailable: hasAvailableReplica(application) && (!queueWorker || queueScaledToZero || hasAvailableReplica(queueWorker)),
    workloadsRolledOut:
      appRollout.complete && appRollout.revision === input.targetName && (!queueWorker || rolloutOf(queueWorker).complete),
  };
}

/** A serving revision whose pods the kubelet keeps restarting: what to say of it. */
function crashLoopOf(phase: TargetPhase, problem: PodProblem | undefined): { message: string } | undefined {
  if (phase.phase !== 'DEPLOYED' || problem?.reason !== 'CrashLoopBackOff') return undefined;
  return { message: `The revision serves, but its pods keep crashing: ${problem.message}` };
}

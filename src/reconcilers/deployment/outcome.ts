// The end of a pass: the Deployment's status (with an Event for each new reason to be stuck and each
// newly serving revision), and the phases of its Revisions. Writes only what differs.
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import {
  appUrl,
  customHostOf,
  findCondition,
  hostRefusalReasons,
  nextHostClaim,
  timestamp,
  organizationTlsNames,
  organizationWildcardHost,
  type Deployment,
  type DeploymentScaling,
  type Revision,
} from '../../api/index.ts';
import { scalingStatus } from './scaling-status.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import { bypassedPhase, hasAvailableReplica, rolloutOf, targetPhase, type TargetPhase } from './lifecycle.ts';
import { childNames } from '../../api/child-names.ts';
import { optional, type Pass } from './pass.ts';
import { podsOfRevision } from '../../workloads/revision-pods.ts';
import { revisionPodsSay } from './pods.ts';
import { backingServices, scaling } from './render/backing.ts';
import { applicationUrl, clusterUrl } from './render/application.ts';
import type { OwnerDeployment } from './render/common.ts';
import type { DeploymentSpecInput } from './render/spec.ts';
import { imageOf, type RevisionRecord } from './revision-records.ts';
import type { ChosenRevisions } from './choose-revisions.ts';
import { conditionVerdict, deploymentPhase, type Problem, type StatusObservation } from './status.ts';
import { nextDeploymentStatus, nextRevisionStatus } from './status-writer.ts';
import type { TargetImage } from './target-image.ts';
import { tierCondition, type TierCondition } from './tier.ts';
import { scaleToZeroOf } from './scale-to-zero.ts';
import { certificateCondition, type CertificateCondition } from './certificate-status.ts';
import { workloadKey, type CurrentWorkloads } from './workloads.ts';

/** The revisions and address the status names. */
export interface StatusFacts {
  latest?: RevisionRecord;
  active?: RevisionRecord;
  url?: string;
  clusterUrl?: string;
  scaling?: DeploymentScaling;
}

function tierFact(pass: Pass, deployment: DeepReadonly<Deployment>): { tier?: TierCondition } {
  const tier = tierCondition(scaleToZeroOf(pass.options, deployment));
  return tier ? { tier } : {};
}

/** With TLS for the apps' URLs, the readiness of the organization's certificate. */
function certificateFact(pass: Pass, deployment: DeepReadonly<Deployment>): { certificate?: CertificateCondition } {
  const tls = pass.options.tls;
  const organization = deployment.metadata.namespace ?? '';
  if (!tls || !pass.informers.certificates) return {};
  const names = organizationTlsNames(organization);
  const get = (name: string) => pass.informers.certificates!.get(tls.gateway.namespace, name);
  const host = customHostOf(deployment);
  return {
    certificate: certificateCondition(tls, [
      { name: names.certificate, for: organizationWildcardHost(tls, organization), object: get(names.certificate) },
      ...(host ? [{ name: names.customCertificate, for: host, object: get(names.customCertificate) }] : []),
    ]),
  };
}

export async function writeStatus(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  observation: StatusObservation,
  facts: StatusFacts,
): Promise<void> {
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
      ...(facts.clusterUrl ? { clusterUrl: facts.clusterUrl } : {}),
      ...(facts.scaling ? { scaling: facts.scaling } : {}),
      ...tierFact(pass, deployment),
      ...certificateFact(pass, deployment),
      ...optional(
        'hostClaim',
        nextHostClaim(
          previous?.customHostClaim,
          customHostOf(deployment),
          hostRefusalReasons.has(observation.problem?.reason ?? ''),
          timestamp(pass.options.now()),
        ),
      ),
    },
    pass.options.now(),
  );
  if (next === previous) return;
  await pass.writer.status<Deployment>(deployment, next);
  // An Event for each new reason to be stuck, not for each reconcile that sees the same one.
  const wasStalled = findCondition(previous?.conditions, 'Stalled');
  if (verdict.state === 'stalled' && !(wasStalled?.status === 'True' && wasStalled.reason === verdict.reason)) {
    pass.context.recorder.event(deployment, 'Warning', verdict.reason, verdict.message);
  }
  if (facts.active && facts.active.name !== previous?.activeRevisionName) {
    pass.context.recorder.event(deployment, 'Normal', 'RevisionActive', `Revision ${facts.active.name} is now serving.`);
  }
}

/** A pass that cannot act on the spec: the problem in the status, the workloads as they are. */
export async function stall(pass: Pass, deployment: DeepReadonly<Deployment>, problem: Problem, facts: StatusFacts): Promise<void> {
  const status = deployment.status;
  // Where the app answers does not change while a new spec cannot be acted on.
  const url = facts.url ?? status?.url;
  const clusterUrl = facts.clusterUrl ?? status?.clusterUrl;
  const scaling = facts.scaling ?? status?.scaling;
  await writeStatus(
    pass,
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
    { ...facts, ...(url ? { url } : {}), ...(clusterUrl ? { clusterUrl } : {}), ...(scaling ? { scaling } : {}) },
  );
}

async function recordRevisionPhase(pass: Pass, revision: RevisionRecord, update: TargetPhase): Promise<void> {
  const previous = revision.object.status as Revision['status'];
  const repoCommitSha = revision.object.spec.sourceRevisionConfig.repoCommitSha ?? update.repoCommitSha;
  const next = nextRevisionStatus(
    previous,
    { ...update, generation: revision.object.metadata.generation ?? 1, ...optional('repoCommitSha', repoCommitSha) },
    pass.options.now(),
  );
  if (next !== previous) await pass.writer.status<Revision>(revision.object, next);
}

/** Revisions the target went past are marked so (SKIPPED by a pin, INTERRUPTED by a newer choice). */
async function recordBypassed(pass: Pass, chosen: ChosenRevisions): Promise<void> {
  const { all, target, latest, pinned } = chosen;
  for (const revision of all) {
    if (revision.name === target.name) continue;
    const skippedByPin = pinned && revision.name === latest.name;
    const bypassed = bypassedPhase(revision.object.status?.status, skippedByPin);
    if (!bypassed) continue;
    const message = skippedByPin
      ? `spec.revisionName pins Revision ${target.name}.`
      : `Revision ${target.name} was chosen before this one was deployed.`;
    await recordRevisionPhase(pass, revision, { phase: bypassed, message });
  }
}

/**
 * Where the target stands, then the status and the revisions' phases, in the order that never shows a
 * reader an old phase as news:
 * - a revision turning DEPLOYED is recorded active by the Deployment first, so a failed or refused
 *   status write never leaves a DEPLOYED revision nobody serves from (the next pass decides both
 *   again), and a client that sees DEPLOYED sees it active too;
 * - any other phase is written on the revision first: one that comes back (a rollback, a config changed
 *   back) still says DEPLOYED from its last time, and a client that follows the Deployment's latest
 *   revision must not read that as the rollout it just asked for.
 * Answers the revision that serves.
 */
export async function recordOutcome(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  image: TargetImage,
  current: CurrentWorkloads,
  previousActive: RevisionRecord | undefined,
): Promise<RevisionRecord | undefined> {
  const spec: DeploymentSpecInput = deployment.spec;
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
    // An app that scales to zero is not DEPLOYED before a pod of the revision is available (the
    // ScaledObject holds one while the revision is new: render/scale-to-zero.ts).
    rollout: rolloutOf(
      application,
      previousActive?.name !== target.name && scaleToZeroOf(pass.options, deployment) === 'activated' ? 1 : 0,
    ),
    ...revisionPodsSay(podsOfRevision(pass.informers.pods, owner.namespace, target.name, 'workload')),
  });
  const deployed = phase.phase === 'DEPLOYED';
  const active = deployed ? target : previousActive;
  const postgres = backing.database ? pass.informers.statefulSets.get(owner.namespace, names.postgres) : undefined;
  const service = pass.informers.services.get(owner.namespace, names.application);
  const appUrls = pass.options.appUrls;
  if (!deployed) await recordRevisionPhase(pass, target, phase);
  await writeStatus(
    pass,
    deployment,
    {
      ...workloadsObservation({
        spec,
        hasDatabase: backing.database,
        postgres,
        application,
        queueWorker,
        targetName: target.name,
        activated: scaleToZeroOf(pass.options, deployment) === 'activated',
      }),
      deleting: false,
      target: phase,
      targetIsActive: active?.name === target.name,
    },
    {
      latest,
      ...(active ? { active } : {}),
      ...optional('url', applicationUrl(spec, service, appUrls && appUrl(appUrls, owner.name, owner.namespace))),
      ...optional('clusterUrl', clusterUrl(service)),
      ...optional('scaling', scalingStatus(pass.informers.autoscalers.get(owner.namespace, names.application))),
    },
  );
  if (deployed) await recordRevisionPhase(pass, target, phase);
  await recordBypassed(pass, chosen);
  return active;
}

/** What the workloads say about the Deployment's status: its database, its scale, its rollout. */
function workloadsObservation(input: {
  spec: DeploymentSpecInput;
  hasDatabase: boolean;
  postgres: DeepReadonly<V1StatefulSet> | undefined;
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
    database: !input.hasDatabase ? 'none' : (input.postgres?.status?.readyReplicas ?? 0) >= 1 ? 'ready' : 'notReady',
    scaledToZero: scaling(resources.minScale, resources.maxScale).kind === 'scaledToZero',
    idle: input.activated && application?.spec?.replicas === 0,
    workloadsAvailable: hasAvailableReplica(application) && (!queueWorker || queueScaledToZero || hasAvailableReplica(queueWorker)),
    workloadsRolledOut:
      appRollout.complete && appRollout.revision === input.targetName && (!queueWorker || rolloutOf(queueWorker).complete),
  };
}

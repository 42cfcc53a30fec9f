// A pass's status, decided once from what the pass saw: the Deployment's status, the Events that say
// what changed, and the phases of its Revisions, in the order they are to be written. Pure; every pass
// (a halted one, the finalizer's too) ends here, and write-status.ts writes the result: each object at
// most once per pass.
//
// The order never shows a reader an old phase as news:
// - a revision turning DEPLOYED is recorded active by the Deployment first, so a refused status write
//   never leaves a DEPLOYED revision nobody serves from (the next pass decides both again), and a client
//   that sees DEPLOYED sees it active too;
// - any other phase is written on the revision first: one that comes back (a rollback, a config changed
//   back) still says DEPLOYED from its last time, and a client that follows the Deployment's latest
//   revision must not read that as the rollout it just asked for.
import {
  customHostOf,
  findCondition,
  hostRefusalReasons,
  nextHostClaim,
  timestamp,
  type ConditionDecision,
  type Deployment,
  type DeploymentScaling,
  type DeploymentStatus,
  type Revision,
  type RevisionStatus,
} from '../../../api/index.ts';
import type { DeepReadonly, EventType } from '../../../runtime/index.ts';
import type { CanaryStatus } from '../rollout/canary.ts';
import type { TargetPhase } from '../rollout/lifecycle.ts';
import { nextDeploymentStatus, nextRevisionStatus } from './next-status.ts';
import { imageOf, type RevisionRecord } from '../revisions/revision-records.ts';
import { conditionVerdict, crashLooping, deploymentPhase, type StatusObservation } from './status.ts';
import { optional } from '../../../runtime/index.ts';
import { databaseConnectionsCondition } from './database-connections.ts';
import { databaseArchivingCondition } from './database-archive-status.ts';
import { rollbackCrossesMigrationCondition } from './rollback-status.ts';

/** A revision as the status names it. */
export interface NamedRevision {
  name: string;
  uid: string;
  /** The image it runs (only the active revision's is recorded). */
  image?: string;
}

/** The revision as the status names it. */
export function namedRevision(revision: RevisionRecord): NamedRevision {
  return { name: revision.name, uid: revision.uid, ...optional('image', imageOf(revision.object)) };
}

/** The revisions and address the status names, and what the cluster says beside the verdict. */
export interface StatusFacts {
  latest?: NamedRevision;
  active?: NamedRevision;
  url?: string;
  clusterUrl?: string;
  scaling?: DeploymentScaling;
  tier?: ConditionDecision;
  certificate?: ConditionDecision;
  /** Where the target's canary stands, while it has one. */
  canary?: CanaryStatus;
  /** Whether a canary the spec asks for can run here. */
  canaryCondition?: ConditionDecision;
  /** Whether a durable agent server's database admits all its pods may open (database-connections.ts). */
  connections?: ConditionDecision;
  /** How a CloudNativePG database's WAL archive goes, where Berth gives it one (database-archive-status.ts). */
  archiving?: ConditionDecision;
  /** A rollback past a revision that migrated the database (rollback-status.ts). */
  rollback?: ConditionDecision;
}

/** Everything a pass says about status. */
export interface PassStatus {
  /** The object the pass decided from: the status write is refused when it has changed since. */
  deployment: DeepReadonly<Deployment>;
  observation: StatusObservation;
  facts: StatusFacts;
  /** The phase each revision reached in this pass: the target's, and those it went past. */
  revisionPhases: { revision: RevisionRecord; phase: TargetPhase }[];
}

export interface StatusEvent {
  type: EventType;
  reason: string;
  message: string;
}

/** One status to write: the Deployment's (with the Events it brings) or a Revision's. */
export type StatusWrite =
  | { kind: 'Deployment'; object: DeepReadonly<Deployment>; status: DeploymentStatus; events: StatusEvent[] }
  | { kind: 'Revision'; object: DeepReadonly<Revision>; status: RevisionStatus };

export interface StatusDecision {
  /** The statuses that differ from the stored ones, in the order to write them. */
  writes: StatusWrite[];
}

export function decideStatus(pass: PassStatus, now: Date): StatusDecision {
  const { deployment, observation, facts } = pass;
  const generation = deployment.metadata.generation ?? 0;
  const verdict = conditionVerdict(observation);
  const previous = deployment.status as DeploymentStatus | undefined;
  const next = nextDeploymentStatus(
    previous,
    {
      phase: deploymentPhase(observation),
      verdict,
      generation,
      ...(facts.latest ? { latest: { name: facts.latest.name, uid: facts.latest.uid } } : {}),
      ...optional('active', facts.active),
      ...optional('url', facts.url),
      ...optional('clusterUrl', facts.clusterUrl),
      ...optional('scaling', facts.scaling),
      ...optional('tier', facts.tier),
      ...optional('certificate', facts.certificate),
      ...optional('canary', facts.canary),
      ...optional('canaryCondition', facts.canaryCondition),
      ...optional('connections', facts.connections),
      ...optional('archiving', facts.archiving),
      ...optional('rollback', facts.rollback),
      // A Deployment on its way out holds no host.
      ...optional(
        'hostClaim',
        observation.deleting
          ? undefined
          : nextHostClaim(
              previous?.customHostClaim,
              customHostOf(deployment),
              hostRefusalReasons.has(observation.problem?.reason ?? ''),
              timestamp(now),
            ),
      ),
    },
    now,
  );
  const revisions = revisionWrites(pass.revisionPhases, now);
  const deployed = (write: StatusWrite) => write.status.status === 'DEPLOYED';
  return {
    writes: [
      ...revisions.filter((write) => !deployed(write)),
      ...(next === previous
        ? []
        : [{ kind: 'Deployment' as const, object: deployment, status: next, events: newsOf(previous, next, observation, verdict) }]),
      ...revisions.filter(deployed),
    ],
  };
}

/** An Event for each new reason to be stuck (not for each pass that sees the same one), a serving revision
 * whose pods start crashing, a newly serving revision, and the start of a deletion. */
function newsOf(
  previous: DeploymentStatus | undefined,
  next: DeploymentStatus,
  observation: StatusObservation,
  verdict: ReturnType<typeof conditionVerdict>,
): StatusEvent[] {
  const events: StatusEvent[] = [];
  const wasStalled = findCondition(previous?.conditions, 'Stalled');
  if (verdict.state === 'stalled' && !(wasStalled?.status === 'True' && wasStalled.reason === verdict.reason))
    events.push({ type: 'Warning', reason: verdict.reason, message: verdict.message });
  const wasReady = findCondition(previous?.conditions, 'Ready');
  if (verdict.reason === crashLooping && wasReady?.reason !== crashLooping)
    events.push({ type: 'Warning', reason: crashLooping, message: verdict.message });
  events.push(...canaryNews(previous?.canary, next.canary));
  events.push(...newlyFalse(previous, next, databaseConnectionsCondition));
  events.push(...newlyFalse(previous, next, databaseArchivingCondition));
  events.push(...newlyTrue(previous, next, rollbackCrossesMigrationCondition));
  if (next.activeRevisionName && next.activeRevisionName !== previous?.activeRevisionName)
    events.push({ type: 'Normal', reason: 'RevisionActive', message: `Revision ${next.activeRevisionName} is now serving.` });
  if (observation.deleting && previous?.status !== 'AWAITING_DELETE')
    events.push({ type: 'Normal', reason: 'Deleting', message: 'Removing the workloads, revisions and build Jobs of this Deployment.' });
  return events;
}

/** A Warning when a side condition turns False, or False for a new reason. */
function newlyFalse(previous: DeploymentStatus | undefined, next: DeploymentStatus, type: string): StatusEvent[] {
  const now = findCondition(next.conditions, type);
  if (now?.status !== 'False') return [];
  const before = findCondition(previous?.conditions, type);
  if (before?.status === 'False' && before.reason === now.reason) return [];
  return [{ type: 'Warning', reason: now.reason, message: now.message }];
}

/** A Warning when a side condition that warns by being True appears, or names something new. */
function newlyTrue(previous: DeploymentStatus | undefined, next: DeploymentStatus, type: string): StatusEvent[] {
  const now = findCondition(next.conditions, type);
  if (now?.status !== 'True') return [];
  const before = findCondition(previous?.conditions, type);
  if (before?.status === 'True' && before.message === now.message) return [];
  return [{ type: 'Warning', reason: now.reason, message: now.message }];
}

/** A canary's new step, and its promotion (a failure is the Stalled Warning). */
function canaryNews(previous: CanaryStatus | undefined, next: CanaryStatus | undefined): StatusEvent[] {
  if (!next) return [];
  const same = previous?.revisionName === next.revisionName;
  if (next.phase === 'Analyzing' && !(same && previous?.step === next.step))
    return [
      {
        type: 'Normal',
        reason: 'CanaryStep',
        message:
          `Revision ${next.revisionName} takes ${next.weight}% of requests (step ${next.step} of ${next.steps}). ${next.message ?? ''}`.trim(),
      },
    ];
  if (next.phase === 'Promoting' && !(same && previous?.phase === 'Promoting'))
    return [
      {
        type: 'Normal',
        reason: 'CanaryPromoted',
        message: `Revision ${next.revisionName} passed every step. ${next.message ?? ''}`.trim(),
      },
    ];
  return [];
}

function revisionWrites(phases: PassStatus['revisionPhases'], now: Date): StatusWrite[] {
  return phases.flatMap(({ revision, phase }) => {
    const previous = revision.object.status as RevisionStatus | undefined;
    const repoCommitSha = revision.object.spec.sourceRevisionConfig.repoCommitSha ?? phase.repoCommitSha;
    const next = nextRevisionStatus(
      previous,
      { ...phase, generation: revision.object.metadata.generation ?? 1, ...optional('repoCommitSha', repoCommitSha) },
      now,
    );
    return next === previous ? [] : [{ kind: 'Revision' as const, object: revision.object, status: next }];
  });
}

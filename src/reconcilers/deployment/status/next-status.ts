// Turns a decision into the status object to store, keeping the stored one (timestamps and all) when
// nothing but timestamps would change, so an unchanged world causes no status write. Pure.
import {
  statusesEqual,
  markVerdict,
  scaleToZeroCondition,
  setCondition,
  timestamp,
  type Condition,
  type ConditionDecision,
  type ConditionUpdate,
  type DeploymentScaling,
  type DeploymentStatus,
  type RecordedHostClaim,
  type RevisionStatus,
  type Verdict,
} from '../../../api/index.ts';
import type { TargetPhase } from '../rollout/lifecycle.ts';
import type { DeploymentPhase } from './status.ts';
import { certificateReadyCondition } from './certificate-status.ts';
import { canaryConditionType } from '../rollout/canary.ts';
import { databaseConnectionsCondition } from './database-connections.ts';
import { rollbackCrossesMigrationCondition } from './rollback-status.ts';
import { databaseArchivingCondition } from './database-archive-status.ts';
import { optional } from '../../../runtime/index.ts';

export interface DeploymentFacts {
  phase: DeploymentPhase;
  verdict: Verdict;
  generation: number;
  latest?: { name: string; uid: string };
  active?: { name: string; uid: string; image?: string };
  /** Where the application answers. */
  url?: string;
  /** The application Service's address inside the cluster. */
  clusterUrl?: string;
  /** What the application's autoscaler is doing (scaling-status.ts). */
  scaling?: DeploymentScaling;
  /** What the tier says about this cluster (tier.ts); its absence removes an earlier one. */
  tier?: ConditionDecision;
  /** Where the URL is https://: its certificate's readiness (certificate-status.ts); likewise. */
  certificate?: ConditionDecision;
  /** The custom URL host it holds, and since when (custom-hosts.ts). */
  hostClaim?: RecordedHostClaim;
  /** Where the target's canary stands (canary.ts). */
  canary?: DeploymentStatus['canary'];
  /** Whether a canary the spec asks for can run here (canary.ts); likewise. */
  canaryCondition?: ConditionDecision;
  /** Whether a durable agent server's database admits all its pods may open (database-connections.ts); likewise. */
  connections?: ConditionDecision;
  /** How a CloudNativePG database's WAL archive goes (database-archive-status.ts); likewise. */
  archiving?: ConditionDecision;
  /** A rollback past a revision that migrated the database (rollback-status.ts); likewise. */
  rollback?: ConditionDecision;
}

/** A condition beside the verdict's three, set when given and removed when not. */
function withSide(conditions: Condition[], type: string, side: ConditionUpdate | undefined, generation: number, now: Date): Condition[] {
  if (side) return setCondition(conditions, { ...side, observedGeneration: generation }, now);
  return conditions.filter((c) => c.type !== type);
}

/** The conditions beside the verdict's: each set when its fact is given, removed when not. */
function sideConditions(conditions: Condition[], facts: DeploymentFacts, now: Date): Condition[] {
  const sides: [string, ConditionUpdate | undefined][] = [
    [scaleToZeroCondition, facts.tier],
    [certificateReadyCondition, facts.certificate],
    [canaryConditionType, facts.canaryCondition],
    [databaseConnectionsCondition, facts.connections],
    [databaseArchivingCondition, facts.archiving],
    [rollbackCrossesMigrationCondition, facts.rollback],
  ];
  return sides.reduce((all, [type, side]) => withSide(all, type, side, facts.generation, now), conditions);
}

export function nextDeploymentStatus(previous: DeploymentStatus | undefined, facts: DeploymentFacts, now: Date): DeploymentStatus {
  const next: DeploymentStatus = {
    status: facts.phase,
    ...(facts.latest ? { latestRevisionName: facts.latest.name, latestRevisionId: facts.latest.uid } : {}),
    ...(facts.active ? { activeRevisionName: facts.active.name, activeRevisionId: facts.active.uid } : {}),
    ...(facts.active?.image ? { imageVersion: facts.active.image } : {}),
    ...(facts.url ? { url: facts.url } : {}),
    ...(facts.clusterUrl ? { clusterUrl: facts.clusterUrl } : {}),
    ...optional('scaling', facts.scaling),
    ...(facts.hostClaim ? { customHostClaim: { ...facts.hostClaim } } : {}),
    ...optional('canary', facts.canary),
    observedGeneration: facts.generation,
    conditions: sideConditions(markVerdict(previous?.conditions, facts.verdict, facts.generation, now), facts, now),
  };
  if (previous && statusesEqual(previous, next)) return previous;
  return { ...next, updatedAt: timestamp(now) };
}

/** Conditions of a revision: Ready once it serves, Stalled when it failed, none of them when passed
 * over, Reconciling on the way. */
function revisionVerdict(phase: string, message: string): Verdict {
  if (phase === 'DEPLOYED') return { state: 'ready', reason: 'Deployed', message };
  if (phase.endsWith('_FAILED')) return { state: 'stalled', reason: phaseReason(phase), message };
  if (phase === 'INTERRUPTED' || phase === 'SKIPPED') return { state: 'notReady', reason: phaseReason(phase), message };
  return { state: 'progressing', reason: phaseReason(phase), message };
}

/** BUILD_FAILED -> BuildFailed. */
export function phaseReason(phase: string): string {
  return phase
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

export function nextRevisionStatus(
  previous: RevisionStatus | undefined,
  update: {
    phase: TargetPhase['phase'];
    message: string;
    reason?: string;
    image?: string;
    repoCommitSha?: string;
    buildKey?: string;
    backupName?: string;
    generation: number;
  },
  now: Date,
): RevisionStatus {
  const conditions = markVerdict(previous?.conditions, revisionVerdict(update.phase, update.message), update.generation, now);
  const next: RevisionStatus = {
    status: update.phase,
    message: update.message,
    ...(update.reason ? { reason: update.reason } : {}),
    ...((update.image ?? previous?.imageUri) ? { imageUri: update.image ?? previous?.imageUri } : {}),
    ...((update.repoCommitSha ?? previous?.repoCommitSha) ? { repoCommitSha: update.repoCommitSha ?? previous?.repoCommitSha } : {}),
    ...((update.buildKey ?? previous?.buildKey) ? { buildKey: update.buildKey ?? previous?.buildKey } : {}),
    ...((update.backupName ?? previous?.backupName) ? { backupName: update.backupName ?? previous?.backupName } : {}),
    observedGeneration: update.generation,
    conditions,
  };
  return previous && statusesEqual(previous, next) ? previous : next;
}

// The Deployment's status, decided from observations. Pure: the reconciler observes, this decides, the
// reconciler writes (and only when the result differs from what is stored, ignoring timestamps).
import type { DeploymentPhase, Verdict } from '../../../api/index.ts';
import type { TargetPhase } from '../rollout/lifecycle.ts';
import { canaryAnalysisFailed } from '../rollout/canary.ts';
import type { Problem } from '../problem.ts';

export type { DeploymentPhase };

/** The Ready reason, and the Event's, of a serving revision whose pods keep crashing. */
export const crashLooping = 'CrashLooping';

export interface StatusObservation {
  deleting: boolean;
  problem?: Problem;
  /** 'none' when the Deployment has no database. */
  database: 'none' | 'ready' | 'notReady';
  scaledToZero: boolean;
  /** A dev_zero app its activator took to zero: it has no pod until its next request. */
  idle?: boolean;
  /** Every application workload has pods available: the application serves. */
  workloadsAvailable: boolean;
  /** Every application workload runs its current template with all wanted replicas updated and available. */
  workloadsRolledOut: boolean;
  /** The phase of the revision the spec asks for; absent while it cannot be determined. */
  target?: TargetPhase;
  /** The target is the revision now serving (it reached DEPLOYED). */
  targetIsActive: boolean;
  /** A relay of the app's requests surely cannot reach its pods: a NetworkPolicy admits none (network-path.ts). */
  pathBlocked?: { message: string };
  /** The revision serves, and its pods keep crashing (the kubelet's CrashLoopBackOff). */
  crashLooping?: { message: string };
}

export function deploymentPhase(o: StatusObservation): DeploymentPhase {
  if (o.deleting) return 'AWAITING_DELETE';
  if (o.scaledToZero) return 'UNUSED';
  if (o.database === 'notReady') return 'AWAITING_DATABASE';
  // The reference's phases are fixed: a URL whose requests never arrive is not READY, and UNKNOWN says so.
  if (o.pathBlocked) return 'UNKNOWN';
  if (o.workloadsAvailable || o.idle) return 'READY';
  return 'UNKNOWN';
}

/**
 * kstatus: Ready=True only when the revision the spec asks for serves and the workloads are available;
 * Stalled=True only for what will not fix itself (a missing Secret, an unknown integration, a failed
 * build or rollout); everything else is Reconciling.
 */
export function conditionVerdict(o: StatusObservation): Verdict {
  if (o.deleting) return { state: 'progressing', reason: 'Deleting', message: 'Removing the workloads before the Deployment is deleted.' };
  if (o.problem) return { state: o.problem.awaited ? 'progressing' : 'stalled', reason: o.problem.reason, message: o.problem.message };
  const target = o.target;
  if (!target) return { state: 'progressing', reason: 'Progressing', message: 'Resolving the revision to serve.' };
  switch (target.phase) {
    case 'BUILD_FAILED':
      return { state: 'stalled', reason: 'BuildFailed', message: target.message };
    case 'DEPLOY_FAILED':
      // A canary's verdict keeps its own reason: the figures it failed on are in the message.
      return { state: 'stalled', reason: target.reason === canaryAnalysisFailed ? target.reason : 'DeployFailed', message: target.message };
    case 'CREATE_FAILED':
      return { state: 'stalled', reason: 'CreateFailed', message: target.message };
    case 'QUEUED':
    case 'AWAITING_BUILD':
    case 'BUILDING':
      return { state: 'progressing', reason: 'Building', message: target.message };
    default:
      break;
  }
  if (o.database === 'notReady')
    return { state: 'progressing', reason: 'AwaitingDatabase', message: 'Waiting for the database to be ready.' };
  if (!o.targetIsActive)
    return {
      state: 'progressing',
      reason: target.phase === 'DEPLOYING' && target.reason ? target.reason : 'Deploying',
      message: target.message,
    };
  if (o.scaledToZero) return { state: 'ready', reason: 'ScaledToZero', message: 'The revision is deployed with maxScale 0: nothing runs.' };
  // Stalled: the policy will not change by itself (the watch on NetworkPolicies clears it when one does).
  if (o.pathBlocked) return { state: 'stalled', reason: 'PathBlocked', message: o.pathBlocked.message };
  // Not Ready, and not Berth's to fix: the app's own code or config crashes it (its logs say why).
  if (o.crashLooping) return { state: 'notReady', reason: crashLooping, message: o.crashLooping.message };
  if (o.idle)
    return {
      state: 'ready',
      reason: 'Idle',
      message: 'No request for a while: scaled to zero; the next request through its URL starts a pod.',
    };
  if (!o.workloadsRolledOut)
    return { state: 'progressing', reason: 'AwaitingAvailability', message: 'Waiting for the workloads to roll out and become available.' };
  return { state: 'ready', reason: 'Ready', message: 'The revision is serving and the workloads are available.' };
}

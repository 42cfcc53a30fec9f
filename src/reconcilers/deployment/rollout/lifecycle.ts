// Where a revision stands in its lifecycle (CREATING ... DEPLOYED or *_FAILED, the reference control
// plane's phases: src/api/revision.ts), read from what the cluster shows: the
// build Job of a codehost revision and the rollout of the application Deployment. Pure.
import type { V1Deployment } from '@kubernetes/client-node';
import { isBuiltSource, settledRevisionPhases, type RevisionPhase } from '../../../api/index.ts';
import { statusOnlyUpdate, type DeepReadonly } from '../../../runtime/index.ts';
import { builtImageReference, type BuildState } from '../builds/build-state.ts';
import { backingUpReason, backupGatePasses, type BackupGate } from '../builds/backup-gate.ts';
import type { PodProblem } from './pods.ts';
import { revisionLabel } from '../render/common.ts';

export interface Rollout {
  /** The revision the Deployment's pod template runs (its revision label), if the Deployment exists. */
  revision?: string;
  /**
   * The controller has seen the current template, every wanted replica is updated and available, and
   * no pod of an older template is left but terminating ones: a terminating pod is out of the Service's
   * endpoints from its deletion on, so what answers is this revision only. (Waiting for it to be gone
   * too put DEPLOYED up to its shutdown time after the moment it became true.)
   */
  complete: boolean;
  /** The rollout passed its progress deadline. */
  failed?: string;
  /** Why its pods could not be created (the apps/v1 ReplicaFailure condition): an organization's quota
   * that has no room for them, say. Not a failure: room may come (another app scaled in), so the rollout
   * waits for it, saying so, until its progress deadline. */
  blocked?: string;
}

/** `atLeast`: the replicas a rollout must make available even where the Deployment asks fewer (an app at
 * zero, whose new revision still has to show that it starts). */
export function rolloutOf(deployment: DeepReadonly<V1Deployment> | V1Deployment | undefined, atLeast = 0): Rollout {
  if (!deployment) return { complete: false };
  const revision = deployment.spec?.template?.metadata?.labels?.[revisionLabel];
  const status = deployment.status ?? {};
  const wanted = Math.max(deployment.spec?.replicas ?? 1, atLeast);
  const observed = (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 1);
  const updated = status.updatedReplicas ?? 0;
  const olderLeft = (status.replicas ?? 0) > updated;
  const complete = observed && updated >= wanted && (status.availableReplicas ?? 0) >= wanted && !olderLeft;
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  const failed =
    observed && progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded'
      ? (progressing.message ?? 'the rollout passed its progress deadline')
      : undefined;
  const replicaFailure = status.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const blocked =
    !complete && replicaFailure ? (replicaFailure.message ?? replicaFailure.reason ?? 'its pods could not be created') : undefined;
  return { ...(revision ? { revision } : {}), complete, ...(failed ? { failed } : {}), ...(blocked ? { blocked } : {}) };
}

/**
 * Whether an update of an application or queue worker Deployment can change what a pass decides: any
 * change but a status-only one, and a status-only one when it moves what passes read from that status
 * (the rollout, and whether any replica is available). The apps/v1 controller writes its status
 * several times in one rollout (the new template observed, the surge pod created, then Ready, the old
 * one going); the passes for the steps between decided the same and wrote nothing.
 */
export function workloadChangeMatters(object: DeepReadonly<V1Deployment>, previous: DeepReadonly<V1Deployment>): boolean {
  if (!statusOnlyUpdate(object, previous)) return true;
  return workloadReading(object) !== workloadReading(previous);
}

/** What passes read of a workload Deployment's status, as one comparable string. */
function workloadReading(deployment: DeepReadonly<V1Deployment>): string {
  const { revision, complete, failed, blocked } = rolloutOf(deployment);
  return JSON.stringify([revision, complete, failed, blocked, hasAvailableReplica(deployment)]);
}

/** At least one of the workload's pods is available: it serves (or works, for a queue worker). */
export function hasAvailableReplica(deployment: DeepReadonly<V1Deployment> | V1Deployment | undefined): boolean {
  return (deployment?.status?.availableReplicas ?? 0) >= 1;
}

export interface TargetObservation {
  revisionName: string;
  source: string;
  /** The image recorded on the Revision already, or the one its config names (image sources). */
  knownImage?: string;
  /** The image a successful build produces. */
  buildImage: string;
  recordedPhase?: string;
  /** The revision is the one serving now (the Deployment's active revision). */
  serving?: boolean;
  build: BuildState;
  /** The backup it waits for before it rolls out, when it migrates its database. */
  backup?: BackupGate;
  /** Where its pre-deploy command stands, when it has one to run before it rolls out. */
  preDeploy?: BuildState;
  rollout: Rollout;
  /** Why a pod of this revision will not serve, as the kubelet said it. */
  podProblem?: PodProblem;
  /** Why a pod of this revision waits for a node, as the scheduler said it. */
  podWait?: PodProblem;
  /** When it was asked to stop while on its way (interruptionOf). */
  interruptedAt?: string;
  /** The build key of the image it takes from an earlier revision instead of building (build-reuse.ts). */
  reusedBuildKey?: string;
}

export interface TargetPhase {
  phase: RevisionPhase;
  message: string;
  image?: string;
  /** Why it failed, in the words of whoever said so (ImagePullBackOff, CrashLoopBackOff, ...). */
  reason?: string;
  /** The commit a build checked out. */
  repoCommitSha?: string;
  /** What its image was built from (build-reuse.ts): its build's key, or the one whose image it reuses. */
  buildKey?: string;
  /** The DatabaseBackup taken before it, when it migrates its database. */
  backupName?: string;
}

/** The reason of a rollout whose pods wait for a node. */
export const waitingForCapacity = 'WaitingForCapacity';
/** The reason of a rollout whose pods cannot be created yet: its organization's quota has no room. */
export const waitingForQuota = 'WaitingForQuota';

/** The phase of the revision the Deployment wants to serve. */
export function targetPhase(o: TargetObservation): TargetPhase {
  if (o.interruptedAt)
    return {
      phase: 'INTERRUPTED',
      reason: 'Interrupted',
      message: `Interrupted at ${o.interruptedAt}: its build and rollout were stopped, and the revision that served before keeps serving.`,
    };
  if (!o.knownImage && isBuiltSource(o.source)) {
    const built = buildPhase(o.build, o.buildImage);
    const commit = 'commit' in o.build && o.build.commit ? { repoCommitSha: o.build.commit } : {};
    if ('phase' in built) return { ...built, ...commit };
    const key = o.build.state === 'succeeded' && o.build.buildKey ? { buildKey: o.build.buildKey } : {};
    return { ...rolloutPhase(o, built.image), ...commit, ...key };
  }
  const reused = o.reusedBuildKey ? { buildKey: o.reusedBuildKey } : {};
  return { ...rolloutPhase(o, o.knownImage), ...reused };
}

/** The target's phase with the backup taken before it named, when it has one. */
export function withBackupName(phase: TargetPhase, backup: BackupGate | undefined): TargetPhase {
  return backup ? { ...phase, backupName: backup.name } : phase;
}

/** A build's phase while it runs or when it failed, else the image it pushed. */
function buildPhase(build: BuildState, buildImage: string): Omit<TargetPhase, 'repoCommitSha' | 'buildKey'> | { image: string } {
  switch (build.state) {
    case 'absent':
      return { phase: 'AWAITING_BUILD', message: 'The build Job is being created.' };
    case 'awaiting':
      return { phase: 'AWAITING_BUILD', message: build.message, reason: build.reason };
    case 'queued':
      return { phase: 'QUEUED', message: 'The build Job is waiting to start.' };
    case 'running':
      return { phase: 'BUILDING', message: build.step ? `The build is running: step "${build.step}".` : 'The build Job is running.' };
    case 'failed':
      return {
        phase: 'BUILD_FAILED',
        message: `The build failed: ${build.message}`,
        reason: build.step ? 'BuildStepFailed' : 'BuildFailed',
      };
    case 'succeeded':
      return { image: builtImageReference(buildImage, build) };
  }
}

function rolloutPhase(o: TargetObservation, image: string | undefined): TargetPhase {
  if (!image) return { phase: 'CREATE_FAILED', message: 'The revision names no image to deploy (sourceRevisionConfig.imageUri).' };
  const gate = o.backup && backupPhase(o.backup, image);
  if (gate) return gate;
  const preDeploy = o.preDeploy && preDeployPhase(o.preDeploy, image);
  if (preDeploy) return preDeploy;
  if (o.rollout.revision !== o.revisionName)
    return { phase: 'AWAITING_DEPLOY', message: 'Waiting for the workloads to be updated.', image };
  // Once deployed, a revision stays deployed while it is served: scaling or a sourceConfig change that
  // rolls the pods again is not a new deployment of it. One that comes back after another served (a
  // rollback, a config changed back) is deployed anew.
  if (o.rollout.complete || (o.recordedPhase === 'DEPLOYED' && o.serving))
    return { phase: 'DEPLOYED', message: 'The revision is serving.', image };
  // The kubelet says so in seconds; the progress deadline only after minutes.
  if (o.podProblem)
    return { phase: 'DEPLOY_FAILED', message: `The revision cannot serve: ${o.podProblem.message}`, image, reason: o.podProblem.reason };
  const waiting = o.podWait ? `; ${o.podWait.message}` : o.rollout.blocked ? `; ${o.rollout.blocked}` : '';
  if (o.rollout.failed)
    return {
      phase: 'DEPLOY_FAILED',
      message: `The rollout failed: ${o.rollout.failed}${waiting}`,
      image,
      reason: 'ProgressDeadlineExceeded',
    };
  // No node fits yet: the previous revision keeps serving while room is waited for, until the deadline.
  if (o.podWait) return { phase: 'DEPLOYING', message: `Waiting for capacity: ${o.podWait.message}`, image, reason: waitingForCapacity };
  if (o.rollout.blocked)
    return { phase: 'DEPLOYING', message: `Waiting for room to create its pods: ${o.rollout.blocked}`, image, reason: waitingForQuota };
  return { phase: 'DEPLOYING', message: 'The workloads are rolling out.', image };
}

/** The revision's phase while the backup before it is taken or when it failed and must not; none once it passes. */
function backupPhase(gate: BackupGate, image: string): TargetPhase | undefined {
  if (backupGatePasses(gate)) return undefined;
  if (gate.phase === 'Failed')
    return {
      phase: 'DEPLOY_FAILED',
      message: `The backup before this revision (DatabaseBackup ${gate.name}) failed: ${gate.message ?? 'no reason given'}. The revision that served before keeps serving; sourceConfig.backups.beforeRevision best_effort rolls out without a backup.`,
      image,
      reason: 'BackupFailed',
    };
  return {
    phase: 'DEPLOYING',
    message: `Backing up the database before this revision migrates it: DatabaseBackup ${gate.name} is ${gate.phase}.`,
    image,
    reason: backingUpReason,
  };
}

/** The revision's phase while its pre-deploy command runs or when it failed; none once it succeeded. */
function preDeployPhase(job: BuildState, image: string): TargetPhase | undefined {
  switch (job.state) {
    case 'succeeded':
      return undefined;
    case 'failed':
      return { phase: 'DEPLOY_FAILED', message: `The pre-deploy command failed: ${job.message}`, image, reason: 'PreDeployFailed' };
    case 'running':
      return {
        phase: 'DEPLOYING',
        message:
          job.step && job.step !== 'pre-deploy'
            ? `The pre-deploy command waits for its backing services: step "${job.step}".`
            : 'The pre-deploy command is running.',
        image,
        reason: 'PreDeploy',
      };
    default:
      return { phase: 'DEPLOYING', message: 'The pre-deploy command is starting.', image, reason: 'PreDeploy' };
  }
}

/**
 * The phase of a revision that is not the target, when it must change: the latest revision while an
 * older one is pinned (a rollback) is SKIPPED; any other that stops being the target mid-way is
 * INTERRUPTED. A settled phase stays as it is. Either resumes if the revision becomes the target again.
 */
export function bypassedPhase(recorded: string | undefined, skippedByPin: boolean): RevisionPhase | undefined {
  // A settled phase (one a revision leaves only through a spec change) is kept when it stops being the target.
  if (recorded !== undefined && settledRevisionPhases.has(recorded as RevisionPhase)) return undefined;
  return skippedByPin ? 'SKIPPED' : 'INTERRUPTED';
}

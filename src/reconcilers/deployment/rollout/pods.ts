// What the pods of a revision say about it: the kubelet's reasons for a pod that will not serve (an
// image that cannot be pulled, a container that keeps crashing, a missing Secret key), read from the
// pod cache so a rollout fails in seconds with the reason instead of after the apps/v1 progress
// deadline; and the scheduler's, for a pod that waits for a node that fits. Pure, but for the cache view.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { hasRole } from '../../../workloads/revision-pods.ts';

/** Waiting reasons that do not resolve by themselves: the pod needs a new image, config or code. */
const failedWaitingReasons: ReadonlySet<string> = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PreCreateHookError',
  'PostStartHookError',
]);

export interface PodProblem {
  /** The kubelet's or the scheduler's reason, e.g. ImagePullBackOff or Unschedulable. */
  reason: string;
  /** Which pod and container, and what it said. */
  message: string;
}

type ReadonlyPod = DeepReadonly<V1Pod> | V1Pod;
type ReadonlyContainerStatus = DeepReadonly<V1ContainerStatus> | V1ContainerStatus;

function containerProblem(pod: string, status: ReadonlyContainerStatus): PodProblem | undefined {
  const waiting = status.state?.waiting;
  if (waiting?.reason && failedWaitingReasons.has(waiting.reason)) {
    if (waiting.reason === 'CrashLoopBackOff') return crashLoop(pod, status);
    const said = waiting.message ? `: ${waiting.message}` : '';
    return { reason: waiting.reason, message: `pod ${pod}, container ${status.name}: ${waiting.reason}${said}` };
  }
  // Between two back-offs the kubelet runs the container again: until it is ready, it is still the
  // loop it was (a wait for a database that ends in an error after 30 s spends that long running), and
  // so it is once that run has failed too, before the kubelet says it backs off (an init container shows
  // `Init:Error` for that while).
  if (inLoop(status) && (status.state?.running || failed(status.state?.terminated))) return crashLoop(pod, status);
  return undefined;
}

/** Whether the container is not ready and has failed before, and the kubelet has run it again since. */
function inLoop(status: ReadonlyContainerStatus): boolean {
  return !status.ready && status.restartCount > 0 && failed(status.lastState?.terminated);
}

/** Whether a run ended in a failure. */
function failed(exit: { exitCode: number } | undefined): boolean {
  return exit !== undefined && exit.exitCode !== 0;
}

/** A container that keeps failing: its last exit, and what it said as it ended (its termination
 * message, or its log's tail): a failed migration's own error. Not the kubelet's back-off, which grows
 * at each turn: the message stays the same through the loop, and so does the status that shows it. */
function crashLoop(pod: string, status: ReadonlyContainerStatus): PodProblem {
  const lastExit = status.lastState?.terminated;
  const exit = lastExit ? ` (last exit code ${lastExit.exitCode}${lastExit.reason ? `, ${lastExit.reason}` : ''})` : '';
  const last = lastExit?.message ? `\n${lastLines(lastExit.message)}` : '';
  return { reason: 'CrashLoopBackOff', message: `pod ${pod}, container ${status.name}: CrashLoopBackOff${exit}${last}` };
}

/** The last lines of what a container said, bounded: a revision's message stays readable. */
function lastLines(text: string, lines = 10, characters = 1500): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n').slice(-characters);
}

/** Why this pod will not serve without a change, if the kubelet has said so. */
export function podProblem(pod: ReadonlyPod): PodProblem | undefined {
  const name = pod.metadata?.name ?? '';
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const status of statuses) {
    const problem = containerProblem(name, status);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Why this pod waits for a node, if the scheduler has said so. Not a failure: on a cluster whose nodes
 * come and go (an autoscaler, another app scaling in) room appears by itself, so the rollout waits for
 * it until its progress deadline, saying why, as apps/v1 and Knative do.
 */
export function podWait(pod: ReadonlyPod): PodProblem | undefined {
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status !== 'False' || scheduled.reason !== 'Unschedulable') return undefined;
  return {
    reason: 'Unschedulable',
    message: `pod ${pod.metadata?.name ?? ''}: Unschedulable${scheduled.message ? `: ${scheduled.message}` : ''}`,
  };
}

/** The live pods by name, so a message is stable across reconciles. */
function liveByName(pods: readonly ReadonlyPod[]): ReadonlyPod[] {
  return pods
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

function firstOf(pods: readonly ReadonlyPod[], read: (pod: ReadonlyPod) => PodProblem | undefined): PodProblem | undefined {
  for (const pod of pods) {
    const found = read(pod);
    if (found) return found;
  }
  return undefined;
}

/** The first problem among the pods. */
export const revisionPodsProblem = (pods: readonly ReadonlyPod[]) => firstOf(liveByName(pods), podProblem);

/** What a revision's pods say: the kubelet's first problem, else the scheduler's first wait, else nothing. */
export function revisionPodsSay(pods: readonly ReadonlyPod[]): { podProblem?: PodProblem; podWait?: PodProblem } {
  const live = liveByName(pods);
  const problem = firstOf(live, podProblem);
  if (problem) return { podProblem: problem };
  const wait = firstOf(live, podWait);
  return wait ? { podWait: wait } : {};
}

/** The problem or the wait a workload pod shows while it is live, as one comparable string. */
function liveProblem(pod: ReadonlyPod): string | undefined {
  if (pod.metadata?.deletionTimestamp) return undefined;
  const problem = podProblem(pod) ?? podWait(pod);
  return problem && `${problem.reason}\n${problem.message}`;
}

/**
 * Whether a pod's update can change what a pass decides: every update of a build pod (its steps are
 * the build's progress), but of an application or queue worker pod only one that changes the problem
 * it shows (its rollout is read from its Deployment's status, not from its pods). A rollout's pods
 * turn Ready, scheduled or terminating without a pass for each.
 */
export function podChangeMatters(pod: ReadonlyPod, previous: ReadonlyPod): boolean {
  if (hasRole(pod, 'build')) return true;
  return liveProblem(pod) !== liveProblem(previous);
}

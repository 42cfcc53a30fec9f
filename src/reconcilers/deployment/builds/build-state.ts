// Where a codehost revision's build stands, read from its Job and the Job's pod: the step that runs, the
// commit the clone step checked out and the digest the image step pushed (each step's termination
// message, render/build-job.ts), or the step that failed with the last lines of its log (the kubelet's
// FallbackToLogsOnError message). Pure.
import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { buildSteps } from '../render/build-job.ts';
import { buildKeyAnnotation } from './build-reuse.ts';

export type BuildState =
  | { state: 'absent' }
  /** No Job yet, and none is started until the installation's builder is there (options.awaitedBuilder,
   * reason AwaitingBuilder) or one of the organization's builds ends (BuildQueued). */
  | { state: 'awaiting'; message: string; reason: 'AwaitingBuilder' | 'BuildQueued' }
  | { state: 'queued' }
  | { state: 'running'; step?: string; commit?: string }
  | { state: 'succeeded'; digest?: string; commit?: string; buildKey?: string }
  | { state: 'failed'; message: string; step?: string; commit?: string };

type ReadonlyJob = DeepReadonly<V1Job> | V1Job;
type ReadonlyPod = DeepReadonly<V1Pod> | V1Pod;
type ReadonlyContainerStatus = DeepReadonly<V1ContainerStatus> | V1ContainerStatus;

/** Lines of a failed step's log kept in the revision's status. */
const failedLogLines = 10;
const maxFailedLogChars = 1500;

/** Whether a build Job has ended, either way. */
export function buildEnded(job: ReadonlyJob): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export function buildState(
  job: ReadonlyJob | undefined,
  pods: readonly ReadonlyPod[] = [],
  redact: (text: string) => string = (t) => t,
): BuildState {
  if (!job) return { state: 'absent' };
  const steps = stepStatuses(newestPod(pods));
  const commit = commitOf(steps.get(buildSteps.clone));
  const withCommit = commit ? { commit } : {};
  const conditions = job.status?.conditions ?? [];
  const isTrue = (type: string) => conditions.find((c) => c.type === type && c.status === 'True');
  if (isTrue('Complete')) {
    const digest = digestOf(steps.get(buildSteps.image));
    const key = job.metadata?.annotations?.[buildKeyAnnotation];
    return { state: 'succeeded', ...(digest ? { digest } : {}), ...withCommit, ...(key ? { buildKey: key } : {}) };
  }
  const failed = isTrue('Failed') ?? isTrue('FailureTarget');
  if (failed) {
    const step = failedStep(steps);
    if (step) return { state: 'failed', step: step.name, message: redact(failedStepMessage(step)), ...withCommit };
    return {
      state: 'failed',
      message: [failed.reason, failed.message].filter(Boolean).join(': ') || 'the build Job failed',
      ...withCommit,
    };
  }
  if ((job.status?.active ?? 0) > 0) {
    const running = [...steps.values()].find((s) => s.state?.running);
    return { state: 'running', ...(running ? { step: running.name } : {}), ...withCommit };
  }
  return { state: 'queued' };
}

/** The image a successful build pushed: by digest when the image step said it. */
export function builtImageReference(tagged: string, build: BuildState): string {
  return build.state === 'succeeded' && build.digest ? `${tagged}@${build.digest}` : tagged;
}

/** The Job's latest attempt (a Job that retries keeps its failed pods). */
function newestPod(pods: readonly ReadonlyPod[]): ReadonlyPod | undefined {
  const created = (pod: ReadonlyPod) => String(pod.metadata?.creationTimestamp ?? '');
  return [...pods]
    .sort((a, b) => created(a).localeCompare(created(b)) || String(a.metadata?.name).localeCompare(String(b.metadata?.name)))
    .at(-1);
}

/** The pod's steps in the order they run: init containers, then the image step. */
function stepStatuses(pod: ReadonlyPod | undefined): Map<string, ReadonlyContainerStatus> {
  const statuses = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])];
  return new Map(statuses.map((s) => [s.name, s]));
}

function succeededMessage(status: ReadonlyContainerStatus | undefined): string | undefined {
  const terminated = status?.state?.terminated;
  return terminated && terminated.exitCode === 0 ? terminated.message?.trim() : undefined;
}

function commitOf(status: ReadonlyContainerStatus | undefined): string | undefined {
  const message = succeededMessage(status);
  return message && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(message) ? message : undefined;
}

/** The digest in BuildKit's metadata file (`buildctl build --metadata-file`), the image step's message. */
function digestOf(status: ReadonlyContainerStatus | undefined): string | undefined {
  const message = succeededMessage(status);
  if (!message) return undefined;
  try {
    const digest = (JSON.parse(message) as Record<string, unknown>)['containerimage.digest'];
    return typeof digest === 'string' && /^sha256:[0-9a-f]{64}$/.test(digest) ? digest : undefined;
  } catch {
    // Not JSON (the kubelet cuts a termination message at 4 KiB): no digest, as when it names none.
    return undefined;
  }
}

function failedStep(steps: Map<string, ReadonlyContainerStatus>): ReadonlyContainerStatus | undefined {
  return [...steps.values()].find((s) => (s.state?.terminated?.exitCode ?? 0) !== 0);
}

/** `step "commands" exited with code 2: <its last lines>`. */
function failedStepMessage(step: ReadonlyContainerStatus): string {
  const terminated = step.state?.terminated;
  const lines = (terminated?.message ?? '').trimEnd().split('\n').slice(-failedLogLines).join('\n');
  const tail = lines.length > maxFailedLogChars ? `...${lines.slice(-maxFailedLogChars)}` : lines;
  const reason = terminated?.reason && terminated.reason !== 'Error' ? ` (${terminated.reason})` : '';
  return `step "${step.name}" exited with code ${terminated?.exitCode}${reason}${tail ? `:\n${tail}` : ''}`;
}

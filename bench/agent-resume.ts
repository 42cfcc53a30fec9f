// What a run in flight pays when its pod goes, on the durable agent server (runs, their leases and
// checkpoints in the deployment's Postgres): the `steps` graph (four steps of `stepSeconds`) run
// undisturbed, against the same run whose pod is killed with no grace after its first step (the run's
// lease runs out, a live pod's reaper returns it to the queue, it goes on from its checkpoint); and a
// rollout with no run in flight against one that drains a run first. Each pair is measured in the same
// run of the bench, one after the other; every run is read until it ends, and must end `success` with
// each step once.
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { until, type PodList } from './node-steps.ts';

export interface ResumeCost {
  stepSeconds: number;
  undisturbedMs: number;
  killedMs: number;
  /** What the kill added to the run: killed - undisturbed. */
  delayMs: number;
  ratio: number;
  rolloutMs: number;
  drainedRolloutMs: number;
  /** What draining a run in flight added to the rollout: drained - plain. */
  drainAddedMs: number;
}

export interface AgentTarget {
  kc: KubeConfig;
  namespace: string;
  /** The Deployment's name: its application pods carry berth.dev/deployment=<name>. */
  deployment: string;
  url: string;
  /** Starts a rollout to a new revision (a secret's change: its build is reused); resolves when asked. */
  rollOut(mark: string): Promise<void>;
}

async function call<T>(url: string, method: string, body?: object): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

interface StartedRun {
  thread: string;
  run: string;
  startedAt: number;
}

async function startSteps(url: string, stepSeconds: number): Promise<StartedRun> {
  const { thread_id: thread } = await call<{ thread_id: string }>(`${url}/threads`, 'POST', {});
  const startedAt = performance.now();
  const { run_id: run } = await call<{ run_id: string }>(`${url}/threads/${thread}/runs`, 'POST', {
    assistant_id: 'steps',
    input: { seconds: stepSeconds },
  });
  return { thread, run, startedAt };
}

const notesOf = async (url: string, thread: string) =>
  (await call<{ values: { notes?: string[] } }>(`${url}/threads/${thread}/state`, 'GET')).values.notes ?? [];

/** Until the run ends (read every 100 ms, through whichever pod answers): its time from creation. */
async function finished(url: string, started: StartedRun, timeoutMs: number): Promise<number> {
  const status = await until(async () => {
    const { status } = await call<{ status: string }>(`${url}/threads/${started.thread}/runs/${started.run}`, 'GET');
    return ['pending', 'running'].includes(status) ? undefined : status;
  }, timeoutMs);
  const took = performance.now() - started.startedAt;
  const notes = await notesOf(url, started.thread);
  if (status !== 'success' || notes.join() !== 'step 1,step 2,step 3,step 4')
    throw new Error(`the run ended ${status} with notes ${JSON.stringify(notes)}`);
  return took;
}

async function applicationPods(target: AgentTarget): Promise<PodList['items']> {
  const selector = `berth.dev/deployment=${target.deployment},app.kubernetes.io/component=application`;
  const list = await kubeRequest<PodList>(target.kc, {
    method: 'GET',
    path: `/api/v1/namespaces/${target.namespace}/pods`,
    query: { labelSelector: selector },
  });
  return list.items;
}

const podName = (pod: PodList['items'][number]) => (pod.metadata as { name?: string }).name ?? '';

/** Until none of `old` is left and a new pod answers /ok: the rollout's end as a client sees it. */
async function onlyNewPods(target: AgentTarget, old: string[]): Promise<void> {
  await until(async () => {
    const pods = await applicationPods(target);
    if (pods.some((pod) => old.includes(podName(pod)))) return undefined;
    const ok = await fetch(`${target.url}/ok`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
    return ok?.status === 200 ? true : undefined;
  }, 600_000);
}

/** A rollout from the PATCH to its end, with a run of `stepSeconds` steps in flight or none. */
async function timedRollout(target: AgentTarget, mark: string, withRun: number | undefined): Promise<number> {
  const old = (await applicationPods(target)).map(podName);
  const run = withRun === undefined ? undefined : await startSteps(target.url, withRun);
  if (run) await until(async () => ((await notesOf(target.url, run.thread)).length >= 1 ? true : undefined), 120_000);
  const began = performance.now();
  await target.rollOut(mark);
  await onlyNewPods(target, old);
  const took = performance.now() - began;
  if (run) await finished(target.url, run, 600_000);
  return took;
}

export async function resumeCost(target: AgentTarget, stepSeconds = 3): Promise<ResumeCost> {
  const undisturbedMs = await finished(target.url, await startSteps(target.url, stepSeconds), 120_000);
  const killed = await startSteps(target.url, stepSeconds);
  await until(async () => ((await notesOf(target.url, killed.thread)).length >= 1 ? true : undefined), 120_000);
  const old = await applicationPods(target);
  for (const pod of old)
    await kubeRequest(target.kc, {
      method: 'DELETE',
      path: `/api/v1/namespaces/${target.namespace}/pods/${podName(pod)}`,
      body: { gracePeriodSeconds: 0 },
    });
  const killedMs = await finished(target.url, killed, 600_000);
  await onlyNewPods(target, old.map(podName));
  const rolloutMs = await timedRollout(target, 'plain', undefined);
  const drainedRolloutMs = await timedRollout(target, 'drained', stepSeconds);
  return {
    stepSeconds,
    undisturbedMs,
    killedMs,
    delayMs: killedMs - undisturbedMs,
    ratio: killedMs / undisturbedMs,
    rolloutMs,
    drainedRolloutMs,
    drainAddedMs: drainedRolloutMs - rolloutMs,
  };
}

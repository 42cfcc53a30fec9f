import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podChangeMatters, podProblem, podWait, revisionPodsProblem, revisionPodsSay } from './pods.ts';

const pod = (name: string, status: V1Pod['status'], deleting = false): V1Pod => ({
  metadata: { name, ...(deleting ? { deletionTimestamp: new Date(0) } : {}) },
  status,
});
const waiting = (reason: string, message?: string, extra: object = {}) => ({
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'app',
      ready: false,
      restartCount: 0,
      image: 'i',
      imageID: '',
      state: { waiting: { reason, ...(message ? { message } : {}) } },
      ...extra,
    },
  ],
});

describe('podProblem', () => {
  it.each([
    ['a pull error', waiting('ErrImagePull', 'not found'), 'ErrImagePull', 'pod p, container app: ErrImagePull: not found'],
    [
      'a pull back-off',
      waiting('ImagePullBackOff', 'Back-off pulling image "x"'),
      'ImagePullBackOff',
      'pod p, container app: ImagePullBackOff: Back-off pulling image "x"',
    ],
    [
      'a missing Secret key',
      waiting('CreateContainerConfigError', "couldn't find key K in Secret ns/s"),
      'CreateContainerConfigError',
      "pod p, container app: CreateContainerConfigError: couldn't find key K in Secret ns/s",
    ],
    [
      'a crash loop, without the back-off that grows at each turn',
      waiting('CrashLoopBackOff', 'back-off 10s', { lastState: { terminated: { exitCode: 1, reason: 'Error' } } }),
      'CrashLoopBackOff',
      'pod p, container app: CrashLoopBackOff (last exit code 1, Error)',
    ],
    [
      'a crash loop whose container said why as it ended, its last ten lines',
      waiting('CrashLoopBackOff', 'back-off 10s', {
        lastState: {
          terminated: {
            exitCode: 1,
            reason: 'Error',
            message: [
              ...Array.from({ length: 12 }, (_, i) => `line ${i}`),
              "alembic.util.exc.CommandError: Can't locate revision identified by 'f00d'",
              '',
            ].join('\n'),
          },
        },
      }),
      'CrashLoopBackOff',
      [
        'pod p, container app: CrashLoopBackOff (last exit code 1, Error)',
        ...Array.from({ length: 9 }, (_, i) => `line ${i + 3}`),
        "alembic.util.exc.CommandError: Can't locate revision identified by 'f00d'",
      ].join('\n'),
    ],
  ])('%s', (_, status, reason, message) => {
    expect(podProblem(pod('p', status as V1Pod['status']))).toEqual({ reason, message });
  });

  it('is no problem but a wait when no node fits: room may appear', () => {
    const unschedulable = pod('p', {
      phase: 'Pending',
      conditions: [
        { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available: 1 Insufficient cpu.' },
      ],
    });
    expect(podProblem(unschedulable)).toBeUndefined();
    expect(podWait(unschedulable)).toEqual({
      reason: 'Unschedulable',
      message: 'pod p: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.',
    });
    expect(podWait(pod('q', { phase: 'Pending' }))).toBeUndefined();
  });

  it.each([
    ['a container being created', waiting('ContainerCreating')],
    ['a pod not scheduled yet', { phase: 'Pending' }],
    [
      'a running pod',
      {
        phase: 'Running',
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, image: 'i', imageID: '', state: { running: {} } }],
      },
    ],
  ])('%s is no problem', (_, status) => {
    expect(podProblem(pod('p', status as V1Pod['status']))).toBeUndefined();
  });

  it('keeps a crash loop while the container runs again between two back-offs, until it is ready', () => {
    const again = (ready: boolean, exitCode: number) => ({
      phase: 'Pending',
      initContainerStatuses: [
        {
          name: 'wait',
          ready,
          restartCount: 2,
          image: 'i',
          imageID: '',
          state: { running: {} },
          lastState: { terminated: { exitCode, reason: 'Error', message: 'does not answer' } },
        },
      ],
    });
    expect(podProblem(pod('p', again(false, 1) as V1Pod['status']))).toEqual({
      reason: 'CrashLoopBackOff',
      message: 'pod p, container wait: CrashLoopBackOff (last exit code 1, Error)\ndoes not answer',
    });
    expect(podProblem(pod('p', again(true, 1) as V1Pod['status']))).toBeUndefined();
    expect(podProblem(pod('p', again(false, 0) as V1Pod['status']))).toBeUndefined();
  });

  it('keeps the same crash loop once that run has failed too, before the kubelet backs off (Init:Error)', () => {
    const ended = (exitCode: number) => ({
      phase: 'Pending',
      initContainerStatuses: [
        {
          name: 'wait',
          ready: false,
          restartCount: 5,
          image: 'i',
          imageID: '',
          state: { terminated: { exitCode, reason: exitCode ? 'Error' : 'Completed', message: 'does not answer, again' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'does not answer' } },
        },
      ],
    });
    expect(podProblem(pod('p', ended(1) as V1Pod['status']))).toEqual({
      reason: 'CrashLoopBackOff',
      message: 'pod p, container wait: CrashLoopBackOff (last exit code 1, Error)\ndoes not answer',
    });
    // A run that succeeded is the loop's end, not a turn of it.
    expect(podProblem(pod('p', ended(0) as V1Pod['status']))).toBeUndefined();
  });

  it('reads init containers too', () => {
    expect(podProblem(pod('p', { initContainerStatuses: waiting('ErrImagePull').containerStatuses } as V1Pod['status']))?.reason).toBe(
      'ErrImagePull',
    );
  });
});

describe('revisionPodsProblem', () => {
  it('reports the first failing live pod by name, ignoring pods on their way out', () => {
    const pods = [pod('c', waiting('CrashLoopBackOff')), pod('a', waiting('ErrImagePull'), true), pod('b', waiting('ImagePullBackOff'))];
    expect(revisionPodsProblem(pods)?.message).toMatch(/^pod b,/);
    expect(revisionPodsProblem([])).toBeUndefined();
  });
});

describe('revisionPodsSay', () => {
  const unschedulable = {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'no room' }],
  } as V1Pod['status'];
  it("gives the kubelet's problem over the scheduler's wait, the wait alone, or nothing", () => {
    expect(revisionPodsSay([pod('a', unschedulable), pod('b', waiting('ImagePullBackOff'))])).toEqual({
      podProblem: expect.objectContaining({ reason: 'ImagePullBackOff' }),
    });
    expect(revisionPodsSay([pod('b', unschedulable), pod('a', unschedulable, true)])).toEqual({
      podWait: { reason: 'Unschedulable', message: 'pod b: Unschedulable: no room' },
    });
    expect(revisionPodsSay([pod('a', { phase: 'Running' })])).toEqual({});
  });
});

describe('podChangeMatters', () => {
  const running = {
    phase: 'Running',
    containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: 'i', imageID: '', state: { running: {} } }],
  };
  const ready = { ...running, containerStatuses: [{ ...running.containerStatuses[0]!, ready: true }] };
  const workload = (status: object, deleting = false) => ({
    ...pod('p', status as V1Pod['status'], deleting),
    metadata: { ...pod('p', {}, deleting).metadata, labels: { 'app.kubernetes.io/component': 'application' } },
  });
  const build = (status: object) => ({
    ...pod('p', status as V1Pod['status']),
    metadata: { name: 'p', labels: { 'batch.kubernetes.io/job-name': 'j' } },
  });

  it('ignores a workload pod scheduled, started, turning Ready or going away without a problem', () => {
    expect(podChangeMatters(workload(waiting('ContainerCreating')), workload({ phase: 'Pending' }))).toBe(false);
    expect(podChangeMatters(workload(ready), workload(running))).toBe(false);
    expect(podChangeMatters(workload(ready, true), workload(ready))).toBe(false);
  });

  it('follows a workload pod whose problem appears, changes, goes, or leaves with its pod', () => {
    expect(podChangeMatters(workload(waiting('ErrImagePull', 'not found')), workload(waiting('ContainerCreating')))).toBe(true);
    expect(podChangeMatters(workload(waiting('ImagePullBackOff', 'back-off')), workload(waiting('ErrImagePull', 'not found')))).toBe(true);
    expect(podChangeMatters(workload(running), workload(waiting('ImagePullBackOff', 'back-off')))).toBe(true);
    expect(
      podChangeMatters(workload(waiting('ImagePullBackOff', 'back-off'), true), workload(waiting('ImagePullBackOff', 'back-off'))),
    ).toBe(true);
    expect(podChangeMatters(workload(waiting('ImagePullBackOff', 'back-off')), workload(waiting('ImagePullBackOff', 'back-off')))).toBe(
      false,
    );
  });

  it("follows every update of a build pod: its steps are the build's progress", () => {
    expect(podChangeMatters(build(ready), build(running))).toBe(true);
  });
});

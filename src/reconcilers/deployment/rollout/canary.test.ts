import { describe, expect, it } from 'vitest';
import type { CanaryFigures } from '../../../api/index.ts';
import {
  analysisDue,
  canaryAnalysisFailed,
  canaryCondition,
  canarySettings,
  canaryTargetPhase,
  canaryTeardownMs,
  decideCanary,
  judgeCanary,
  type CanaryObservation,
  type CanaryStatus,
} from './canary.ts';
import { canaryReplicas } from './canary-pass.ts';

const settings = canarySettings({ steps: [10, 50], pauseSeconds: 60, minRequests: 100 }, 600)!;
const start = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);

function observe(previous: CanaryStatus | undefined, seconds: number, more: Partial<CanaryObservation> = {}): CanaryObservation {
  return { settings, revisionName: 'r2', previous, ready: true, promoted: false, now: at(seconds), ...more };
}

const healthy: CanaryFigures = { requests: 400, successRatio: 1, latencyP99Seconds: 0.1, stableLatencyP99Seconds: 0.09, windowSeconds: 60 };

/** The status after each decision, fed into the next one: a canary's life pass by pass. */
function run(steps: [number, Partial<CanaryObservation>][]) {
  let previous: CanaryStatus | undefined;
  return steps.map(([seconds, more]) => {
    const decision = decideCanary(observe(previous, seconds, more));
    previous = decision.status;
    return decision;
  });
}

describe('canarySettings', () => {
  it('fills in the defaults, and an empty list of steps is no canary', () => {
    expect(canarySettings({ steps: [] }, 600)).toBeUndefined();
    expect(canarySettings(undefined, 600)).toBeUndefined();
    expect(canarySettings({ steps: [20] }, 600)).toEqual({
      steps: [20],
      pauseMs: 60_000,
      minRequests: 50,
      minSuccessRatio: 0.99,
      maxLatencyRatio: 1.5,
      deadlineMs: 600_000,
    });
  });
});

describe('judgeCanary', () => {
  it('passes healthy figures and says what it read', () => {
    expect(judgeCanary(healthy, settings)).toEqual({
      kind: 'pass',
      message: '400 requests in 60 s: 100% answered other than 5xx, p99 latency 0.1 s.',
    });
  });

  it('fails a success ratio below the threshold', () => {
    const verdict = judgeCanary({ ...healthy, successRatio: 0.8 }, settings);
    expect(verdict).toEqual({ kind: 'fail', message: '400 requests in 60 s: 80% answered other than 5xx, below the 99% required.' });
  });

  it('fails a p99 worse than the stable one by more than the ratio, and not one within the histogram noise', () => {
    expect(judgeCanary({ ...healthy, latencyP99Seconds: 1.2, stableLatencyP99Seconds: 0.3 }, settings).kind).toBe('fail');
    expect(judgeCanary({ ...healthy, latencyP99Seconds: 0.04, stableLatencyP99Seconds: 0.01 }, settings).kind).toBe('pass');
    // One bucket's step (0.1 s to 0.3 s) on a busy node: what failed a healthy revision before.
    expect(judgeCanary({ ...healthy, latencyP99Seconds: 0.2, stableLatencyP99Seconds: 0.1 }, settings).kind).toBe('pass');
    expect(judgeCanary({ ...healthy, latencyP99Seconds: 0.4, stableLatencyP99Seconds: 0.1 }, settings).kind).toBe('fail');
  });

  it('decides nothing on too few requests', () => {
    expect(judgeCanary({ ...healthy, requests: 99 }, settings).kind).toBe('inconclusive');
    expect(judgeCanary({ requests: 0, windowSeconds: 60 }, settings).kind).toBe('inconclusive');
  });
});

describe('decideCanary', () => {
  it('starts with no traffic, takes each step after its pods are ready and each pause passes, then promotes', () => {
    const [begin, waiting, first, early, second, promote, promoted] = run([
      [0, { ready: false }],
      [5, { ready: false }],
      [10, {}],
      [40, {}],
      [70, { figures: healthy }],
      [130, { figures: healthy }],
      [150, { promoted: true }],
    ]);
    expect(begin).toMatchObject({ weight: 0, promoting: false, status: { phase: 'Starting', step: 0, steps: 2 } });
    expect(waiting!.status).toBe(begin!.status);
    expect(first).toMatchObject({
      weight: 10,
      recheckMs: 60_000,
      status: { phase: 'Analyzing', step: 1, stepStartedAt: '2026-01-01T00:00:10Z' },
    });
    expect(early).toMatchObject({ weight: 10, recheckMs: 30_000 });
    expect(early!.status).toBe(first!.status);
    expect(second).toMatchObject({ weight: 50, status: { phase: 'Analyzing', step: 2, figures: healthy } });
    expect(second!.status.message).toMatch(/^Step 1 of 2 \(10%\) passed: 400 requests/);
    expect(promote).toMatchObject({ weight: 50, promoting: true, status: { phase: 'Promoting' } });
    // Once the application runs it everywhere, the canary takes nothing before it goes.
    expect(promoted).toMatchObject({ weight: 0, promoting: true, recheckMs: canaryTeardownMs });
  });

  it('sends all traffic back on a failing step, and stays failed with its figures', () => {
    const bad = { ...healthy, successRatio: 0.8 };
    const [, , failing, teardown, gone] = run([
      [0, {}],
      [1, {}],
      [61, { figures: bad }],
      [65, {}],
      [72, {}],
    ]);
    expect(failing).toMatchObject({
      weight: 0,
      promoting: false,
      failure: { reason: canaryAnalysisFailed },
      status: { phase: 'Failed', reason: canaryAnalysisFailed, figures: bad, step: 1 },
    });
    expect(failing!.failure!.message).toBe('Step 1 of 2 (10%): 400 requests in 60 s: 80% answered other than 5xx, below the 99% required.');
    expect(teardown).toMatchObject({ weight: 0, recheckMs: 6_000 });
    expect(gone).toMatchObject({ weight: undefined, failure: { reason: canaryAnalysisFailed } });
    expect(canaryTargetPhase(gone!, 'img')).toEqual({
      phase: 'DEPLOY_FAILED',
      reason: canaryAnalysisFailed,
      message: failing!.failure!.message,
      image: 'img',
    });
  });

  it('waits for enough requests until the deadline, then fails', () => {
    const few = { ...healthy, requests: 3 };
    const [, , held, failed] = run([
      [0, {}],
      [1, {}],
      [61, { figures: few }],
      [61 + 600, { figures: few }],
    ]);
    expect(held).toMatchObject({ weight: 10, recheckMs: 10_000, status: { phase: 'Analyzing', step: 1 } });
    expect(held!.status.message).toContain('fewer than the 100 a step needs');
    expect(failed).toMatchObject({ weight: 0, failure: { reason: canaryAnalysisFailed } });
    expect(failed!.failure!.message).toContain('The progress deadline passed.');
  });

  it("fails with its pods' own reason when they cannot serve", () => {
    const failure = { reason: 'CrashLoopBackOff', message: 'The revision cannot serve: back-off restarting' };
    const [, failed, later] = run([
      [0, { ready: false }],
      [5, { ready: false, failure }],
      [30, {}],
    ]);
    expect(failed).toMatchObject({ weight: 0, failure, status: { phase: 'Failed', reason: 'CrashLoopBackOff' } });
    expect(later).toMatchObject({ weight: undefined, failure });
  });

  it('starts over for a new revision', () => {
    const [, , first] = run([
      [0, {}],
      [1, {}],
      [2, { revisionName: 'r3' }],
    ]);
    expect(first).toMatchObject({ weight: 0, status: { revisionName: 'r3', phase: 'Starting' } });
  });

  it('reads figures only when a step’s pause is over', () => {
    const [, first] = run([
      [0, {}],
      [1, {}],
    ]);
    expect(analysisDue(first!.status, settings, at(60))).toBe(false);
    expect(analysisDue(first!.status, settings, at(61))).toBe(true);
  });
});

describe('canaryReplicas', () => {
  it("is the stable replicas' share at the weight, at least one", () => {
    expect(canaryReplicas(2, 10)).toBe(1);
    expect(canaryReplicas(10, 50)).toBe(5);
    expect(canaryReplicas(3, 50)).toBe(2);
  });
});

describe('canaryCondition', () => {
  it('says whether the installation can run the canary the spec asks for, and is absent when none is asked', () => {
    expect(canaryCondition(undefined)).toBeUndefined();
    expect(canaryCondition('Available')).toMatchObject({ type: 'Canary', status: 'True', reason: 'Available' });
    expect(canaryCondition('NoMetricsStore')).toMatchObject({ type: 'Canary', status: 'False', reason: 'NoMetricsStore' });
    expect(canaryCondition('NoMetricsStore')!.message).toContain('--concurrency-metrics');
  });
});

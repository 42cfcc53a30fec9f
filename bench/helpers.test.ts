// The arithmetic and parsing the tables rest on: a wrong percentile or a miscounted write would
// print a wrong verdict.
import { describe, expect, it } from 'vitest';
import { isConverged } from './convergence-watch.ts';
import { apiWrites, difference, parseMetrics, sumOf } from '../workbench/support/berth-metrics.ts';
import { parseBenchOptions } from './options.ts';
import { ownerOf } from './profile-summary.ts';
import { combineRuns } from './scenarios/reads.ts';
import { growthExponent, percentile, ratio } from './stats.ts';

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('ratio and growth', () => {
  it('divides by the baseline and refuses a zero one', () => {
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(3, 0)).toBeNaN();
  });
  it('reads linear growth as 1 and quadratic as 2', () => {
    expect(growthExponent([100, 1000], [10, 100])).toBeCloseTo(1);
    expect(growthExponent([100, 1000], [10, 1000])).toBeCloseTo(2);
    expect(growthExponent([100], [10])).toBeNaN();
  });
});

describe('metrics', () => {
  const text = [
    '# HELP berth_kube_api_requests_total Requests',
    '# TYPE berth_kube_api_requests_total counter',
    'berth_kube_api_requests_total{verb="patch",resource="deployments.apps",code="200"} 3',
    'berth_kube_api_requests_total{verb="patch",resource="deployments.apps",code="409"} 1',
    'berth_kube_api_requests_total{verb="list",resource="deployments.apps",code="200"} 5',
    'berth_kube_api_requests_total{verb="update",resource="leases.coordination.k8s.io",code="200"} 9',
    'berth_kube_api_requests_total{verb="create",resource="revisions.berth.dev",code="201"} 2',
    'berth_workqueue_depth{name="deployment"} 0',
    'berth_workqueue_depth{name="tracing-project"} 4',
  ].join('\n');

  it('counts writes by verb and resource, every code, without reads or the Lease', () => {
    expect(Object.fromEntries(apiWrites(parseMetrics(text)))).toEqual({ 'patch deployments.apps': 4, 'create revisions.berth.dev': 2 });
  });

  it('sums a series over its labels', () => {
    expect(sumOf(parseMetrics(text), 'berth_workqueue_depth')).toBe(4);
    expect(sumOf(parseMetrics(text), 'berth_workqueue_depth', { name: 'deployment' })).toBe(0);
  });

  it('subtracts an earlier reading', () => {
    const later = new Map([
      ['a', 5],
      ['b', 2],
    ]);
    expect(
      Object.fromEntries(
        difference(
          later,
          new Map([
            ['a', 5],
            ['b', 1],
          ]),
        ),
      ),
    ).toEqual({ b: 1 });
  });
});

describe('isConverged', () => {
  const deployment = (status: Record<string, unknown> | undefined, generation = 2) =>
    ({ metadata: { name: 'a', generation }, spec: {}, status }) as never;
  it('needs the latest Revision, the application and the current generation observed', () => {
    const exists = () => true;
    expect(isConverged(deployment({ latestRevisionName: 'a-1', observedGeneration: 2 }), exists, true)).toBe(true);
    expect(isConverged(deployment({ latestRevisionName: 'a-1', observedGeneration: 1 }), exists, true)).toBe(false);
    expect(isConverged(deployment({ latestRevisionName: 'a-1', observedGeneration: 2 }), () => false, true)).toBe(false);
    expect(isConverged(deployment({ latestRevisionName: 'a-1', observedGeneration: 2 }), exists, false)).toBe(false);
    expect(isConverged(deployment(undefined), exists, true)).toBe(false);
  });
});

describe('parseBenchOptions', () => {
  it('quick mode shrinks every size', () => {
    const options = parseBenchOptions(['--quick'], {});
    expect(options).toMatchObject({ quick: true, sizes: [100, 300], patches: 100, readSeconds: 5, memorySize: 1000 });
  });
  it('takes sizes from the environment, sorted', () => {
    expect(parseBenchOptions([], { BENCH_SIZES: '300,100' })).toMatchObject({ sizes: [100, 300] });
  });
  it('names the flag of a bad value', () => {
    expect(() => parseBenchOptions(['--sizes', '100,x'], {})).toThrow(/--sizes/);
    expect(() => parseBenchOptions(['--only', 'everything'], {})).toThrow(/--only: unknown scenario/);
    expect(() => parseBenchOptions(['--patches', '0'], {})).toThrow(/--patches/);
  });
});

describe('ownerOf', () => {
  it('groups profile frames by package or source folder', () => {
    expect(ownerOf('file:///home/dev/berth/node_modules/@kubernetes/client-node/dist/x.js')).toBe('@kubernetes/client-node');
    expect(ownerOf('file:///home/dev/berth/node_modules/pino/lib/tools.js')).toBe('pino');
    expect(ownerOf('file:///home/dev/berth/src/runtime/informer.ts')).toBe('src/runtime');
    expect(ownerOf('node:internal/url')).toBe('node:internal/url');
    expect(ownerOf('')).toBe('(native / idle / gc)');
  });
});

describe('combineRuns', () => {
  it('adds requests over time and keeps the worst percentiles', () => {
    const run = (total: number, duration: number, p99: number, non2xx = 0) => ({
      requests: { total, average: 0, p50: 0, p99: 0 },
      latency: { total: 0, average: 0, p50: p99 / 2, p99 },
      duration,
      non2xx,
      errors: 0,
      timeouts: 0,
    });
    expect(combineRuns([run(1000, 2, 40), run(500, 3, 90, 2)])).toEqual({ requestsPerSecond: 300, p50Ms: 45, p99Ms: 90, failures: 2 });
  });
});

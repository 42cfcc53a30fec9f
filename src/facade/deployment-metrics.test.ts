import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { deploymentMetrics, type MetricsReadings } from './deployment-metrics.ts';
import { quantityValue } from '../runtime/quantity.ts';

const pod = (ready: boolean, restarts: number, deleting = false): V1Pod => ({
  metadata: { name: 'p', ...(deleting ? { deletionTimestamp: new Date() } : {}) },
  status: {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    containerStatuses: [{ name: 'api', restartCount: restarts, ready, image: 'i', imageID: 'i' }],
  },
});

const readings = (overrides: Partial<MetricsReadings> = {}): MetricsReadings => ({
  deploymentId: 'd',
  measuredAt: new Date('2026-11-28T12:00:00Z'),
  pods: [pod(true, 1), pod(false, 2), pod(true, 5, true)],
  usage: [
    { component: 'application', cpuCores: 0.25, memoryBytes: 100 },
    { component: 'queue-worker', cpuCores: 0.1, memoryBytes: 50 },
    { component: 'postgres', cpuCores: 0.05, memoryBytes: 300 },
    { component: 'redis', cpuCores: 0.01, memoryBytes: 10 },
  ],
  database: { capacityBytes: 2 ** 30 },
  api: { requestsPerSecond: 20, errorsPerSecond: 0.5, latencyP50Seconds: 0.012, latencyP99Seconds: 0.2 },
  queue: { pending: 4, backlog: 14 },
  ...overrides,
});

describe("a deployment's figures", () => {
  it('sums its workload pods, its database apart, and its requests over the window', () => {
    expect(deploymentMetrics(readings())).toEqual({
      deployment_id: 'd',
      measured_at: '2026-11-28T12:00:00.000Z',
      // A pod on its way out counts for nothing.
      application: { replicas: 2, ready_replicas: 1, restarts: 3, cpu_cores: 0.35, memory_bytes: 150 },
      database: { cpu_cores: 0.05, memory_bytes: 300, disk_capacity_bytes: 2 ** 30 },
      api: {
        window_seconds: 300,
        requests_per_second: 20,
        success_ratio: 0.975,
        errors_per_second: 0.5,
        latency_p50_seconds: 0.012,
        latency_p99_seconds: 0.2,
      },
      queue: { pending_runs: 4, active_runs: 10 },
      unavailable: [],
    });
  });

  it('has no queue without a queue worker, and never fewer than no active runs', () => {
    expect(deploymentMetrics(readings({ queue: undefined })).queue).toBeNull();
    // The pending runs were read a moment after the backlog, and more had arrived.
    expect(deploymentMetrics(readings({ queue: { pending: 6, backlog: 5 } })).queue).toEqual({ pending_runs: 6, active_runs: 0 });
  });

  it('says what it could not read, and why, with null in its place', () => {
    const figures = deploymentMetrics(
      readings({
        usage: { unavailable: 'no metrics-server' },
        api: { unavailable: 'no store' },
        database: undefined,
        queue: { unavailable: 'no KEDA' },
      }),
    );
    expect(figures.application).toEqual({ replicas: 2, ready_replicas: 1, restarts: 3, cpu_cores: null, memory_bytes: null });
    expect(figures.database).toBeNull();
    expect(figures.api).toBeNull();
    expect(figures.queue).toBeNull();
    expect(figures.unavailable).toEqual([
      { metric: 'cpu_cores, memory_bytes', reason: 'no metrics-server' },
      { metric: 'api', reason: 'no store' },
      { metric: 'queue', reason: 'no KEDA' },
    ]);
  });

  it('has no success ratio and no latency without requests', () => {
    const idle = deploymentMetrics(
      readings({ api: { requestsPerSecond: 0, errorsPerSecond: undefined, latencyP50Seconds: undefined, latencyP99Seconds: undefined } }),
    );
    expect(idle.api).toMatchObject({ requests_per_second: 0, success_ratio: null, errors_per_second: 0, latency_p99_seconds: null });
  });
});

describe('quantities', () => {
  it("reads metrics-server's nanocores and the binary suffixes", () => {
    expect(quantityValue('123456789n')).toBeCloseTo(0.123456789);
    expect(quantityValue('250m')).toBe(0.25);
    expect(quantityValue('1Gi')).toBe(2 ** 30);
    expect(quantityValue('12345Ki')).toBe(12345 * 1024);
    expect(quantityValue('lots')).toBeUndefined();
  });
});

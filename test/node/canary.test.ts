// Canary rollouts on the node's real Gateway and metrics store: a steady client of an app's URL while a
// new revision takes each step's share of requests, judged on what the Gateway measured of it. A
// healthy revision is promoted through every step with 0 failed requests; one that answers 500 to one
// request in five is sent back at its first step, and the revision that served keeps serving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../workbench/support/poll.ts';
import { steadyClient, windowStats } from '../../workbench/support/steady-client.ts';
import type { BerthProcess } from '../support/berth-process.ts';
import { revisionReaches, type Api } from '../support/http-api.ts';
import { berthWithMetrics, componentPods, exampleImage, httpGet, kubectlOk } from './support.ts';

let berth: BerthProcess;
let api: Api;
let namespace: string;
let id: string;
let url: string;

interface CanaryView {
  revision_name: string;
  phase: string;
  step: number;
  weight: number;
  reason?: string;
  message?: string;
  figures?: { requests: number; success_ratio?: number };
}

const canaryOf = async (): Promise<CanaryView | null> => (await api.ok('GET', `/v2/deployments/${id}`)).canary;

/** Every canary state the API showed while `until` ran, in order, each once. */
async function watchCanary<T>(until: Promise<T>): Promise<{ result: T; seen: CanaryView[] }> {
  const seen: CanaryView[] = [];
  let done = false;
  const watching = (async () => {
    while (!done) {
      const canary = await canaryOf();
      const last = seen.at(-1);
      if (canary && !(last && last.phase === canary.phase && last.step === canary.step)) seen.push(canary);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  try {
    return { result: await until, seen };
  } finally {
    done = true;
    await watching;
  }
}

beforeAll(async () => {
  ({ berth, api, namespace } = await berthWithMetrics('canary'));
});

afterAll(async () => {
  await berth?.stop();
});

describe('a canary rollout through the Gateway', () => {
  it('promotes a healthy revision through every step with 0 failed requests', { timeout: 600_000 }, async () => {
    const [v1, v2] = [await exampleImage('canary-v1'), await exampleImage('canary-v2')];
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'web',
      source: 'external_docker',
      source_config: {
        resource_spec: { min_scale: 2, max_scale: 2, cpu: 0.1, memory_mb: 64 },
        health_check: { path: '/ok', period_seconds: 1 },
        // The steps and their promotion are under test here, not the latency rule (rollout/canary.test.ts
        // holds it): beside the agent server's file a two-core node runs at a load of 9 to 13, and a few
        // requests held by the scheduler put one revision's p99 in the Gateway's next bucket (0.2 s
        // against 0.1 s), more than the default 1.5 times.
        canary: { steps: [20, 50], pause_seconds: 20, min_requests: 20, max_latency_ratio: 10 },
      },
      source_revision_config: { image_uri: v1 },
    });
    id = created.id;
    // A first revision has nothing to be compared with: it rolls out as usual.
    await revisionReaches(api, id, created.latest_revision_id, ['DEPLOYED'], { timeoutMs: 120_000 });
    expect(await canaryOf()).toBeNull();
    url = (await api.ok('GET', `/v2/deployments/${id}`)).url as string;
    await eventually(async () => (await httpGet(`${url}/`).catch(() => undefined))?.status === 200, 30_000, `${url} answering`);

    // Two loops, one request each 20 ms: at most 100 requests a second, to loopback.
    const client = steadyClient(`${url}/`, {
      concurrency: 2,
      intervalMs: 20,
      accept: (status, body) => status === 200 && body.startsWith('berth-example canary-'),
    });
    const from = Date.now();
    try {
      const second = (await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: v2 } })).latest_revision_id;
      const { seen } = await watchCanary(revisionReaches(api, id, second, ['DEPLOYED', 'DEPLOY_FAILED'], { timeoutMs: 300_000 }));
      const revision = await api.ok('GET', `/v2/deployments/${id}/revisions/${second}`);
      console.error(
        `[canary] healthy: ${JSON.stringify(seen.map(({ phase, step, weight, message }) => [phase, step, weight, message]))}, ${revision.status}: ${revision.status_message}`,
      );
      expect(revision.status).toBe('DEPLOYED');
      expect(seen.map(({ phase, step, weight }) => [phase, step, weight])).toEqual(
        expect.arrayContaining([
          ['Analyzing', 1, 20],
          ['Analyzing', 2, 50],
        ]),
      );
      // The second step began on the first one's figures, read from the Gateway's metrics.
      const secondStep = seen.find((state) => state.step === 2)!;
      expect(secondStep.figures!.requests).toBeGreaterThanOrEqual(20);
      expect(secondStep.message).toMatch(/^Step 1 of 2 \(20%\) passed/);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    } finally {
      await client.stop();
    }
    const stats = windowStats(client.samples, from, Date.now());
    console.error(`[canary] healthy: ${JSON.stringify(stats)}`);
    expect(stats.requests).toBeGreaterThan(500);
    expect({ failed: stats.failed, failures: stats.failures }).toEqual({ failed: 0, failures: [] });
    // Promoted: the application runs the new revision, and the canary's pods and status are gone.
    await eventually(async () => (await canaryOf()) === null, 60_000, 'the canary status cleared');
    await eventually(async () => (await componentPods(namespace, 'web', 'canary')).length === 0, 60_000, 'the canary pods gone');
    expect((await httpGet(`${url}/`)).body).toContain('berth-example canary-v2');
  });

  it('sends all traffic back from a revision that answers 500 to one request in five', { timeout: 600_000 }, async () => {
    const active = (await api.ok('GET', `/v2/deployments/${id}`)).active_revision_id;
    const client = steadyClient(`${url}/`, {
      concurrency: 2,
      intervalMs: 20,
      accept: (status, body) => status === 200 && body.startsWith('berth-example canary-'),
    });
    const from = Date.now();
    let failedAt: number;
    try {
      // An image that starts and passes its health check, but answers 500 to every fifth request.
      const failing = await exampleImage('canary-v3-fail-every-5');
      const bad = (await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: failing } })).latest_revision_id;
      const { seen } = await watchCanary(revisionReaches(api, id, bad, ['DEPLOYED', 'DEPLOY_FAILED'], { timeoutMs: 300_000 }));
      failedAt = Date.now();
      const revision = await api.ok('GET', `/v2/deployments/${id}/revisions/${bad}`);
      console.error(`[canary] failing: ${JSON.stringify(seen.map(({ phase, step, weight }) => [phase, step, weight]))}`);
      expect(revision.status).toBe('DEPLOY_FAILED');
      expect(revision.status_message).toMatch(
        /^Step 1 of 2 \(20%\): \d+ requests in \d+ s: \d+(\.\d+)?% answered other than 5xx, below the 99% required\.$/,
      );
      // It never took more than the first step's share.
      expect(seen.every((state) => state.step <= 1)).toBe(true);
      const canary = (await canaryOf())!;
      expect(canary).toMatchObject({ phase: 'Failed', reason: 'CanaryAnalysisFailed', step: 1, weight: 0 });
      // kubectl shows the same: the canary's state, and the Stalled condition with its reason.
      const object = JSON.parse(await kubectlOk(['get', 'deployments.berth.dev', 'web', '-n', namespace, '-o', 'json'])) as {
        status: { canary: { phase: string }; conditions: { type: string; status: string; reason: string }[] };
      };
      expect(object.status.canary.phase).toBe('Failed');
      expect(object.status.conditions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'CanaryAnalysisFailed' }),
          expect.objectContaining({ type: 'Canary', status: 'True', reason: 'Available' }),
        ]),
      );
      expect(canary.figures!.success_ratio).toBeLessThan(0.9);
      expect((await api.ok('GET', `/v2/deployments/${id}`)).active_revision_id).toBe(active);
      // After the rollback, the revision that served answers every request.
      await new Promise((resolve) => setTimeout(resolve, 5000));
    } finally {
      await client.stop();
    }
    const during = windowStats(client.samples, from, failedAt);
    const after = windowStats(client.samples, failedAt + 2000, Date.now());
    console.error(`[canary] failing: during ${JSON.stringify(during)}, after ${JSON.stringify(after)}`);
    // A fifth of the first step's fifth: about 4% of the requests while it ran, none after.
    expect(during.failed).toBeGreaterThan(0);
    expect(during.failed / during.requests).toBeLessThan(0.08);
    expect(after.requests).toBeGreaterThan(50);
    expect(after.failed).toBe(0);
    await eventually(async () => (await componentPods(namespace, 'web', 'canary')).length === 0, 60_000, 'the canary pods gone');
    const events = await kubectlOk([
      'get',
      'events',
      '-n',
      namespace,
      '--field-selector',
      'involvedObject.kind=Deployment,involvedObject.name=web',
      '-o',
      'json',
    ]);
    const reasons = (JSON.parse(events) as { items: { reason: string }[] }).items.map((event) => event.reason);
    expect(reasons).toEqual(expect.arrayContaining(['CanaryStep', 'CanaryPromoted', 'CanaryAnalysisFailed']));
  });
});

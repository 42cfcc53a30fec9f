// The facade under concurrent load over real sockets: reads come from the informer cache, so many
// clients at once get only 2xx answers, and bad input keeps answering 4xx, never a 5xx. The numbers are
// printed for the record; nothing here asserts on timing.
import { createRequire } from 'node:module';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { group, version } from '../src/api/index.ts';
import { testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type TestFacade } from './support/facade.ts';

interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
}) => Promise<LoadResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const custom = testKubeConfig().makeApiClient(CustomObjectsApi);
let t: TestFacade;
let deploymentId: string;

beforeAll(async () => {
  t = await startTestFacade({ observeTimeoutMs: 200 });
  for (let i = 0; i < 50; i++) {
    const created = (await custom.createNamespacedCustomObject({
      group,
      version,
      namespace: t.org.namespace,
      plural: 'deployments',
      body: {
        apiVersion: `${group}/${version}`,
        kind: 'Deployment',
        metadata: { name: `load-${i}` },
        spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx' } },
      },
    })) as { metadata: { uid: string } };
    deploymentId = created.metadata.uid;
  }
  for (;;) {
    if ((await t.call('GET', `/v2/deployments/${deploymentId}`)).status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
});

function report(what: string, result: LoadResult): void {
  console.error(
    `${what}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.requests.total} requests`,
  );
}

describe('under load', () => {
  it('answers reads of one deployment with 200 only', async () => {
    const result = await autocannon({
      url: `${t.url}/v2/deployments/${deploymentId}`,
      headers: { 'x-api-key': t.org.key },
      connections: 20,
      duration: 3,
    });
    report('GET /v2/deployments/{id}', result);
    expect(result.requests.total).toBeGreaterThan(0);
    expect({ errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx }).toEqual({ errors: 0, timeouts: 0, non2xx: 0 });
  });

  it('answers list pages with 200 only', async () => {
    const result = await autocannon({
      url: `${t.url}/v2/deployments?limit=50`,
      headers: { 'x-api-key': t.org.key },
      connections: 20,
      duration: 3,
    });
    report('GET /v2/deployments?limit=50', result);
    expect({ errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx }).toEqual({ errors: 0, timeouts: 0, non2xx: 0 });
  });

  it('answers a flood of invalid PATCHes with 422 only', async () => {
    const result = await autocannon({
      url: `${t.url}/v2/deployments/${deploymentId}`,
      method: 'PATCH',
      headers: { 'x-api-key': t.org.key, 'content-type': 'application/json' },
      body: JSON.stringify({ source_config: { resource_spec: { min_scale: 'many' } } }),
      connections: 20,
      duration: 3,
    });
    report('PATCH with an invalid body', result);
    expect(Object.keys(result.statusCodeStats)).toEqual(['422']);
    expect(result.errors).toBe(0);
  });
});

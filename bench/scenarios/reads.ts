// 4. Facade reads: GET /v2/auth/providers/{id} and GET /v2/deployments/{id} at `connections` concurrent
// clients (autocannon), against the API server's own GET of the same object with the same client and
// concurrency. The facade answers from its informer cache; the API server reads through to its own.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { oauthProviderObjectName } from '../../src/api/index.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { kubeRequest } from '../../src/runtime/index.ts';
import { startBerth, type BenchContext } from '../context.ts';
import { loadAverage, ratio } from '../stats.ts';

export interface ReadRun {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

export interface ReadResult {
  object: string;
  berth: ReadRun;
  apiServer: ReadRun;
  /** Berth's requests/s over the API server's. */
  ratio: number;
  load: number;
}

type AutocannonResult = Awaited<ReturnType<typeof autocannon>>;

/** Several short runs as one: requests over time, the worst p50 and p99 (percentiles do not add). */
export function combineRuns(
  runs: ReadonlyArray<Pick<AutocannonResult, 'requests' | 'latency' | 'duration' | 'non2xx' | 'errors' | 'timeouts'>>,
): ReadRun {
  const requests = runs.reduce((sum, r) => sum + r.requests.total, 0);
  const seconds = runs.reduce((sum, r) => sum + r.duration, 0);
  return {
    requestsPerSecond: seconds > 0 ? requests / seconds : Number.NaN,
    p50Ms: Math.max(...runs.map((r) => r.latency.p50)),
    p99Ms: Math.max(...runs.map((r) => r.latency.p99)),
    failures: runs.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
  };
}

/**
 * The API server and Berth take turns in short rounds rather than one long run each, so that a
 * change in the machine's load falls on both.
 */
async function alternate(
  rounds: number,
  first: () => Promise<AutocannonResult>,
  second: () => Promise<AutocannonResult>,
): Promise<[ReadRun, ReadRun]> {
  const a: AutocannonResult[] = [];
  const b: AutocannonResult[] = [];
  for (let round = 0; round < rounds; round++) {
    a.push(await first());
    b.push(await second());
  }
  return [combineRuns(a), combineRuns(b)];
}

export async function reads(context: BenchContext, namespace: string, deploymentName: string): Promise<ReadResult[]> {
  const { cluster, options } = context;
  const kc = cluster.kubeConfig;
  const organizationId = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, organizationId);
  const { key } = await ensureApiKey(kc, context.operatorNamespace, [organizationId]);
  const berth = await startBerth(context, [namespace], ['controller', 'facade'], 'reads');
  try {
    const facade = berth.facadeUrl!;
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const providerId = 'bench-provider';
    const created = await fetch(`${facade}/v2/auth/providers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        provider_id: providerId,
        name: 'Bench',
        client_id: 'bench-client',
        auth_url: 'https://auth.example.com/authorize',
        token_url: 'https://auth.example.com/token',
      }),
    });
    if (created.status !== 200) throw new Error(`creating the provider answered ${created.status}: ${await created.text()}`);
    const deployment = await kubeRequest<{ metadata: { uid: string } }>(kc, {
      method: 'GET',
      path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${deploymentName}`,
    });
    const user = kc.getCurrentUser()!;
    const cluster = kc.getCurrentCluster()!;
    const tlsOptions = {
      cert: Buffer.from(user.certData!, 'base64'),
      key: Buffer.from(user.keyData!, 'base64'),
      ...(cluster.caData ? { ca: Buffer.from(cluster.caData, 'base64') } : {}),
    };
    const targets = [
      {
        object: 'OAuth provider',
        facadePath: `/v2/auth/providers/${providerId}`,
        apiPath: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/oauthproviders/${oauthProviderObjectName(providerId)}`,
      },
      {
        object: 'Deployment',
        facadePath: `/v2/deployments/${deployment.metadata.uid}`,
        apiPath: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${deploymentName}`,
      },
    ];
    const results: ReadResult[] = [];
    for (const target of targets) {
      const probe = await fetch(`${facade}${target.facadePath}`, { headers });
      if (probe.status !== 200) throw new Error(`GET ${target.facadePath} answered ${probe.status}: ${await probe.text()}`);
      context.log(`reads: ${target.object}, ${options.connections} connections, ${options.readSeconds} s each`);
      const rounds = Math.max(1, Math.round(options.readSeconds / 2.5));
      const common = { connections: options.connections, duration: options.readSeconds / rounds };
      const [apiServer, viaBerth] = await alternate(
        rounds,
        () => autocannon({ ...common, url: `${cluster.server}${target.apiPath}`, tlsOptions }),
        () => autocannon({ ...common, url: `${facade}${target.facadePath}`, headers: { 'x-api-key': key } }),
      );
      results.push({
        object: target.object,
        berth: viaBerth,
        apiServer,
        ratio: ratio(viaBerth.requestsPerSecond, apiServer.requestsPerSecond),
        load: loadAverage(),
      });
    }
    return results;
  } finally {
    await berth.stop();
  }
}

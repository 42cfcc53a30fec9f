// dev_zero scales to zero on the real node, and the request that wakes it is answered: Berth, given the
// node's activator (KEDA's HTTP add-on, built here, its interceptor and scaler in pods), routes a dev_zero
// app's URL to the interceptor and writes the add-on's InterceptorRoute and the KEDA ScaledObject that
// scales the app from zero. An app an earlier Berth gave the add-on's HTTPScaledObject moves to an
// InterceptorRoute without losing its URL. Once idle the app has no pod; a request through the Gateway
// (loopback) then waits while one starts, and gets the app's answer. No pod reaches the interceptor or
// the scaler. All of it under `npm start`'s default organization policy, whose NetworkPolicy admits the
// interceptor's namespace because Berth routes through it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { nodeActivator } from '../../workbench/node/http-add-on.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { fieldManager } from '../../src/api/group.ts';
import { hardenedOrganizationPolicy } from '../../src/api/organization-policy.ts';
import { applyObject, kubeRequest, type KubeObject } from '../../src/runtime/index.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { autoscalerOf, readyReplicasOf } from '../../workbench/support/scaling.ts';
import { apply, exampleImage, examplePod, gatewayFlags, httpGet, namespaceAdmin, waitForReadyPod } from './support.ts';

const kc = testKubeConfig();
let berth: BerthProcess;
let api: Api;
let namespace: string;
const proxy = nodeActivator.proxy;

let berthArgs: string[];
let apiKey: string;

/** Starts Berth (again) and points the HTTP API client at it. */
async function startBerth(): Promise<void> {
  berth = spawnBerth(inject('kubeconfigPath'), berthArgs);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': apiKey });
}

beforeAll(async () => {
  const operatorNamespace = await useNamespace('berth-zero-op');
  namespace = await useNamespace('zero');
  const org = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, org);
  berthArgs = [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    ...gatewayFlags(),
    '--activator-proxy',
    `${proxy.namespace}/${proxy.name}:${proxy.port}`,
    '--activator-scaler',
    nodeActivator.scalerAddress,
    // The installation's idle time, short: the tests that wait for zero wait 20 s, not the default 60.
    '--activator-idle-seconds',
    '20',
    // As `npm start` runs: the quota, the LimitRange and the NetworkPolicy that admits only the
    // organization's own namespace and what Berth routes through.
    '--organization-policy',
    JSON.stringify(hardenedOrganizationPolicy),
  ];
  apiKey = (await ensureApiKey(kc, operatorNamespace, [org])).key;
  await startBerth();
});

afterAll(async () => {
  await berth?.stop();
});

interface Condition {
  type: string;
  status: string;
  reason?: string;
}

const get = <T>(path: string) => kubeRequest<T>(kc, { method: 'GET', path }).catch(() => undefined);
const berthDeployment = (name: string) =>
  get<{ status?: { status?: string; conditions?: Condition[] } }>(`/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${name}`);
const grant = () =>
  get<object>(`/apis/gateway.networking.k8s.io/v1beta1/namespaces/${proxy.namespace}/referencegrants/berth-routes-${namespace}`);
const interceptorRoute = () =>
  get<KubeObject & { spec: Record<string, unknown> }>(`/apis/http.keda.sh/v1beta1/namespaces/${namespace}/interceptorroutes/sleepy`);
const scaledObject = () =>
  get<{ spec: { minReplicaCount: number; triggers: { type: string; metadata: Record<string, string> }[] } }>(
    `/apis/keda.sh/v1alpha1/namespaces/${namespace}/scaledobjects/sleepy`,
  );
const condition = async (name: string, type: string) => (await berthDeployment(name))?.status?.conditions?.find((c) => c.type === type);

describe('a dev_zero app on a node with an activator', () => {
  let id: string;
  let url: string;
  let others: string[] = [];

  it('serves at its URL through the activator, with its InterceptorRoute, ScaledObject and grant', { timeout: 240_000 }, async () => {
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'sleepy',
      source: 'external_docker',
      source_config: {
        deployment_type: 'dev_zero',
        resource_spec: { min_scale: 1, max_scale: 2, cpu: 0.1, memory_mb: 64 },
        health_check: { path: '/ok', period_seconds: 1 },
      },
      source_revision_config: { image_uri: await exampleImage('zero-v1') },
    });
    id = created.id;
    await revisionReaches(api, id, created.latest_revision_id, ['DEPLOYED'], { timeoutMs: 120_000 });
    url = (await api.ok('GET', `/v2/deployments/${id}`)).url as string;
    // Through the interceptor's pods in their own namespace, which the organization's policy admits.
    const policy = await get<{ spec: { ingress: { from: object[] }[] } }>(
      `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies/berth-organization`,
    );
    expect(policy?.spec.ingress[0]!.from).toContainEqual({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': proxy.namespace } },
    });
    await eventually(async () => (await httpGet(`${url}/ok`).catch(() => undefined))?.status === 200, 60_000, `${url} answering`);

    expect(await condition('sleepy', 'ScaleToZero')).toMatchObject({
      status: 'True',
      reason: 'Activated',
      message: expect.stringContaining('after 20 s without a request'),
    });
    const route = await get<{ spec: { rules: { backendRefs: object[] }[] } }>(
      `/apis/gateway.networking.k8s.io/v1/namespaces/${namespace}/httproutes/sleepy`,
    );
    expect(route?.spec.rules[0]!.backendRefs).toEqual([
      expect.objectContaining({ namespace: proxy.namespace, name: proxy.name, port: proxy.port }),
    ]);
    expect((await interceptorRoute())?.spec).toMatchObject({
      target: { service: 'sleepy', port: 80 },
      rules: [{ hosts: [new URL(url).hostname], paths: [{ value: '/' }] }],
    });
    // One pod for its idle window once DEPLOYED (rollout/keep-awake.ts), then none until a request asks.
    const scaler = await eventually(
      async () => ((await scaledObject())?.spec.minReplicaCount === 0 ? scaledObject() : undefined),
      90_000,
      'minReplicaCount 0 once the idle window after DEPLOYED has passed',
    );
    expect(scaler?.spec.triggers).toEqual([
      expect.objectContaining({
        type: 'external-push',
        metadata: { scalerAddress: nodeActivator.scalerAddress, interceptorRoute: 'sleepy' },
      }),
    ]);
    expect(await grant()).toBeDefined();
  });

  it(
    'moves an app an earlier Berth gave an HTTPScaledObject to an InterceptorRoute, answering at its URL throughout',
    { timeout: 240_000 },
    async () => {
      // What the previous release left: the add-on's HTTPScaledObject, Berth's own, and a ScaledObject on it.
      await berth.stop();
      try {
        const route = (await interceptorRoute())!;
        const { labels, ownerReferences } = route.metadata!;
        const legacy = {
          apiVersion: 'http.keda.sh/v1alpha1',
          kind: 'HTTPScaledObject',
          metadata: { name: 'sleepy', namespace, labels, ownerReferences },
          spec: {
            hosts: [new URL(url).hostname],
            pathPrefixes: ['/'],
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'sleepy', service: 'sleepy', port: 80 },
            replicas: { min: 0, max: 2 },
            scaledownPeriod: 60,
            scalingMetric: { concurrency: { targetValue: 10 } },
          },
        };
        await applyObject(kc, legacy as KubeObject, fieldManager);
        await kubeRequest(kc, { method: 'DELETE', path: `/apis/http.keda.sh/v1beta1/namespaces/${namespace}/interceptorroutes/sleepy` });
        const scaler = (await scaledObject())!;
        const trigger = {
          ...scaler.spec.triggers[0]!,
          metadata: { scalerAddress: nodeActivator.scalerAddress, httpScaledObject: 'sleepy' },
        };
        // The whole spec, as the previous release applied it under the same field manager.
        await applyObject(
          kc,
          {
            apiVersion: 'keda.sh/v1alpha1',
            kind: 'ScaledObject',
            metadata: { name: 'sleepy', namespace },
            spec: { ...scaler.spec, triggers: [trigger] },
          } as KubeObject,
          fieldManager,
        );
        await eventually(async () => !(await interceptorRoute()), 30_000, 'the InterceptorRoute gone');
        // The interceptor routes the HTTPScaledObject it still serves.
        await eventually(
          async () => (await httpGet(`${url}/ok`).catch(() => undefined))?.status === 200,
          60_000,
          'routed by the HTTPScaledObject',
        );
      } finally {
        await startBerth();
      }
      await eventually(
        async () =>
          !!(await interceptorRoute()) &&
          !(await get<object>(`/apis/http.keda.sh/v1alpha1/namespaces/${namespace}/httpscaledobjects/sleepy`)) &&
          (await scaledObject())?.spec.triggers[0]?.metadata.interceptorRoute === 'sleepy',
        60_000,
        'the InterceptorRoute back, the HTTPScaledObject pruned, the trigger on the route',
      );
      expect((await scaledObject())?.spec.triggers[0]?.metadata).toEqual({
        scalerAddress: nodeActivator.scalerAddress,
        interceptorRoute: 'sleepy',
      });
      expect(await grant()).toBeDefined();
      await eventually(
        async () => (await httpGet(`${url}/ok`).catch(() => undefined))?.status === 200,
        60_000,
        'routed by the InterceptorRoute',
      );
      // The next tests take it to zero and wake it on the route.
    },
  );

  it('goes to zero once idle and says so, still READY', { timeout: 300_000 }, async () => {
    const from = Date.now();
    await eventually(async () => (await readyReplicasOf(kc, namespace, 'sleepy')) === 0, 240_000, 'no ready pod once idle');
    await eventually(async () => (await condition('sleepy', 'Ready'))?.reason === 'Idle', 30_000, 'Ready reason Idle');
    expect((await berthDeployment('sleepy'))?.status?.status).toBe('READY');
    console.error(`[scale-to-zero] idle to zero after ${Math.round((Date.now() - from) / 1000)} s of quiet`);
  });

  it('answers the requests that wake it, which wait while a pod starts', { timeout: 180_000 }, async () => {
    const from = Date.now();
    // Five clients at once: each is held by the activator, none is refused.
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const answer = await httpGet(`${url}/ok`, {}, 150_000);
        return { status: answer.status, ms: Date.now() - from };
      }),
    );
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    console.error(
      `[scale-to-zero] 5 requests after zero answered ${answers.map((a) => a.status).join(',')}, the slowest in ${(slowest / 1000).toFixed(1)} s`,
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    // The Deployment's status follows the pod the requests woke (it lags the endpoint they were sent to).
    await eventually(async () => (await readyReplicasOf(kc, namespace, 'sleepy')) >= 1, 30_000, 'a ready replica after the wake');
    await eventually(async () => (await condition('sleepy', 'Ready'))?.reason === 'Ready', 60_000, 'Ready again');
  });

  it('starts a pod of a new revision before it is DEPLOYED, even while idle', { timeout: 420_000 }, async () => {
    await eventually(async () => (await readyReplicasOf(kc, namespace, 'sleepy')) === 0, 240_000, 'idle at zero again');
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, {
      source_revision_config: { image_uri: await exampleImage('zero-v2') },
    });
    const revision = patched.latest_revision_id as string;
    await revisionReaches(api, id, revision, ['DEPLOYED'], { timeoutMs: 120_000 });
    // A pod of it ran: its deploy logs say the app listened, which no revision rolled out at zero would.
    const logs = await api.ok('GET', `/v2/deployments/${id}/revisions/${revision}/logs?type=deploy&order=asc`);
    expect((logs.logs as { message: string }[]).some((line) => line.message.includes('listening'))).toBe(true);
    // A pod of the previous revision drains for a few seconds, and the activator may still reach it over a
    // connection it pooled, or through a Service rule kube-proxy has not updated yet; then only the new
    // revision answers.
    await eventually(
      async () => (await httpGet(`${url}/`, {}, 150_000).catch(() => undefined))?.body === 'berth-example zero-v2\n',
      60_000,
      'the new revision answering',
    );
  });

  it(
    "keeps the interceptor and the scaler to the node: a team's pod reaches neither the proxy nor the admin port",
    { timeout: 240_000 },
    async () => {
      await apply(namespace, examplePod('prober', await exampleImage('zero-prober')));
      await waitForReadyPod(namespace, 'prober');
      const reach = async (url: string) => {
        const result = await kubectl(['exec', '-n', namespace, 'prober', '--', '/app', 'get', url]);
        return `${result.stdout}${result.stderr}`.trim();
      };
      const service = (name: string, port: number) => `http://${name}.${proxy.namespace}.svc.cluster.local:${port}`;
      // Reached, the proxy answers 404 for an unknown host, and the admin port lists every host it routes.
      for (const url of [`${service(proxy.name, proxy.port)}/`, `${service('keda-http-interceptor-admin', 9090)}/queue`]) {
        const answer = await reach(url);
        expect(answer, url).toMatch(/timeout|deadline exceeded|connection refused/i);
      }
      // The node still reaches the proxy: the app answers at its URL through the Gateway.
      await eventually(
        async () => (await httpGet(url).catch(() => ({ body: '' }))).body.includes('berth-example'),
        120_000,
        'the app at its URL',
      );
    },
  );

  it("lets a team that administers its namespace write none of the add-on's kinds", async () => {
    const tenant = await namespaceAdmin(namespace);
    for (const kind of ['interceptorroutes.http.keda.sh', 'httpscaledobjects.http.keda.sh'])
      expect((await kubectl(['auth', 'can-i', 'create', kind, '-n', namespace, tenant])).stdout.trim(), kind).toBe('no');
    expect(
      (
        await kubectl(['auth', 'can-i', 'create', 'referencegrants.gateway.networking.k8s.io', '-n', proxy.namespace, tenant])
      ).stdout.trim(),
    ).toBe('no');
  });

  it('keeps the grant while another app of the namespace scales to zero, whatever the apps that do not', { timeout: 300_000 }, async () => {
    const image = await exampleImage('zero-v1');
    const create = (name: string, deploymentType: string) =>
      api.ok('POST', '/v2/deployments', {
        name,
        source: 'external_docker',
        source_config: { deployment_type: deploymentType, resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 } },
        source_revision_config: { image_uri: image },
      });
    const drowsy = await create('drowsy', 'dev_zero');
    const awake = await create('awake', 'dev');
    others = [drowsy.id, awake.id];
    await revisionReaches(api, awake.id, awake.latest_revision_id, ['DEPLOYED'], { timeoutMs: 120_000 });
    await eventually(async () => (await condition('drowsy', 'ScaleToZero'))?.status === 'True', 60_000, 'drowsy scaling to zero');
    // The app that does not scale to zero has had its passes, and left the grant to the ones that do.
    expect(await grant()).toBeDefined();

    await api.ok('DELETE', `/v2/deployments/${id}`);
    await eventually(async () => (await berthDeployment('sleepy')) === undefined, 90_000, 'sleepy gone');
    await api.ok('PATCH', `/v2/deployments/${awake.id}`, {
      source_config: { resource_spec: { min_scale: 1, max_scale: 2, cpu: 0.1, memory_mb: 64 } },
    });
    await eventually(
      async () => (await autoscalerOf(kc, namespace, 'awake').catch(() => undefined))?.spec.maxReplicas === 2,
      60_000,
      "awake's pass after the patch",
    );
    expect(await grant()).toBeDefined();
  });

  it("removes the grant with the namespace's last app that scales to zero", { timeout: 120_000 }, async () => {
    await api.ok('DELETE', `/v2/deployments/${others[0]}`);
    await eventually(async () => (await grant()) === undefined, 90_000, 'the ReferenceGrant gone');
    await api.ok('DELETE', `/v2/deployments/${others[1]}`);
  });
});

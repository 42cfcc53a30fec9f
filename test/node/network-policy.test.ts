// Organizations' NetworkPolicies enforced on the real node (kube-router's policy controller): with the
// installation's organization policy, an organization's pods answer their own namespace and the node
// (the Gateway), never another organization's pods or a namespace outside; and they cannot reach the
// networks the policy blocks (here the node's own address: the API server, the registries). The metrics
// store apps scale on, a Service of its own namespace, answers that namespace's neighbours but no
// organization or build (api/metrics-store-policy.ts). A new pod is refused what its policy blocks from its
// first packet (kube-router's default deny), 15 s of the file's cost.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { defaultBuildBlockedCidrs } from '../../src/reconcilers/deployment/builds/build-namespace.ts';
import { nodeIp, registryAddress } from '../../workbench/node/network.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { apply, examplePod, exampleImage, httpGet, isReady, kubectlOk, podStatus, service } from './support.ts';

let berth: BerthProcess;
const ns = { a: '', b: '', outside: '', store: '', builds: '' };
let serverIp: string;

/** The metrics store Berth is given: a Service of a namespace that is no organization's. */
const storeUrl = () => `http://store.${ns.store}.svc:8000`;

/** What `/app get url` run in the pod prints, or why it could not. */
async function getFrom(namespace: string, pod: string, url: string): Promise<{ ok: boolean; output: string }> {
  const result = await kubectl(['exec', '-n', namespace, pod, '--', '/app', 'get', url]);
  return { ok: result.code === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

async function readyPodIp(namespace: string, name: string): Promise<string> {
  const status = await eventually(
    async () => {
      const current = await podStatus(namespace, name);
      return isReady(current) ? current : undefined;
    },
    90_000,
    `${namespace}/${name} Ready`,
  );
  return status.podIP!;
}

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-netpol-op');
  ns.a = await useNamespace('netpol-a');
  ns.b = await useNamespace('netpol-b');
  ns.outside = await useNamespace('netpol-outside');
  ns.store = await useNamespace('netpol-store');
  ns.builds = await useNamespace('netpol-builds');
  await ensureOrganizationNamespace(kc, ns.a, randomUUID());
  await ensureOrganizationNamespace(kc, ns.b, randomUUID());
  const policy = { networkPolicy: { blockedCidrs: [`${nodeIp}/32`] } };
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [ns.a, ns.b, operatorNamespace] }),
    '--organization-policy',
    JSON.stringify(policy),
    '--concurrency-metrics',
    storeUrl(),
    '--build-namespace',
    ns.builds,
    // The chart's default, not the node suite's (which blocks the pod network): what keeps builds from
    // the metrics store below is the store's own policy.
    '--build-blocked-cidrs',
    defaultBuildBlockedCidrs.join(','),
  ]);
  await waitReady(berth);
  const image = await exampleImage('netpol');
  await apply(ns.a, examplePod('server', image, { readinessPath: '/ok' }), examplePod('client', image));
  await apply(ns.b, examplePod('client', image));
  await apply(ns.outside, examplePod('client', image));
  await apply(ns.store, examplePod('store', image, { readinessPath: '/ok' }), service('store', { app: 'store' }, 8000));
  await apply(ns.builds, examplePod('client', image));
  serverIp = await readyPodIp(ns.a, 'server');
  await readyPodIp(ns.store, 'store');
  for (const namespace of [ns.a, ns.b, ns.outside, ns.builds]) await readyPodIp(namespace, 'client');
  for (const namespace of [ns.a, ns.b])
    await eventually(
      async () => (await kubectl(['get', 'networkpolicy', '-n', namespace, 'berth-organization'])).code === 0,
      30_000,
      `NetworkPolicy berth-organization in ${namespace}`,
    );
});

afterAll(async () => {
  await berth?.stop();
});

describe("an organization's pods under its NetworkPolicy on the node", () => {
  it('answer their own namespace and the node, never another organization or a namespace outside', async () => {
    const url = `http://${serverIp}:8000/`;
    // The policy controller programs the node within a second or two of the policy and the pods.
    await eventually(async () => (await getFrom(ns.a, 'client', url)).ok, 30_000, 'the same namespace reaching the server');
    expect((await getFrom(ns.a, 'client', url)).output).toBe('berth-example netpol');
    expect((await httpGet(url)).body).toBe('berth-example netpol\n');
    await eventually(async () => !(await getFrom(ns.b, 'client', url)).ok, 30_000, 'another organization refused');
    for (const namespace of [ns.b, ns.outside]) {
      const attempt = await getFrom(namespace, 'client', url);
      expect(attempt.ok, `${namespace} reached ${url}: ${attempt.output}`).toBe(false);
    }
  });

  it("reach no network the policy blocks (the node's registry), while a namespace outside still does", async () => {
    const registry = `http://${registryAddress}/v2/`;
    await eventually(async () => (await getFrom(ns.outside, 'client', registry)).ok, 30_000, 'the registry from outside the organizations');
    const attempt = await getFrom(ns.a, 'client', registry);
    expect(attempt.ok, `${ns.a} reached ${registry}: ${attempt.output}`).toBe(false);
  });

  it('keep to the rules as pods come and go: a new pod of another organization is refused too', async () => {
    await apply(ns.b, examplePod('late', await exampleImage('netpol')));
    await readyPodIp(ns.b, 'late');
    const attempt = await getFrom(ns.b, 'late', `http://${serverIp}:8000/`);
    expect(attempt.ok, attempt.output).toBe(false);
    await kubectlOk(['delete', 'pod', '-n', ns.b, 'late', '--wait=false']);
  });

  it('refuse a new pod what its policy blocks from its first packet, and admit what it allows once programmed', async () => {
    // The pod asks the blocked registry and its namespace's server every 100 ms from its process's first
    // moment. Until the policy controller has programmed a new pod, the node refuses all its traffic
    // (kube-router's default deny): without it, the pod reached the registry in its first second.
    const registry = `http://${registryAddress}/v2/`;
    const server = `http://${serverIp}:8000/`;
    const pod = examplePod('first-second', await exampleImage('netpol'), { args: ['probe', '15', registry, server] });
    await apply(ns.a, { ...pod, spec: { ...(pod as { spec: object }).spec, restartPolicy: 'Never' } });
    await eventually(async () => (await podStatus(ns.a, 'first-second')).phase === 'Succeeded', 90_000, 'the probe pod done');
    const lines = (await kubectlOk(['logs', '-n', ns.a, 'first-second'])).trim().split('\n');
    const answered = (url: string) => lines.filter((line) => line === `${url} ok`).length;
    expect(lines.length).toBeGreaterThan(20);
    if (answered(registry) > 0) {
      // What the policy controller may have taken the pod for: another pod the API still gives its address.
      const ip = (await podStatus(ns.a, 'first-second')).podIP!;
      const holders = await kubectl(['get', 'pods', '-A', '-o', 'wide', '--field-selector', `status.podIP=${ip}`]);
      expect.fail(`the blocked registry answered a new pod (${ip}):\n${lines.join('\n')}\npods with its address:\n${holders.stdout}`);
    }
    expect(answered(server), `the pod's own namespace never answered it:\n${lines.join('\n')}`).toBeGreaterThan(0);
    await kubectlOk(['delete', 'pod', '-n', ns.a, 'first-second', '--wait=false']);
  });

  it('keep organizations and builds from the metrics store, which a namespace outside still reads', async () => {
    await eventually(
      async () => (await kubectl(['get', 'networkpolicy', '-n', ns.store, 'berth-metrics-store'])).code === 0,
      30_000,
      'NetworkPolicy berth-metrics-store beside the store',
    );
    const url = `${storeUrl()}/`;
    await eventually(async () => (await getFrom(ns.outside, 'client', url)).ok, 30_000, 'the store from outside the organizations');
    expect((await getFrom(ns.outside, 'client', url)).output).toBe('berth-example netpol');
    for (const namespace of [ns.a, ns.builds]) {
      const attempt = await getFrom(namespace, 'client', url);
      expect(attempt.ok, `${namespace} reached the metrics store: ${attempt.output}`).toBe(false);
    }
  });
});

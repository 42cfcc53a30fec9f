// Every Deployment at a URL outside the cluster, through the node's Gateway (Traefik, built here) on
// loopback: `http://<deployment>.<organization>.localhost:18080`, as `berth dev` gives it. Two
// organizations, each host routed to its own app and no other; a custom_url adds its host and path;
// a custom_url under the apps domain is refused; names the Gateway would fold alike across two
// organizations are each served at their own URL; a route from a namespace that is not an organization is refused
// by the listener; the route goes with its Deployment.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { gatewayHttpAddress } from '../../workbench/node/network.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, type Api } from '../support/http-api.ts';
import { nodeGateway } from '../../workbench/node/gateway.ts';
import { apply, exampleImage, examplePod, gatewayFlags, httpGet, waitForReadyPod } from './support.ts';

let berth: BerthProcess;
const orgs: { namespace: string; api: Api }[] = [];
const acme: { namespace: string; api: Api }[] = [];
const gatewayBase = `http://${gatewayHttpAddress.host}:${gatewayHttpAddress.port}`;

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-gateway-op');
  const namespaces = [await useNamespace('gw-a'), await useNamespace('gw-b')];
  // Two organizations whose names the Gateway would run together: `gw-acme-<x>` and `gw-acme-<x>-x-<y>`.
  const acmeNamespace = await useNamespace('gw-acme');
  const pair = [acmeNamespace, await useNamespace(`${acmeNamespace}-x`)];
  const all = [...namespaces, ...pair];
  const ids = all.map(() => randomUUID());
  for (const [i, namespace] of all.entries()) await ensureOrganizationNamespace(kc, namespace, ids[i]!);
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [...all, operatorNamespace] }),
    ...gatewayFlags(),
  ]);
  await waitReady(berth);
  const url = `http://127.0.0.1:${await berth.facadePort()}`;
  for (const [i, namespace] of all.entries()) {
    const key = (await ensureApiKey(kc, operatorNamespace, [ids[i]!])).key;
    (i < namespaces.length ? orgs : acme).push({ namespace, api: httpApi(url, { 'x-api-key': key }) });
  }
});

afterAll(async () => {
  await berth?.stop();
});

function create(api: Api, name: string, image: string, extra: { custom_url?: string } = {}) {
  return api.ok('POST', '/v2/deployments', {
    name,
    source: 'external_docker',
    source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 }, ...extra },
    source_revision_config: { image_uri: image },
  });
}

/** What answers at `url` once it answers `expected` (the Gateway follows the route within seconds). */
function answers(url: string, expected: string, headers: Record<string, string> = {}) {
  return eventually(
    async () => {
      const answer = await httpGet(url, headers).catch(() => undefined);
      return answer?.body === expected ? answer : undefined;
    },
    60_000,
    `${url} (${JSON.stringify(headers)}) answering ${JSON.stringify(expected)}`,
  );
}

describe("a Deployment's URL through the node's Gateway", () => {
  const deployments: { id: string; url: string; namespace: string }[] = [];

  it('is <deployment>.<organization>.localhost for each organization, each host reaching its own app', async () => {
    const images = [await exampleImage('gateway-a'), await exampleImage('gateway-b')];
    for (const [i, org] of orgs.entries()) {
      const created = await create(org.api, 'web', images[i]!);
      const deployment = await eventually(
        async () => {
          const read = await org.api.ok('GET', `/v2/deployments/${created.id}`);
          return read.url?.includes('localhost') ? read : undefined;
        },
        30_000,
        `deployment ${created.id} with its URL`,
      );
      expect(deployment.url).toBe(`http://web.${org.namespace}.localhost:${gatewayHttpAddress.port}`);
      deployments.push({ id: created.id, url: deployment.url, namespace: org.namespace });
    }
    for (const [i, deployment] of deployments.entries()) {
      await answers(`${deployment.url}/`, `berth-example gateway-${'ab'[i]}\n`);
      const status = JSON.parse(
        (await kubectl(['get', 'deployments.berth.dev', '-n', deployment.namespace, 'web', '-o', 'jsonpath={.status}'])).stdout,
      ) as { url: string; clusterUrl: string };
      expect(status.url).toBe(deployment.url);
      expect(status.clusterUrl).toMatch(/^http:\/\/10\.96\./);
    }
    // A host no route names: the Gateway's 404, never another tenant's app.
    const stranger = await httpGet(`${gatewayBase}/`, { host: `web.nobody.localhost:${gatewayHttpAddress.port}` });
    expect(stranger.status).toBe(404);
  });

  it('routes a custom_url by its host and path, and refuses one under the apps domain', async () => {
    const [org] = orgs;
    const created = await create(org!.api, 'shop', await exampleImage('gateway-shop'), { custom_url: 'https://shop.example.test/ok' });
    // The path reaches the app as sent (a prefix match, as an Ingress's): the example app answers /ok.
    await answers(`${gatewayBase}/ok`, 'ok\n', { host: 'shop.example.test' });
    expect((await httpGet(`${gatewayBase}/`, { host: 'shop.example.test' })).status).toBe(404);
    await answers(`http://shop.${org!.namespace}.localhost:${gatewayHttpAddress.port}/`, 'berth-example gateway-shop\n');

    // Another organization's app's own host: refused before anything is written.
    const hijack = await org!.api.call('PATCH', `/v2/deployments/${created.id}`, {
      source_config: { custom_url: `https://web.${orgs[1]!.namespace}.localhost/` },
    });
    expect(hijack.status).toBe(422);
    expect(JSON.stringify(hijack.body)).toContain('where this installation names every deployment');
  });

  it("never serves one organization's app at another's URL, though their names fold alike at the Gateway", async () => {
    const [first, second] = acme as [(typeof acme)[0], (typeof acme)[0]];
    // `x-<y>--web` in the first and `web` in `<first>-x-<y>`: one backend name at the Gateway, which
    // folds runs of dashes, were routes to name Services after deployments (docs/route-names.md).
    const name = `${second.namespace.slice(first.namespace.length + 1)}--web`;
    const urlOf = (api: Api, id: string, what: string) =>
      eventually(
        async () => {
          const read = await api.ok('GET', `/v2/deployments/${id}`);
          return read.url?.includes('localhost') ? (read.url as string) : undefined;
        },
        30_000,
        what,
      );
    const folded = await create(first.api, name, await exampleImage('gateway-acme'));
    const foldedUrl = await urlOf(first.api, folded.id, 'the first deployment with its URL');
    await answers(`${foldedUrl}/`, 'berth-example gateway-acme\n');
    const web = await create(second.api, 'web', await exampleImage('gateway-acme-corp'));
    const webUrl = await urlOf(second.api, web.id, 'the second deployment with its URL');
    await answers(`${webUrl}/`, 'berth-example gateway-acme-corp\n');
    for (let i = 0; i < 20; i++) {
      expect((await httpGet(`${foldedUrl}/`)).body).toBe('berth-example gateway-acme\n');
      expect((await httpGet(`${webUrl}/`)).body).toBe('berth-example gateway-acme-corp\n');
    }
  });

  it('admits routes from organizations only: a route of another namespace claims no host', async () => {
    const stranger = await useNamespace('gw-stranger');
    await apply(stranger, examplePod('app', await exampleImage('gateway-stranger')), {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'app' },
      spec: { selector: { app: 'app' }, ports: [{ port: 8000, targetPort: 8000 }] },
    });
    await waitForReadyPod(stranger, 'app');
    const hosts = ['stranger.example.test', `web.${orgs[1]!.namespace}.localhost`];
    await apply(stranger, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'claim' },
      spec: {
        parentRefs: [{ namespace: nodeGateway.namespace, name: nodeGateway.name }],
        hostnames: hosts,
        rules: [{ backendRefs: [{ name: 'app', port: 8000 }] }],
      },
    });
    const refusal = await eventually(
      async () => {
        const route = JSON.parse((await kubectl(['get', 'httproute', '-n', stranger, 'claim', '-o', 'json'])).stdout) as {
          status?: { parents?: { conditions?: { type: string; status: string; reason: string }[] }[] };
        };
        return route.status?.parents?.[0]?.conditions?.find((c) => c.type === 'Accepted' && c.status === 'False');
      },
      60_000,
      'the route refused by the listener',
    );
    expect(refusal.reason).toBe('NotAllowedByListeners');
    expect((await httpGet(`${gatewayBase}/`, { host: hosts[0]! })).status).toBe(404);
    for (let i = 0; i < 10; i++) expect((await httpGet(`${deployments[1]!.url}/`)).body).toBe('berth-example gateway-b\n');
  });

  it('goes with its Deployment: the route is deleted and the host answers 404', async () => {
    const [first] = deployments;
    const [org] = orgs;
    await org!.api.ok('DELETE', `/v2/deployments/${first!.id}`);
    await eventually(
      async () => (await kubectl(['get', 'httproutes.gateway.networking.k8s.io', '-n', first!.namespace, 'web'])).code !== 0,
      60_000,
      'the HTTPRoute deleted',
    );
    await eventually(
      async () => (await httpGet(`${first!.url}/`).catch(() => undefined))?.status === 404,
      30_000,
      `${first!.url} answering 404`,
    );
    // The other organization's app still answers.
    await answers(`${deployments[1]!.url}/`, 'berth-example gateway-b\n');
  });
});

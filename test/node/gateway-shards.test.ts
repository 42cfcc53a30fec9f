// 100 custom hosts of 10 organizations on the node's Gateway, beside their 10 wildcards: Berth, at its
// default of 64 listeners a Gateway, places the 110 listeners on the node's Gateway and its shards, none
// holding more than 64, each Programmed by Traefik; each route names the shard and listener of its host;
// each host is served over TLS with a certificate naming it, and one answers with its app. Every
// Deployment but that one runs nothing (maxScale 0): the listeners are under test, not pods.
// Cost: about 60 s on the node (the 100 Deployments' reconciles, 20 certificates).
import { randomUUID, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { organizationTlsNames } from '../../src/api/index.ts';
import { nodeGateway } from '../../workbench/node/gateway.ts';
import { gatewayHttpsAddress } from '../../workbench/node/network.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { appsCaCertificate, exampleImage, gatewayFlags, httpsGet, kubectlOk, listenerProgrammed, nodeGateways } from './support.ts';

const hostsPerOrganization = 10;
let berth: BerthProcess;
let organizations: string[] = [];
let ca: string;

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-shards-op');
  organizations = [];
  for (let i = 0; i < 10; i += 1) organizations.push(await useNamespace(`shards-${i}`));
  for (const namespace of organizations) await ensureOrganizationNamespace(kc, namespace, randomUUID());
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [...organizations, operatorNamespace] }),
    ...gatewayFlags({ tls: true }),
  ]);
  await waitReady(berth);
  ca = await appsCaCertificate();
});

afterAll(async () => {
  // The organizations stop being ones while Berth runs, so their listeners leave the node's Gateway.
  for (const namespace of organizations) await kubectlOk(['label', 'namespace', namespace, 'berth.dev/organization-id-']).catch(() => '');
  await eventually(async () => (await ourListeners()).length === 0, 120_000, "the organizations' listeners gone").catch(() => undefined);
  await berth?.stop();
});

const hostOf = (namespace: string, j: number) => `h${j}.${namespace}.shards.test`;

/** This file's organizations' listeners, each with the Gateway it is on and whether it is Programmed. */
async function ourListeners(): Promise<{ name: string; gateway: string; programmed: boolean }[]> {
  const owns = (name: string) => organizations.some((namespace) => organizationTlsNames(namespace).ownsListener(name));
  return (await nodeGateways()).flatMap((g) =>
    g.spec.listeners
      .filter((l) => owns(l.name))
      .map((l) => ({
        name: l.name,
        gateway: g.metadata.name,
        programmed: listenerProgrammed(g, l.name),
      })),
  );
}

describe('100 custom hosts of 10 organizations', () => {
  it('are each served over TLS through a listener of its own, on Gateways of at most 64 listeners', { timeout: 480_000 }, async () => {
    const started = Date.now();
    const image = await exampleImage('shards');
    const last = { namespace: organizations.at(-1)!, j: hostsPerOrganization - 1 };
    const items = organizations.flatMap((namespace) =>
      Array.from({ length: hostsPerOrganization }, (_, j) => {
        const serves = namespace === last.namespace && j === last.j;
        return {
          apiVersion: 'berth.dev/v1alpha1',
          kind: 'Deployment',
          metadata: { name: `h${j}`, namespace },
          spec: {
            source: 'external_docker',
            sourceConfig: {
              customUrl: `https://${hostOf(namespace, j)}/`,
              resourceSpec: serves ? { minScale: 1, maxScale: 1, cpu: 0.1, memoryMb: 64 } : { maxScale: 0 },
            },
            sourceRevisionConfig: { imageUri: image },
          },
        };
      }),
    );
    await kubectlOk(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));

    const listeners = await eventually(
      async () => {
        const ours = await ourListeners();
        return ours.length === organizations.length * (1 + hostsPerOrganization) && ours.every((l) => l.programmed) ? ours : undefined;
      },
      300_000,
      '110 listeners Programmed',
    );
    const placed = Date.now();
    const all = await nodeGateways();
    expect(new Set(listeners.map((l) => l.gateway)).size).toBeGreaterThanOrEqual(2);
    for (const gateway of all) expect(gateway.spec.listeners.length, gateway.metadata.name).toBeLessThanOrEqual(64);

    // Each route names the Gateway and listener of its host where that is a shard.
    const routes = JSON.parse(await kubectlOk(['get', 'httproutes', '-A', '-o', 'json'])) as {
      items: {
        metadata: { namespace: string; name: string };
        spec: { hostnames: string[]; parentRefs: { name: string; sectionName?: string }[] };
      }[];
    };
    for (const l of listeners.filter((l) => l.gateway !== nodeGateway.name && l.name.includes('.'))) {
      const route = routes.items.find((r) => organizationTlsNames(r.metadata.namespace).customListener(r.spec.hostnames[0]!) === l.name);
      expect(route?.spec.parentRefs, l.name).toContainEqual(expect.objectContaining({ name: l.gateway, sectionName: l.name }));
    }

    // Each host over TLS: a certificate naming it, from the local CA; the one with a pod answers.
    for (const namespace of organizations)
      for (let j = 0; j < hostsPerOrganization; j += 1) {
        const host = hostOf(namespace, j);
        const answer = await eventually(
          async () => {
            const got = await httpsGet(`https://${host}:${gatewayHttpsAddress.port}/`, ca, gatewayHttpsAddress.host).catch(() => undefined);
            const names = got && new X509Certificate(got.certificate.raw).subjectAltName;
            return names?.split(', ').includes(`DNS:${host}`) ? got : undefined;
          },
          120_000,
          `${host} served with its certificate`,
        );
        if (namespace === last.namespace && j === last.j)
          await eventually(
            async () =>
              (await httpsGet(`https://${host}:${gatewayHttpsAddress.port}/`, ca, gatewayHttpsAddress.host)).body ===
              'berth-example shards\n',
            120_000,
            `${host} answered by its app`,
          );
        else expect(answer.status, host).toBe(503);
      }
    const gatewaysUsed = [...new Set(listeners.map((l) => l.gateway))].sort();
    console.error(
      `[gateway-shards] 110 listeners on ${gatewaysUsed.join(', ')}: placed and Programmed in ${Math.round((placed - started) / 1000)} s, 100 hosts checked in ${Math.round((Date.now() - placed) / 1000)} s`,
    );
  });
});

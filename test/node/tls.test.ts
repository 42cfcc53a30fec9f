// The apps' https:// URLs, as `berth dev` gives them: cert-manager (built here) signs a wildcard
// certificate per organization with the local apps CA, and the node's Gateway terminates TLS with it on
// an HTTPS listener of that organization's own. Two organizations, each URL answered over TLS by its own
// app with its own organization's certificate; the Deployment's CertificateReady condition; the
// certificate and listener kept out of the organization's namespace and removed with the organization;
// a second Berth on the same Gateway leaves the first's alone. This file's Berth puts one listener on a
// Gateway, so every listener it places is on a shard of the node's Gateway (docs/custom-host-listeners.md).
import { randomUUID } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { nodeGateway } from '../../workbench/node/gateway.ts';
import { nodeTlsIssuer } from '../../workbench/node/certificates.ts';
import { gatewayHttpsAddress } from '../../workbench/node/network.ts';
import { organizationTlsNames } from '../../src/api/app-tls.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, type Api } from '../support/http-api.ts';
import { steadyClient, windowStats } from '../../workbench/support/steady-client.ts';
import {
  appsCaCertificate,
  exampleImage,
  gatewayFlags,
  httpsGet,
  kubectlOk,
  listenerProgrammed,
  nodeGateways,
  type NodeGateway,
} from './support.ts';

let berth: BerthProcess;
let ca: string;
const orgs: { namespace: string; api: Api }[] = [];

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-tls-op');
  const namespaces = [await useNamespace('tls-a'), await useNamespace('tls-b')];
  const ids = namespaces.map(() => randomUUID());
  for (const [i, namespace] of namespaces.entries()) await ensureOrganizationNamespace(kc, namespace, ids[i]!);
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [...namespaces, operatorNamespace] }),
    ...gatewayFlags({ tls: true }),
    // The node's Gateway holds its own listener already: every listener of this Berth goes to a shard.
    ...['--listeners-per-gateway', '1'],
  ]);
  await waitReady(berth);
  const url = `http://127.0.0.1:${await berth.facadePort()}`;
  for (const [i, namespace] of namespaces.entries()) {
    const key = (await ensureApiKey(kc, operatorNamespace, [ids[i]!])).key;
    orgs.push({ namespace, api: httpApi(url, { 'x-api-key': key }) });
  }
  ca = await appsCaCertificate();
});

afterAll(async () => {
  await berth?.stop();
});

type Condition = { type: string; status: string; reason: string; message: string };

async function deploymentConditions(namespace: string, name: string): Promise<Condition[]> {
  const out = await kubectlOk(['-n', namespace, 'get', 'bdeploy', name, '-o', 'jsonpath={.status.conditions}']);
  return out ? (JSON.parse(out) as Condition[]) : [];
}

/** The Deployment's CertificateReady once it is True. */
function certificateReady(namespace: string, name: string): Promise<Condition> {
  return eventually(
    async () => (await deploymentConditions(namespace, name)).find((c) => c.type === 'CertificateReady' && c.status === 'True'),
    60_000,
    `CertificateReady on ${namespace}/${name}`,
  );
}

/** The listeners of the node's Gateway and of its shards, each with the Gateway it is on. */
async function gatewayListeners(): Promise<(NodeGateway['spec']['listeners'][number] & { gateway: string })[]> {
  return (await nodeGateways()).flatMap((gateway) => gateway.spec.listeners.map((l) => ({ ...l, gateway: gateway.metadata.name })));
}

/** Whether an object of `kind` named `name` is in the Gateway's namespace. */
async function inGatewayNamespace(kind: 'certificate' | 'secret', name: string): Promise<boolean> {
  return (await kubectl(['-n', nodeGateway.namespace, 'get', kind, name])).code === 0;
}

describe("a Deployment's https:// URL", () => {
  it('answers over TLS for each organization, with its own certificate from the local CA', { timeout: 300_000 }, async () => {
    const images = [await exampleImage('tls-a'), await exampleImage('tls-b')];
    for (const [i, org] of orgs.entries()) {
      const created = await org.api.ok('POST', '/v2/deployments', {
        name: 'web',
        source: 'external_docker',
        source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 } },
        source_revision_config: { image_uri: images[i]! },
      });
      const url = `https://web.${org.namespace}.localhost:${gatewayHttpsAddress.port}`;
      expect((await org.api.ok('GET', `/v2/deployments/${created.id}`)).url ?? url).toBe(url);
      const answer = await eventually(
        async () => {
          const got = await httpsGet(`${url}/`, ca).catch(() => undefined);
          return got?.body === `berth-example tls-${'ab'[i]}\n` ? got : undefined;
        },
        180_000,
        `${url} answering over TLS`,
      );
      const certificate = new X509Certificate(answer.certificate.raw);
      expect(certificate.subjectAltName).toBe(`DNS:*.${org.namespace}.localhost`);
      expect(certificate.issuer).toContain('berth-local-apps-ca');
      expect(certificate.checkHost(`web.${org.namespace}.localhost`)).toBe(`*.${org.namespace}.localhost`);

      expect((await certificateReady(org.namespace, 'web')).reason).toBe('Issued');
    }
  });

  it(
    'places listeners past --listeners-per-gateway on shards of the Gateway, each Programmed, each route on its own',
    { timeout: 120_000 },
    async () => {
      // One listener a Gateway: each organization's is on a shard of its own, which Traefik serves (above).
      const placed = orgs.map(({ namespace }) => organizationTlsNames(namespace).listener);
      const shards = await eventually(
        async () => {
          const all = await nodeGateways();
          const holding = placed.map((listener) => all.find((g) => g.spec.listeners.some((l) => l.name === listener)));
          return holding.every((g, i) => listenerProgrammed(g, placed[i]!)) ? holding.map((g) => g!) : undefined;
        },
        60_000,
        "the organizations' listeners Programmed on shards",
      );
      expect(shards.map((g) => g.metadata.name)).toEqual([expect.stringMatching(/-[1-9][0-9]*$/), expect.stringMatching(/-[1-9][0-9]*$/)]);
      expect(new Set(shards.map((g) => g.metadata.name)).size).toBe(2);
      for (const shard of shards) expect(shard.spec.listeners).toHaveLength(1);
      // The route names the shard and the listener that serve its host.
      const [a, b] = orgs;
      const route = JSON.parse(await kubectlOk(['-n', a!.namespace, 'get', 'httproute', 'web', '-o', 'json'])) as {
        spec: { parentRefs: { name: string; sectionName?: string }[] };
      };
      expect(route.spec.parentRefs).toContainEqual(expect.objectContaining({ name: shards[0]!.metadata.name, sectionName: placed[0] }));
      // Another organization's route naming that listener is refused by it, and its host is not served.
      const stolen = `stolen.${a!.namespace}.localhost`;
      await kubectlOk(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'gateway.networking.k8s.io/v1',
          kind: 'HTTPRoute',
          metadata: { name: 'stolen', namespace: b!.namespace },
          spec: {
            parentRefs: [{ name: shards[0]!.metadata.name, namespace: nodeGateway.namespace, sectionName: placed[0] }],
            hostnames: [stolen],
            rules: [{ backendRefs: [{ name: 'web', port: 80 }] }],
          },
        }),
      );
      const refusal = await eventually(
        async () => {
          const out = await kubectlOk(['-n', b!.namespace, 'get', 'httproute', 'stolen', '-o', 'jsonpath={.status.parents[*].conditions}']);
          return out.includes('NotAllowedByListeners') ? out : undefined;
        },
        60_000,
        "the shard's listener refusing another organization's route",
      );
      expect(refusal).toContain('"status":"False"');
      expect((await httpsGet(`https://${stolen}:${gatewayHttpsAddress.port}/`, ca).catch(() => undefined))?.status).not.toBe(200);
      await kubectlOk(['-n', b!.namespace, 'delete', 'httproute', 'stolen']);
    },
  );

  it('serves a custom_url host over TLS with a certificate for that host, from the same CA', { timeout: 180_000 }, async () => {
    const org = orgs[0]!;
    // The organization's own URL, read steadily over TLS while its listeners change around it.
    const web = `https://web.${org.namespace}.localhost:${gatewayHttpsAddress.port}/`;
    const client = steadyClient(web, { concurrency: 2, intervalMs: 20, ca, accept: (status) => status === 200 });
    const started = Date.now();
    const created = await org.api.ok('POST', '/v2/deployments', {
      name: 'shop',
      source: 'external_docker',
      source_config: {
        custom_url: 'https://shop.tls.example.test/',
        resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 },
      },
      source_revision_config: { image_uri: await exampleImage('tls-shop') },
    });
    expect(created.id).toBeTruthy();
    const url = `https://shop.tls.example.test:${gatewayHttpsAddress.port}/`;
    const answer = await eventually(
      async () => {
        const got = await httpsGet(url, ca, gatewayHttpsAddress.host).catch(() => undefined);
        return got?.body === 'berth-example tls-shop\n' ? got : undefined;
      },
      120_000,
      `${url} answering over TLS`,
    );
    const certificate = new X509Certificate(answer.certificate.raw);
    expect(certificate.subjectAltName).toBe('DNS:shop.tls.example.test');
    expect(certificate.issuer).toContain('berth-local-apps-ca');
    await certificateReady(org.namespace, 'shop');
    // Its host and listener go with its claim.
    expect((await org.api.call('DELETE', `/v2/deployments/${created.id}`)).status).toBe(204);
    const listener = organizationTlsNames(org.namespace).customListener('shop.tls.example.test');
    await eventually(
      async () =>
        !(await gatewayListeners()).some((l) => l.name === listener) &&
        !(await inGatewayNamespace('certificate', organizationTlsNames(org.namespace).customCertificate)),
      60_000,
      "the custom host's listener and certificate removed with its deployment",
    );
    // It had a shard of its own, which goes with it: the shards left are the organizations'.
    expect((await nodeGateways()).length).toBe(1 + orgs.length);
    await client.stop();
    const seen = windowStats(client.samples, started, Date.now());
    console.error(`[tls] ${web} while a listener came and went: ${JSON.stringify(seen)}`);
    expect(seen.requests).toBeGreaterThan(50);
    expect(seen.failed, seen.failures.join(', ')).toBe(0);
  });

  it("leaves another Berth's organizations on the shared Gateway alone", { timeout: 120_000 }, async () => {
    // A second installation, watching an organization of its own, sees the first's Certificates in the
    // Gateway's namespace: they are not its to remove.
    const kc = testKubeConfig();
    const operatorNamespace = await useNamespace('berth-tls-op2');
    const namespace = await useNamespace('tls-c');
    await ensureOrganizationNamespace(kc, namespace, randomUUID());
    const other = spawnBerth(inject('kubeconfigPath'), [
      ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
      ...gatewayFlags({ tls: true }),
    ]);
    try {
      await waitReady(other);
      const own = organizationTlsNames(namespace);
      await eventually(
        async () =>
          (await gatewayListeners()).some((l) => l.name === own.listener) && (await inGatewayNamespace('certificate', own.certificate)),
        60_000,
        "the second Berth's organization's listener and Certificate",
      );
      for (const org of orgs) {
        const names = organizationTlsNames(org.namespace);
        expect((await gatewayListeners()).map((l) => l.name)).toContain(names.listener);
        expect(await inGatewayNamespace('certificate', names.certificate)).toBe(true);
      }
      const web = await httpsGet(`https://web.${orgs[0]!.namespace}.localhost:${gatewayHttpsAddress.port}/`, ca);
      expect(web.body).toBe('berth-example tls-a\n');
    } finally {
      await other.stop();
    }
  });

  it("keeps each organization's certificate and key out of its namespace, behind a listener of its own", async () => {
    for (const org of orgs) {
      const names = organizationTlsNames(org.namespace);
      const inOrg = await kubectl(['-n', org.namespace, 'get', 'secret', names.secret]);
      expect(inOrg.code).not.toBe(0);
      const listener = (await gatewayListeners()).find((l) => l.name === names.listener);
      expect(listener?.hostname).toBe(`*.${org.namespace}.localhost`);
      expect(listener?.allowedRoutes?.namespaces?.selector?.matchLabels).toEqual({ 'kubernetes.io/metadata.name': org.namespace });
    }
  });

  it("signs nothing a team asks for itself: the local CA's Issuer is not in the team's namespace", { timeout: 120_000 }, async () => {
    // A team that may make Certificates in its namespace asks for another organization's names.
    const [a, b] = orgs;
    const stolen = 'stolen-wildcard';
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: stolen, namespace: a!.namespace },
        spec: {
          secretName: stolen,
          dnsNames: [`*.${b!.namespace}.localhost`],
          issuerRef: { group: 'cert-manager.io', kind: nodeTlsIssuer.kind, name: nodeTlsIssuer.name },
        },
      }),
    );
    const refused = await eventually(
      async () => {
        const out = await kubectlOk(['-n', a!.namespace, 'get', 'certificaterequests', '-o', 'jsonpath={.items[*].status.conditions}']);
        return out.includes('not found') ? out : undefined;
      },
      60_000,
      "cert-manager saying the team's request names no issuer it has",
    );
    expect(refused).toContain(nodeTlsIssuer.name);
    expect((await kubectl(['-n', a!.namespace, 'get', 'secret', stolen])).code).not.toBe(0);
    await kubectlOk(['-n', a!.namespace, 'delete', 'certificate', stolen]);
  });

  it('removes the listener and the certificate when the namespace stops being an organization', { timeout: 120_000 }, async () => {
    const org = orgs[1]!;
    const names = organizationTlsNames(org.namespace);
    await kubectlOk(['label', 'namespace', org.namespace, 'berth.dev/organization-id-']);
    await eventually(
      async () =>
        !(await gatewayListeners()).some((l) => l.name === names.listener) &&
        !(await inGatewayNamespace('certificate', names.certificate)) &&
        !(await inGatewayNamespace('secret', names.secret)),
      60_000,
      `${org.namespace}'s listener, Certificate and Secret removed`,
    );
    // The other organization's listener and the Gateway's own stay; the shard it had alone goes.
    const left = (await gatewayListeners()).map((l) => l.name);
    expect(left).toEqual(expect.arrayContaining(['http', organizationTlsNames(orgs[0]!.namespace).listener]));
    expect((await nodeGateways()).map((g) => g.metadata.name)).toHaveLength(2);
  });
});

// A hostile tenant against a real API server and Berth as users run it. The attacker holds an API key of
// its own organization and, through kubectl, a ServiceAccount with the `admin` role in its own namespace
// only (what a platform team hands a team). Every attack is tried both ways it can be, and each must be
// refused or contained; the victim's secret must appear in nothing the attacker gets back. The count
// of attacks tried, refused and of secrets leaked is printed.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { V1Job } from '@kubernetes/client-node';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cachedBuild } from '../workbench/cache-dir.ts';
import { renderRoutePolicy } from '../src/api/route-policy.ts';
import { renderNetworkPolicyGuard } from '../src/api/network-policy-guard.ts';
import { hardenedOrganizationPolicy } from '../src/api/organization-policy.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../src/facade/api-keys.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from './support/berth-process.ts';
import { httpApi, type Api } from './support/http-api.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { startDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { ownershipRecordName, ownershipToken } from '../src/api/host-ownership.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';

const victimSecret = `victim-${randomUUID()}`;
const registryHost = 'registry.berth.invalid:5000';
/** The release name the chart's aggregated roles are rendered under (cluster-wide names, unique to this file). */
const aggregateRelease = 'hostile';
let berth: BerthProcess;
let attacker: Api;
let attackerKey: string;
let victim: Api;
let attackerNamespace: string;
let victimNamespace: string;
let buildNamespace: string;
/** The route policy's name here: other test files' Berths share this API server. */
const routePolicy = `berth-routes-hostile-${process.pid}`;
const networkPolicyGuard = `berth-network-policies-hostile-${process.pid}`;
let victimOrganization: string;
let attackerOrganization: string;
/** The organizations' own DNS, where each publishes its proof of a custom host's ownership. */
let dns: TestDnsServer;
/** A second victim's organization, named as the attacker's namespace with `-corp` after it: the Gateway
 * would name its `web` as it names the attacker's `corp-web`. */
let corpNamespace: string;
let victimDeploymentId: string;
/** Everything the attacker got back: no victim secret may be in it. */
const seen: string[] = [];
const tally = { tried: 0, refused: 0 };

let github: FakeGitHub;

beforeAll(async () => {
  const kc = testKubeConfig();
  // The victim's code host: its repository, where anyone may open a pull request from a fork.
  github = await FakeGitHub.start({ enterprise: true });
  const operatorNamespace = await useNamespace('berth-hostile-op');
  attackerNamespace = await useNamespace('attacker');
  buildNamespace = await useNamespace('hostile-builds');
  victimNamespace = await useNamespace('victim');
  corpNamespace = `${attackerNamespace}-corp`;
  expect((await kubectl(['create', 'namespace', corpNamespace])).code).toBe(0);
  const corpOrganization = randomUUID();
  await ensureOrganizationNamespace(kc, corpNamespace, corpOrganization);
  attackerOrganization = randomUUID();
  victimOrganization = randomUUID();
  await ensureOrganizationNamespace(kc, attackerNamespace, attackerOrganization);
  await ensureOrganizationNamespace(kc, victimNamespace, victimOrganization);
  attackerKey = (await ensureApiKey(kc, operatorNamespace, [attackerOrganization])).key;
  const victimKey = (await ensureApiKey(kc, operatorNamespace, [victimOrganization])).key;
  const corpKey = (await ensureApiKey(kc, operatorNamespace, [corpOrganization])).key;
  dns = await startDnsServer();
  // The victim owns its bank's host and says so in its DNS, as Berth asks.
  dns.setTxt(ownershipRecordName('bank.apps.example.com'), [ownershipToken(victimOrganization)]);
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [operatorNamespace, attackerNamespace, victimNamespace, corpNamespace] }),
    '--dns-servers',
    dns.address,
    '--custom-url-domains',
    'apps.example.com,run.example.com',
    // Every deployment's own URL is under run.example.com: no custom_url may take another's.
    '--app-url-template',
    'https://{deployment}.{organization}.run.example.com/',
    '--reserved-hosts',
    'api.apps.example.com',
    // What `helm install` gives with no values (the chart's organizations.* defaults), and a replica cap.
    '--organization-policy',
    JSON.stringify({ ...hardenedOrganizationPolicy, maxReplicas: 5 }),
    // Builds run apart, in a namespace no team is granted anything in: baseline holds in organization
    // namespaces with the default, privileged builder.
    '--build-namespace',
    buildNamespace,
    // The registry's token endpoint decides who reads and writes which repository: no registry need run.
    '--push-registry',
    registryHost,
    '--code-host-origins',
    github.url,
    '--source-poll-seconds',
    '2',
  ]);
  await waitReady(berth);
  const url = `http://127.0.0.1:${await berth.facadePort()}`;
  attacker = httpApi(url, { 'x-api-key': attackerKey });
  victim = httpApi(url, { 'x-api-key': victimKey });
  // The chart's additions to Kubernetes' admin, edit and view roles, as a release would install them.
  const roles = await promisify(execFile)(join(cachedBuild('tools'), 'helm'), [
    'template',
    aggregateRelease,
    join(import.meta.dirname, '../charts/berth'),
    '--show-only',
    'templates/aggregate-roles.yaml',
    '--set',
    'rbac.clusterWide=true',
  ]);
  expect((await kubectl(['apply', '-f', '-'], roles.stdout)).code).toBe(0);
  // The route policy as a release installs it (its objects compared with the chart's in chart.test.ts),
  // here for the identity this Berth runs as.
  const policy = [...renderRoutePolicy('berth-admin', routePolicy), ...renderNetworkPolicyGuard('berth-admin', networkPolicyGuard)];
  expect((await kubectl(['apply', '-f', '-'], policy.map((o) => JSON.stringify(o)).join('\n'))).code).toBe(0);
  // The tenant's kubectl identity: the `admin` role in its own namespace, nothing elsewhere.
  const setup = [
    ['create', 'serviceaccount', 'tenant', '-n', attackerNamespace],
    [
      'create',
      'rolebinding',
      'tenant-admin',
      '-n',
      attackerNamespace,
      '--clusterrole=admin',
      `--serviceaccount=${attackerNamespace}:tenant`,
    ],
  ];
  for (const args of setup) expect((await kubectl(args)).code).toBe(0);
  await eventually(
    async () =>
      (
        await kubectl([
          'auth',
          'can-i',
          'create',
          'deployments.berth.dev',
          '-n',
          attackerNamespace,
          `--as=system:serviceaccount:${attackerNamespace}:tenant`,
        ])
      ).stdout.trim() === 'yes',
    20_000,
    "admin aggregating Berth's kinds",
  );
  // The API server enforces a new admission policy once its informer has it: until the guard refuses a
  // dry run as the tenant, an attack could pass for want of the policy, not for a hole in it.
  await eventually(
    async () => {
      const probe = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'probe' }, spec: { podSelector: {} } };
      const answer = await kubectl(
        ['apply', '--dry-run=server', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
        JSON.stringify(probe),
      );
      return answer.code !== 0 && /are Berth's/.test(answer.stderr);
    },
    20_000,
    'the NetworkPolicy guard in force',
  );
  // A deployment of the attacker's made before the victim's, to move onto the victim's host later.
  await attacker.ok('POST', '/v2/deployments', {
    name: 'decoy',
    source: 'external_docker',
    source_config: {},
    source_revision_config: { image_uri: 'busybox:1' },
  });
  const created = await victim.ok('POST', '/v2/deployments', {
    name: 'bank',
    source: 'external_docker',
    source_config: { custom_url: 'https://bank.apps.example.com' },
    source_revision_config: { image_uri: 'nginx:1' },
    secrets: [{ name: 'BANK_TOKEN', value: victimSecret }],
  });
  victimDeploymentId = created.id;
  await httpApi(url, { 'x-api-key': corpKey }).ok('POST', '/v2/deployments', {
    name: 'web',
    source: 'external_docker',
    source_config: {},
    source_revision_config: { image_uri: 'nginx:1' },
  });
});

afterAll(async () => {
  await berth?.stop();
  await github?.stop();
  await dns?.close();
  if (corpNamespace) await kubectl(['delete', 'namespace', corpNamespace, '--wait=false', '--ignore-not-found']);
  await kubectl([
    'delete',
    'validatingadmissionpolicybinding,validatingadmissionpolicy',
    routePolicy,
    networkPolicyGuard,
    '--ignore-not-found',
  ]);
  await kubectl([
    'delete',
    'clusterrole',
    `${aggregateRelease}-berth-aggregate-to-edit`,
    `${aggregateRelease}-berth-aggregate-to-view`,
    '--ignore-not-found',
  ]);
  console.error(
    `[hostile tenant] ${tally.tried} attacks tried, ${tally.refused} refused or contained, ${seen.filter((text) => text.includes(victimSecret)).length} answers with the victim's secret`,
  );
});

/** Whether a text holds the victim's secret, as it is or in base64 (as a Secret's data holds it). */
const exposed = (text: string) => text.includes(victimSecret) || text.includes(Buffer.from(victimSecret).toString('base64'));

/** An attack through the HTTP API with the attacker's key: its answer's status must be one of `refusals`
 * (and its body match `why`, where given: refused for the reason the attack is about). */
async function throughApi(
  method: string,
  path: string,
  body: unknown,
  refusals: number[],
  headers: Record<string, string> = {},
  why?: RegExp,
): Promise<number> {
  tally.tried += 1;
  const response = await fetch(`${attacker.url}${path}`, {
    method,
    headers: { 'x-api-key': attackerKey, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  seen.push(text);
  expect(refusals, `${method} ${path}`).toContain(response.status);
  if (why) expect(text).toMatch(why);
  tally.refused += 1;
  return response.status;
}

/** An attack through kubectl as the tenant (or another identity it holds): it must fail, with a message matching `why`. */
async function throughKubectl(
  args: string[],
  why: RegExp,
  input?: string,
  as = `system:serviceaccount:${attackerNamespace}:tenant`,
): Promise<void> {
  tally.tried += 1;
  const result = await kubectl([...args, `--as=${as}`], input);
  seen.push(result.stdout, result.stderr);
  expect(result.code, `kubectl ${args.join(' ')}`).not.toBe(0);
  expect(result.stderr).toMatch(why);
  tally.refused += 1;
}

/** The Service a deployment's route (an Ingress here: no Gateway is configured) sends requests to. */
async function routedService(namespace: string, name: string): Promise<string> {
  return eventually(
    async () => {
      const got = await kubectl(['get', 'ingress', name, '-n', namespace, '-o', 'json']);
      if (got.code !== 0) return undefined;
      const ingress = JSON.parse(got.stdout) as { spec: { rules: { http: { paths: { backend: { service: { name: string } } }[] } }[] } };
      return ingress.spec.rules[0]?.http.paths[0]?.backend.service.name;
    },
    30_000,
    `the route of ${namespace}/${name}`,
  );
}

/** A backend's name as Traefik writes it: every run of characters other than letters and digits one dash. */
const atGateway = (name: string) =>
  name
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('-');

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** An object's condition of `type`, if it has one. */
async function conditionOf(namespace: string, name: string, type: string, kind = 'deployments.berth.dev'): Promise<Condition | undefined> {
  const got = await kubectl(['get', kind, name, '-n', namespace, '-o', 'json']);
  const conditions = (JSON.parse(got.stdout) as { status?: { conditions?: Condition[] } }).status?.conditions;
  return conditions?.find((condition) => condition.type === type);
}

/** The reason of an object's Stalled condition while it is True, or ''. */
async function stalledReason(namespace: string, name: string, kind = 'deployments.berth.dev'): Promise<string> {
  const stalled = await conditionOf(namespace, name, 'Stalled', kind);
  return stalled?.status === 'True' ? stalled.reason : '';
}

/** One attack through kubectl that the CRD admits: the attacker's Deployment applied as the tenant, once it
 * is Stalled with `reason` (counted as tried; the caller counts it refused once it checked nothing ran). */
async function appliedUntilStalled(name: string, spec: object, reason: string, what = 'the deployment Stalled'): Promise<void> {
  tally.tried += 1;
  const applied = await kubectl(
    ['apply', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
    deployment(name, spec),
  );
  expect(applied.code, applied.stderr).toBe(0);
  await eventually(async () => (await stalledReason(attackerNamespace, name)) === reason, 20_000, what);
}

/** The names of a deployment listing: the attacker's own is its decoy alone. */
function ownNames(listing: { resources: { name: string }[] }): string[] {
  return listing.resources.map((deployment) => deployment.name);
}

const deployment = (name: string, spec: object) =>
  JSON.stringify({
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name },
    spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'busybox:1' }, ...spec },
  });

describe('a hostile tenant', () => {
  it('cannot reach another organization through the HTTP API', async () => {
    await throughApi('GET', `/v2/deployments/${victimDeploymentId}`, undefined, [404]);
    await throughApi('PATCH', `/v2/deployments/${victimDeploymentId}`, { source_revision_config: { image_uri: 'evil:1' } }, [404]);
    await throughApi('DELETE', `/v2/deployments/${victimDeploymentId}`, undefined, [404]);
    await throughApi('GET', `/v2/deployments/${victimDeploymentId}/revisions`, undefined, [404]);
    await throughApi('POST', `/v2/deployments/${victimDeploymentId}/push-token`, undefined, [404]);
    await throughApi('GET', `/v2/deployment-logs?deployment_id=${victimDeploymentId}`, undefined, [404]);
    await throughApi('GET', '/v2/deployments', undefined, [401], { 'x-tenant-id': victimOrganization });
    const list = await attacker.ok('GET', '/v2/deployments');
    expect(ownNames(list)).toEqual(['decoy']);
  });

  it("cannot ask for privileges, another's host, Berth's host, a credentialed repository or a swarm", async () => {
    const create = (name: string, sourceConfig: object) => ({
      name,
      source: 'external_docker',
      source_config: sourceConfig,
      source_revision_config: { image_uri: 'busybox:1' },
    });
    await throughApi(
      'POST',
      '/v2/deployments',
      create('root', { resource_spec: { sidecars: [{ name: 'root', image: 'busybox', securityContext: { privileged: true } }] } }),
      [422],
    );
    await throughApi(
      'POST',
      '/v2/deployments',
      create('caps', {
        resource_spec: { init_containers: [{ name: 'caps', image: 'busybox', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] },
      }),
      [422],
    );
    // The victim's host and a host nobody holds get the same refusal: the answer tells nothing of other tenants.
    for (const host of ['bank.apps.example.com', 'free.apps.example.com']) {
      const unproven = new RegExp(
        `custom_url host ${host.replaceAll('.', '\\.')} is not proven to be this organization's: publish a DNS TXT record`,
      );
      await throughApi('POST', '/v2/deployments', create('phish', { custom_url: `https://${host}/login` }), [422], {}, unproven);
    }
    await throughApi('POST', '/v2/deployments', create('mitm', { custom_url: 'https://api.apps.example.com/v2' }), [422]);
    await throughApi('POST', '/v2/deployments', create('elsewhere', { custom_url: 'https://victim.example.org' }), [422]);
    // The victim's own URL (under an allowed domain, but the installation's apps domain).
    await throughApi(
      'POST',
      '/v2/deployments',
      create('impostor', { custom_url: `https://shop.${victimNamespace}.run.example.com/` }),
      [422],
    );
    await throughApi('POST', '/v2/deployments', create('swarm', { resource_spec: { min_scale: 1, max_scale: 10_000 } }), [422]);
    await throughApi(
      'POST',
      '/v2/deployments',
      {
        name: 'leak',
        source: 'codehost',
        source_config: { integration_id: randomUUID(), repo_url: 'https://user:token@github.com/a/b' },
        source_revision_config: { repo_ref: 'main' },
      },
      [422],
    );
    await throughApi(
      'POST',
      '/v2/deployments',
      {
        name: 'ssrf',
        source: 'codehost',
        source_config: { integration_id: randomUUID(), repo_url: 'https://github.com/a/b#@169.254.169.254/' },
        source_revision_config: { repo_ref: 'main' },
      },
      [422],
    );
    expect(ownNames(await attacker.ok('GET', '/v2/deployments'))).toEqual(['decoy']);
  });

  it("cannot do through kubectl what the API refuses, nor widen or lift its organization's NetworkPolicy", async () => {
    await throughKubectl(
      ['apply', '-n', attackerNamespace, '-f', '-'],
      /privileged containers are not allowed/,
      deployment('root', {
        sourceConfig: { resourceSpec: { sidecars: [{ name: 'root', image: 'busybox', securityContext: { privileged: true } }] } },
      }),
    );
    // Kubernetes' admin role may write NetworkPolicies, and they add up: one of the team's own beside the
    // organization's could only open what it closes (the blocked networks), and deleting it opens all.
    const policies = async () =>
      JSON.parse((await kubectl(['get', 'networkpolicies', '-n', attackerNamespace, '-o', 'json'])).stdout) as {
        items: { metadata: { name: string }; spec: unknown }[];
      };
    const organizationPolicy = await eventually(
      async () => (await policies()).items.find((policy) => policy.metadata.name === 'berth-organization'),
      20_000,
      "the attacker's organization NetworkPolicy",
    );
    const berthOnly = /NetworkPolicies in an organization's namespace are Berth's/;
    const everywhere = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'open' } };
    await throughKubectl(
      ['apply', '-n', attackerNamespace, '-f', '-'],
      berthOnly,
      JSON.stringify({ ...everywhere, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] } }),
    );
    await throughKubectl(['delete', 'networkpolicy', 'berth-organization', '-n', attackerNamespace], berthOnly);
    await throughKubectl(
      ['patch', 'networkpolicy', 'berth-organization', '-n', attackerNamespace, '--type', 'merge', '-p', '{"spec":{"egress":[{}]}}'],
      berthOnly,
    );
    // Where it would show: the namespace has the organization's policy alone, as Berth wrote it.
    expect((await policies()).items).toEqual([organizationPolicy]);
  });

  it("reads none of Berth's own Secrets (the registry credential, the licence copy, the backup store's keys) into an app, by any way a pod names a Secret", async () => {
    const image = { source: 'external_docker', source_revision_config: { image_uri: 'busybox:1' } };
    const licence = { name: 'berth-agent-server-license', key: 'LANGGRAPH_CLOUD_LICENSE_KEY' };
    // Refused for naming Berth's own Secret, not for the shape of the request.
    const own = /which no deployment reads/;
    const reference = { name: 'KEY', secret_name: licence.name, secret_key: licence.key };
    await throughApi('POST', '/v2/deployments', { name: 'licence-ref', ...image, secret_references: [reference] }, [422], {}, own);
    const sidecar = (more: object) => ({ name: 'peek', image: 'busybox:1', ...more });
    for (const resourceSpec of [
      { sidecars: [sidecar({ env: [{ name: 'KEY', valueFrom: { secretKeyRef: licence } }] })] },
      { sidecars: [sidecar({ envFrom: [{ secretRef: { name: 'berth-organization' } }] })] },
      { volumes: [{ name: 'creds', secret: { secretName: 'berth-organization' } }] },
      { volumes: [{ name: 'creds', projected: { sources: [{ secret: { name: 'berth-agent-server-license' } }] } }] },
      { sidecars: [sidecar({ envFrom: [{ secretRef: { name: 'berth-backups' } }] })] },
    ])
      await throughApi(
        'POST',
        '/v2/deployments',
        { name: 'peek', ...image, source_config: { resource_spec: resourceSpec } },
        [422],
        {},
        own,
      );
    // kubectl: the secret entry is refused by the CRD; a free-form pod part is Stalled, and nothing runs.
    await throughKubectl(
      ['apply', '-n', attackerNamespace, '-f', '-'],
      /which no deployment reads/,
      deployment('licence-entry', { secrets: [{ name: 'KEY', valueFrom: { secretKeyRef: licence } }] }),
    );
    await appliedUntilStalled(
      'peek',
      { sourceConfig: { resourceSpec: { volumes: [{ name: 'creds', secret: { secretName: 'berth-organization' } }] } } },
      'SecretReserved',
    );
    expect((await kubectl(['get', 'deployments.apps', 'peek', '-n', attackerNamespace])).code).not.toBe(0);
    tally.refused += 1;
  });

  it('mounts nothing from the node past the network policy: no NFS export, no inline CSI volume', async () => {
    const image = { source: 'external_docker', source_revision_config: { image_uri: 'busybox:1' } };
    // The kubelet mounts these from the node's network, where no NetworkPolicy holds.
    for (const volume of [{ nfs: { server: '10.96.0.1', path: '/' } }, { csi: { driver: 'hostpath.csi.k8s.io', volumeAttributes: {} } }])
      await throughApi(
        'POST',
        '/v2/deployments',
        { name: 'mount', ...image, source_config: { resource_spec: { volumes: [{ name: 'data', ...volume }] } } },
        [422],
        {},
        /which this installation does not allow/,
      );
    await appliedUntilStalled(
      'mount',
      { sourceConfig: { resourceSpec: { volumes: [{ name: 'data', nfs: { server: '10.96.0.1', path: '/' } }] } } },
      'VolumeNotAllowed',
    );
    expect((await kubectl(['get', 'deployments.apps', 'mount', '-n', attackerNamespace])).code).not.toBe(0);
    tally.refused += 1;
  });

  it("gets no exemption as a service account of another namespace, as a GitOps controller's would be", async () => {
    // A `system:` identity outside the organization's namespace, with admin rights in it: what a team's
    // own tools namespace, or a cluster-wide GitOps controller applying the team's manifests, holds.
    const tools = `${attackerNamespace}-tools`;
    for (const args of [
      ['create', 'namespace', tools],
      ['create', 'serviceaccount', 'applier', '-n', tools],
      ['create', 'rolebinding', 'applier-admin', '-n', attackerNamespace, '--clusterrole=admin', `--serviceaccount=${tools}:applier`],
    ])
      expect((await kubectl(args)).code).toBe(0);
    const applier = `system:serviceaccount:${tools}:applier`;
    await eventually(
      async () =>
        (await kubectl(['auth', 'can-i', 'delete', 'networkpolicies', '-n', attackerNamespace, `--as=${applier}`])).stdout.trim() === 'yes',
      20_000,
      'the applier bound to admin',
    );
    const berthOnly = /NetworkPolicies in an organization's namespace are Berth's/;
    await throughKubectl(
      [
        'patch',
        'networkpolicy',
        'berth-organization',
        '-n',
        attackerNamespace,
        '--type',
        'merge',
        '-p',
        '{"spec":{"podSelector":{"matchLabels":{"none":"x"}}}}',
      ],
      berthOnly,
      undefined,
      applier,
    );
    await throughKubectl(['delete', 'networkpolicy', 'berth-organization', '-n', attackerNamespace], berthOnly, undefined, applier);
    await kubectl(['delete', 'namespace', tools, '--wait=false']);
  });

  it("cannot take another organization's host by moving an older deployment's custom URL onto it", async () => {
    tally.tried += 1;
    const moved = await kubectl([
      'patch',
      'deployments.berth.dev',
      'decoy',
      '-n',
      attackerNamespace,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { sourceConfig: { customUrl: 'https://bank.apps.example.com' } } }),
      `--as=system:serviceaccount:${attackerNamespace}:tenant`,
    ]);
    expect(moved.code, moved.stderr).toBe(0);
    // Refused for want of proof, before any claim is looked at: Stalled the same whoever holds the host.
    await eventually(
      async () => (await stalledReason(attackerNamespace, 'decoy')) === 'HostOwnershipUnproven',
      20_000,
      'the older deployment Stalled',
    );
    const decoyRoute = await kubectl(['get', 'ingress', 'decoy', '-n', attackerNamespace, '-o', 'jsonpath={.spec.rules[*].host}']);
    expect(decoyRoute.stdout).not.toContain('bank.apps.example.com');
    // The victim keeps its claim and is not Stalled: the host's first claim stands, whatever the age of a later claimant.
    const bank = JSON.parse((await kubectl(['get', 'deployments.berth.dev', 'bank', '-n', victimNamespace, '-o', 'json'])).stdout) as {
      status: { customHostClaim?: { host: string }; conditions?: { type: string; status: string }[] };
    };
    expect(bank.status.customHostClaim?.host).toBe('bank.apps.example.com');
    expect(await stalledReason(victimNamespace, 'bank')).toBe('');
    tally.refused += 1;
  });

  it("cannot take a host its owner freed: the owner's DNS record still names the owner", async () => {
    // The victim serves a host it proved, then deletes the deployment.
    dns.setTxt(ownershipRecordName('shop.apps.example.com'), [ownershipToken(victimOrganization)]);
    const shop = await victim.ok('POST', '/v2/deployments', {
      name: 'shop',
      source: 'external_docker',
      source_config: { custom_url: 'https://shop.apps.example.com/' },
      source_revision_config: { image_uri: 'nginx:1' },
    });
    await eventually(
      async () => (await victim.ok('GET', `/v2/deployments/${shop.id}`)).conditions.length > 0 || undefined,
      20_000,
      'the shop looked at',
    );
    const recorded = await kubectl([
      'get',
      'deployments.berth.dev',
      'shop',
      '-n',
      victimNamespace,
      '-o',
      'jsonpath={.status.customHostClaim.host}',
    ]);
    expect(recorded.stdout).toBe('shop.apps.example.com');
    await victim.ok('DELETE', `/v2/deployments/${shop.id}`);
    await eventually(
      async () => (await kubectl(['get', 'deployments.berth.dev', 'shop', '-n', victimNamespace])).code !== 0 || undefined,
      30_000,
      'the shop gone',
    );
    // The attacker asks for it at once, both ways in.
    await throughApi(
      'POST',
      '/v2/deployments',
      {
        name: 'freed',
        source: 'external_docker',
        source_config: { custom_url: 'https://shop.apps.example.com/' },
        source_revision_config: { image_uri: 'busybox:1' },
      },
      [422],
      {},
      /_berth-challenge\.shop\.apps\.example\.com holds another value/,
    );
    try {
      await appliedUntilStalled('freed', { sourceConfig: { customUrl: 'https://shop.apps.example.com/' } }, 'HostOwnershipUnproven');
      const routed = await kubectl(['get', 'ingress', 'freed', '-n', attackerNamespace, '-o', 'jsonpath={.spec.rules[*].host}']);
      expect(routed.stdout).not.toContain('shop.apps.example.com');
      tally.refused += 1;
    } finally {
      await kubectl(['delete', 'deployments.berth.dev', 'freed', '-n', attackerNamespace, '--ignore-not-found', '--wait=false']);
    }
  });

  it("cannot hold Berth's controller with a zone that never answers its host's proof", async () => {
    // The attacker's own zone drops Berth's questions: a pass that waited on each would hold a worker.
    dns.silence(ownershipRecordName('tarpit.apps.example.com'));
    tally.tried += 1;
    const applied = await kubectl(
      ['apply', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
      deployment('tarpit', { sourceConfig: { customUrl: 'https://tarpit.apps.example.com/' } }),
    );
    expect(applied.code, applied.stderr).toBe(0);
    try {
      // The pass says it is looking while DNS stays silent: it went on instead of waiting.
      const looking = await eventually(
        async () => (await conditionOf(attackerNamespace, 'tarpit', 'Ready'))?.message.includes('slow to answer') || undefined,
        20_000,
        'the tarpit looked at',
      );
      expect(looking).toBe(true);
      expect(await stalledReason(attackerNamespace, 'tarpit')).toBe('');
      // Once the lookup gives up, the verdict wakes the deployment: refused, never routed.
      await eventually(
        async () => (await stalledReason(attackerNamespace, 'tarpit')) === 'HostOwnershipUnproven' || undefined,
        30_000,
        'the tarpit Stalled',
      );
      expect((await conditionOf(attackerNamespace, 'tarpit', 'Ready'))?.message).toMatch(
        /looking up _berth-challenge\.tarpit\.apps\.example\.com failed: ETIMEOUT/,
      );
      const routed = await kubectl(['get', 'ingress', 'tarpit', '-n', attackerNamespace, '-o', 'jsonpath={.spec.rules[*].host}']);
      expect(routed.stdout).not.toContain('tarpit.apps.example.com');
      tally.refused += 1;
    } finally {
      await kubectl(['delete', 'deployments.berth.dev', 'tarpit', '-n', attackerNamespace, '--ignore-not-found', '--wait=false']);
    }
  });

  it("cannot reach another organization's app with names that join or fold to its names at the Gateway", async () => {
    // Routes named Services after deployments, `<attacker>`'s `corp-web` and `corp--web` would be
    // `<attacker>-corp-web` at the Gateway (`<namespace>-<service>-<port>`, dashes folded), as
    // `<attacker>-corp`'s `web` is. Both are served, each through a route Service named from its uid.
    tally.tried += 1;
    await attacker.ok('POST', '/v2/deployments', {
      name: 'corp-web',
      source: 'external_docker',
      source_config: {},
      source_revision_config: { image_uri: 'busybox:1' },
    });
    tally.tried += 1;
    const applied = await kubectl(
      ['apply', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
      deployment('corp--web', {}),
    );
    expect(applied.code, applied.stderr).toBe(0);
    const backends = await Promise.all(
      [
        [corpNamespace, 'web'],
        [attackerNamespace, 'corp-web'],
        [attackerNamespace, 'corp--web'],
      ].map(async ([namespace, name]) => {
        const service = await routedService(namespace!, name!);
        // Each route Service selects its own deployment's pods.
        const selected = JSON.parse((await kubectl(['get', 'service', service, '-n', namespace!, '-o', 'json'])).stdout) as {
          spec: { selector: Record<string, string> };
        };
        expect(selected.spec.selector['berth.dev/deployment']).toBe(name);
        return atGateway(`${namespace}-${service}-80`);
      }),
    );
    expect(new Set(backends).size).toBe(3);
    expect(await stalledReason(corpNamespace, 'web')).toBe('');
    tally.refused += 2;
    // A name of the route Services' form is refused: it would take the route Service of another of its namespace.
    const decoyRoute = await routedService(attackerNamespace, 'decoy');
    await throughApi(
      'POST',
      '/v2/deployments',
      { name: decoyRoute, source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'busybox:1' } },
      [422],
      {},
      /the form of the Services Berth routes through/,
    );
  });

  it("sends no request from Berth's pod to an address of its choosing through an integration's baseUrl", async () => {
    // An address inside the cluster only Berth's pod reaches: the listener counts what arrives.
    let arrived = 0;
    const internal = createServer((_request, response) => {
      arrived += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"login":"internal"}');
    });
    await new Promise<void>((listening) => internal.listen(0, '127.0.0.1', listening));
    try {
      tally.tried += 1;
      const asTenant = ['apply', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`];
      const token = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'internal-token' }, stringData: { token: 'ghp_attacker' } };
      expect((await kubectl(asTenant, JSON.stringify(token))).code).toBe(0);
      const integration = {
        apiVersion: 'berth.dev/v1alpha1',
        kind: 'CodeHostIntegration',
        metadata: { name: 'internal' },
        spec: {
          baseUrl: `http://127.0.0.1:${(internal.address() as AddressInfo).port}/api/v3`,
          credentialsSecretRef: { name: 'internal-token' },
        },
      };
      const applied = await kubectl(asTenant, JSON.stringify(integration));
      expect(applied.code, applied.stderr).toBe(0);
      await eventually(
        async () => (await stalledReason(attackerNamespace, 'internal', 'codehostintegrations.berth.dev')) === 'BaseUrlNotAllowed',
        20_000,
        'the integration Stalled',
      );
      expect(arrived).toBe(0);
      tally.refused += 1;
    } finally {
      internal.close();
    }
  });

  it("gets no access to another organization's sources and images in the registry, with its credential, a forged one or none", async () => {
    const ownSecret = await eventually(
      async () => {
        const got = await kubectl([
          'get',
          'secret',
          'berth-organization',
          '-n',
          attackerNamespace,
          '-o',
          'jsonpath={.data.\\.dockerconfigjson}',
          `--as=system:serviceaccount:${attackerNamespace}:tenant`,
        ]);
        return got.code === 0 && got.stdout ? got.stdout : undefined;
      },
      20_000,
      "the attacker's registry credential",
    );
    const own = JSON.parse(Buffer.from(ownSecret, 'base64').toString()).auths[registryHost] as { username: string; password: string };
    const basic = (username: string, password: string) => ({
      authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    });
    /** What the token endpoint grants for every action on a repository; `[]` is no access. */
    const granted = async (repository: string, headers: Record<string, string>) => {
      const response = await fetch(
        `${attacker.url}/v2/registry/token?service=berth-registry&scope=${encodeURIComponent(`repository:${repository}:pull,push`)}`,
        { headers },
      );
      const body = await response.text();
      seen.push(body);
      return response.status === 200
        ? JSON.parse(Buffer.from((JSON.parse(body) as { token: string }).token.split('.')[1] ?? '', 'base64url').toString()).access
        : response.status;
    };
    expect(await granted(`${attackerNamespace}/app`, basic(own.username, own.password))).toEqual([
      { type: 'repository', name: `${attackerNamespace}/app`, actions: ['pull', 'push'] },
    ]);
    const attacks: [string, Record<string, string>, unknown][] = [
      [`${victimNamespace}/bank/sources`, basic(own.username, own.password), []],
      [`${victimNamespace}/bank`, basic(own.username, own.password), []],
      [`${victimNamespace}/bank`, {}, []],
      // The attacker's own credential with the victim's namespace spliced in: the signature no longer holds.
      [`${victimNamespace}/bank`, basic(own.username, spliced(own.password, victimNamespace)), 401],
      [`${victimNamespace}/bank`, basic('berth-push', 'bpt_forged.token'), 401],
    ];
    for (const [repository, headers, expected] of attacks) {
      tally.tried += 1;
      expect(await granted(repository, headers), repository).toEqual(expected);
      tally.refused += 1;
    }
    await throughKubectl(['get', 'secret', 'berth-organization', '-n', victimNamespace], /forbidden/);
  });

  it('keeps no push credential past its deployment: made again under the same name, the old one gets nothing', async () => {
    const pushTokenFor = async (id: string) =>
      (await attacker.ok('POST', `/v2/deployments/${id}/push-token`)) as { username: string; token: string };
    const create = () =>
      attacker.ok('POST', '/v2/deployments', { name: 'pushed', source: 'internal_docker', source_config: {}, source_revision_config: {} });
    const first = await create();
    const old = await pushTokenFor(first.id);
    const status = async (credential: { username: string; token: string }) =>
      (
        await fetch(
          `${attacker.url}/v2/registry/token?service=berth-registry&scope=${encodeURIComponent(`repository:${attackerNamespace}/pushed:push`)}`,
          { headers: { authorization: `Basic ${Buffer.from(`${credential.username}:${credential.token}`).toString('base64')}` } },
        )
      ).status;
    expect(await status(old)).toBe(200);
    await attacker.ok('DELETE', `/v2/deployments/${first.id}`);
    await eventually(
      async () => (await kubectl(['get', 'deployments.berth.dev', 'pushed', '-n', attackerNamespace])).code !== 0,
      30_000,
      'the deployment gone',
    );
    const second = await create();
    tally.tried += 1;
    expect(await status(old)).toBe(401);
    tally.refused += 1;
    expect(await status(await pushTokenFor(second.id))).toBe(200);
  });

  it("cannot route another organization's host, or a longer path on it, with an Ingress of its own", async () => {
    const ingress = (name: string, host: string, path: string) =>
      JSON.stringify({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name },
        spec: {
          rules: [{ host, http: { paths: [{ path, pathType: 'Prefix', backend: { service: { name: 'phish', port: { number: 80 } } } }] } }],
        },
      });
    // Kubernetes' admin role lets the tenant create Ingresses: the policy is what refuses them.
    expect(
      (
        await kubectl([
          'auth',
          'can-i',
          'create',
          'ingresses',
          '-n',
          attackerNamespace,
          `--as=system:serviceaccount:${attackerNamespace}:tenant`,
        ])
      ).stdout.trim(),
    ).toBe('yes');
    await eventually(
      async () => (await kubectl(['get', 'validatingadmissionpolicybinding', routePolicy])).code === 0,
      10_000,
      'the route policy bound',
    );
    await throughKubectl(
      ['apply', '-n', attackerNamespace, '-f', '-'],
      /denied request/,
      ingress('login', 'bank.apps.example.com', '/login'),
    );
    await throughKubectl(['apply', '-n', attackerNamespace, '-f', '-'], /denied request/, ingress('api', 'api.apps.example.com', '/v2'));
  });

  it('cannot reach the build namespace, where builds run privileged: not its Jobs, not their Secrets, no pod there', async () => {
    // Berth keeps the namespace closed: its NetworkPolicy admits no connection to any build.
    const policy = JSON.parse((await kubectl(['get', 'networkpolicy', 'berth-builds', '-n', buildNamespace, '-o', 'json'])).stdout) as {
      spec: { podSelector: object; policyTypes: string[]; ingress?: unknown[] };
    };
    expect(policy.spec).toMatchObject({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    expect(policy.spec.ingress ?? []).toEqual([]);
    await throughKubectl(['get', 'secrets', '-n', buildNamespace], /forbidden/);
    await throughKubectl(['get', 'jobs', '-n', buildNamespace], /forbidden/);
    await throughKubectl(['logs', '-n', buildNamespace, 'any-build-pod'], /forbidden/);
    await throughKubectl(
      ['apply', '-n', buildNamespace, '-f', '-'],
      /forbidden/,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'root' },
        spec: { containers: [{ name: 'c', image: 'busybox:1' }] },
      }),
    );
  });

  it("cannot run a privileged or host-sharing pod of its own: its namespace enforces Pod Security baseline, which Berth's own pods meet", async () => {
    await eventually(
      async () =>
        (await kubectl(['get', 'namespace', attackerNamespace, '-o', 'jsonpath={.metadata.labels.pod-security\\.kubernetes\\.io/enforce}']))
          .stdout === 'baseline',
      20_000,
      'the namespace enforcing baseline',
    );
    const pod = (name: string, spec: object) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { containers: [{ name: 'c', image: 'busybox:1', ...spec }] },
      });
    await throughKubectl(
      ['apply', '-n', attackerNamespace, '-f', '-'],
      /violates PodSecurity "baseline/,
      pod('root', { securityContext: { privileged: true } }),
    );
    await throughKubectl(
      ['apply', '-n', attackerNamespace, '-f', '-'],
      /violates PodSecurity "baseline/,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'host' },
        spec: { hostPID: true, containers: [{ name: 'c', image: 'busybox:1' }] },
      }),
    );
    await throughKubectl(
      ['label', 'namespace', attackerNamespace, 'pod-security.kubernetes.io/enforce=privileged', '--overwrite'],
      /forbidden/,
    );
    // What Berth renders for a deployment is admitted there (the API server's dry run of its pod).
    const app = await attacker.ok('POST', '/v2/deployments', {
      name: 'compliant',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 1 } },
      source_revision_config: { image_uri: 'busybox:1' },
    });
    const template = await eventually(
      async () => {
        const got = await kubectl(['get', 'deployments.apps', 'compliant', '-n', attackerNamespace, '-o', 'jsonpath={.spec.template}']);
        return got.code === 0 && got.stdout ? JSON.parse(got.stdout) : undefined;
      },
      20_000,
      "the deployment's workload",
    );
    const admitted = await kubectl(
      ['create', '--dry-run=server', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'compliant-pod', labels: template.metadata.labels },
        spec: template.spec,
      }),
    );
    expect(admitted.code, admitted.stderr).toBe(0);
    expect(admitted.stderr).not.toMatch(/PodSecurity/);
    expect((await attacker.call('DELETE', `/v2/deployments/${app.id}`)).status).toBe(204);
  });

  it("cannot take every listener of the Gateway with custom hosts: one past its organization's cap is refused", async () => {
    // Each custom host takes a listener of the shared Gateway or one of its shards: the hardened policy
    // lets an organization hold 10. The attacker fills its share, then asks for one more through both ways in.
    const held = JSON.parse((await kubectl(['get', 'deployments.berth.dev', '-n', attackerNamespace, '-o', 'json'])).stdout) as {
      items: { status?: { customHostClaim?: { host: string } } }[];
    };
    const already = new Set(held.items.map((item) => item.status?.customHostClaim?.host).filter(Boolean)).size;
    const made: string[] = [];
    const host = (name: string) => ({ custom_url: `https://${name}.apps.example.com/`, resource_spec: { max_scale: 0 } });
    // Hosts the attacker owns and proves: the cap, not the proof, is what stops the one more.
    for (const name of [...Array.from({ length: hardenedOrganizationPolicy.maxCustomHosts }, (_, i) => `host-${i}`), 'one-more'])
      dns.setTxt(ownershipRecordName(`${name}.apps.example.com`), [ownershipToken(attackerOrganization)]);
    try {
      for (let i = already; i < hardenedOrganizationPolicy.maxCustomHosts; i++) {
        const created = await attacker.ok('POST', '/v2/deployments', {
          name: `host-${i}`,
          source: 'external_docker',
          source_config: host(`host-${i}`),
          source_revision_config: { image_uri: 'busybox:1' },
        });
        made.push(created.id);
        await eventually(
          async () => (await attacker.ok('GET', `/v2/deployments/${created.id}`)).conditions.length > 0 || undefined,
          20_000,
          `host-${i} looked at`,
        );
      }
      await eventually(
        async () => {
          const now = JSON.parse(
            (await kubectl(['get', 'deployments.berth.dev', '-n', attackerNamespace, '-o', 'json'])).stdout,
          ) as typeof held;
          return new Set(now.items.map((item) => item.status?.customHostClaim?.host).filter(Boolean)).size >= 10 || undefined;
        },
        30_000,
        'ten hosts held',
      );
      await throughApi(
        'POST',
        '/v2/deployments',
        {
          name: 'one-more',
          source: 'external_docker',
          source_config: host('one-more'),
          source_revision_config: { image_uri: 'busybox:1' },
        },
        [409],
        {},
        /the most this installation allows one organization \(10\)/,
      );
      await appliedUntilStalled('one-more', { sourceConfig: { customUrl: 'https://one-more.apps.example.com/' } }, 'CustomHostLimit');
      expect((await kubectl(['get', 'ingress', 'one-more', '-n', attackerNamespace])).code).not.toBe(0);
      tally.refused += 1;
    } finally {
      await kubectl(['delete', 'deployments.berth.dev', 'one-more', '-n', attackerNamespace, '--ignore-not-found', '--wait=false']);
      for (const id of made) await attacker.call('DELETE', `/v2/deployments/${id}`);
    }
  });

  it('is contained when what it applies passes the schema: a swarm and a name that shadows its own are Stalled, writing nothing', async () => {
    tally.tried += 2;
    const applied = await kubectl(
      ['apply', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
      deployment('swarm', { sourceConfig: { resourceSpec: { maxScale: 500 } } }),
    );
    expect(applied.code, applied.stderr).toBe(0);
    const reason = async (name: string) =>
      (
        await kubectl([
          'get',
          'deployments.berth.dev',
          name,
          '-n',
          attackerNamespace,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Stalled")].reason}',
        ])
      ).stdout;
    await eventually(async () => (await reason('swarm')) === 'ReplicaCapExceeded', 20_000, 'the swarm Stalled');
    expect((await kubectl(['get', 'deployments.apps', 'swarm', '-n', attackerNamespace])).code).not.toBe(0);
    tally.refused += 1;
    await attacker.ok('POST', '/v2/deployments', {
      name: 'app',
      source: 'external_docker',
      source_revision_config: { image_uri: 'busybox:1' },
    });
    // Claims made in one second are ordered by uid (creation times have whole seconds): the shadowing
    // name comes in a later second, as it would from an attacker reacting to the first.
    const created = Date.parse(
      (await kubectl(['get', 'deployments.berth.dev', 'app', '-n', attackerNamespace, '-o', 'jsonpath={.metadata.creationTimestamp}']))
        .stdout,
    );
    await eventually(async () => Date.now() >= created + 1_000, 5_000, 'a later second');
    const shadow = await kubectl(
      ['apply', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
      deployment('app-queue', {}),
    );
    expect(shadow.code, shadow.stderr).toBe(0);
    await eventually(async () => (await reason('app-queue')) === 'NameTaken', 20_000, 'the shadowing name Stalled');
    tally.refused += 1;
  });

  it("cannot pass a deployment of its own off as another organization's preview", async () => {
    tally.tried += 1;
    const applied = await kubectl(
      ['apply', '-n', attackerNamespace, '-f', '-', `--as=system:serviceaccount:${attackerNamespace}:tenant`],
      deployment('bank-pr-1', {
        previewOf: { deploymentName: 'bank', pullRequest: 1, fromFork: false },
        secrets: [{ name: 'BANK_TOKEN', valueFrom: { secretKeyRef: { name: 'bank-secrets', key: 'BANK_TOKEN' } } }],
      }),
    );
    expect(applied.code, applied.stderr).toBe(0);
    // It stays the attacker's: not in the victim's listing, and reading the victim's Secret name in its own
    // namespace finds nothing to read.
    const stalled = async () =>
      (
        await kubectl([
          'get',
          'deployments.berth.dev',
          'bank-pr-1',
          '-n',
          attackerNamespace,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Stalled")].reason}',
        ])
      ).stdout;
    await eventually(async () => (await stalled()) === 'SecretNotFound', 20_000, 'the pretend preview Stalled');
    const victims = (await victim.ok('GET', '/v2/deployments')).resources as { name: string; is_preview: boolean }[];
    expect(victims.map((listed) => listed.name)).not.toContain('bank-pr-1');
    expect(victims.some((listed) => listed.is_preview)).toBe(false);
    tally.refused += 1;
  });

  it("runs its pre-deploy command only as its own app would, and reads no other organization's figures", async () => {
    await throughApi('GET', `/v2/deployments/${victimDeploymentId}/metrics`, undefined, [404]);
    const created = await attacker.ok('POST', '/v2/deployments', {
      name: 'migrate',
      source: 'external_docker',
      source_config: { pre_deploy_command: 'env; cat /etc/hostname', smoke_test_path: '/ready' },
      source_revision_config: { image_uri: 'busybox:1' },
    });
    // The command's Job: in the attacker's own namespace, its own image, its own secrets' Secret at most,
    // under the namespace's Pod Security like its pods, and nothing of the victim's.
    const job = await eventually(
      async () => {
        const found = await kubectl(['get', 'jobs', '-n', attackerNamespace, '-l', 'app.kubernetes.io/component=pre-deploy', '-o', 'json']);
        const items = (JSON.parse(found.stdout || '{"items":[]}') as { items: V1Job[] }).items;
        return items[0];
      },
      20_000,
      'the pre-deploy Job',
    );
    expect(job.metadata?.namespace).toBe(attackerNamespace);
    const pod = job.spec!.template.spec!;
    expect(pod.containers.map((c) => c.image)).toEqual(['busybox:1']);
    expect(JSON.stringify(pod)).not.toContain(victimNamespace);
    expect(pod.containers[0]!.securityContext?.privileged).toBeUndefined();
    expect(pod.serviceAccountName).toBeUndefined();
    await attacker.ok('DELETE', `/v2/deployments/${created.id}`);
  });

  it("gets no secret of the victim's into the preview its pull request from a fork makes", async () => {
    tally.tried += 1;
    const owner = github.account('victim-org', 'Organization');
    const repository = github.addRepository(owner, { name: 'store' });
    const token = github.issuePersonalToken(owner);
    for (const object of [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'github', labels: sharedSecretLabels }, stringData: { token } },
      {
        apiVersion: 'berth.dev/v1alpha1',
        kind: 'CodeHostIntegration',
        metadata: { name: 'github' },
        spec: { baseUrl: github.url, credentialsSecretRef: { name: 'github' } },
      },
    ])
      expect((await kubectl(['apply', '-n', victimNamespace, '-f', '-'], JSON.stringify(object))).code).toBe(0);
    const integration = JSON.parse(
      (await kubectl(['get', 'codehostintegration', 'github', '-n', victimNamespace, '-o', 'json'])).stdout,
    ) as {
      metadata: { uid: string };
    };
    await victim.ok('POST', '/v2/deployments', {
      name: 'store',
      source: 'codehost',
      source_config: { integration_id: integration.metadata.uid, repo_url: `${github.url}/victim-org/store`, previews: {} },
      source_revision_config: { repo_ref: 'main' },
      secrets: [{ name: 'STORE_TOKEN', value: victimSecret }],
    });
    // The attacker's fork asks to merge: its code would run in the preview. It gets none until a
    // maintainer labels the request (previews.forks defaults to label), however long it waits.
    const number = github.openPullRequest(repository, { headSha: 'a'.repeat(40), headRef: 'steal', fromFork: true });
    tally.tried += 1;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect((await kubectl(['get', 'deployments.berth.dev', `store-pr-${number}`, '-n', victimNamespace])).code).not.toBe(0);
    tally.refused += 1;
    github.updatePullRequest(repository, number, { labels: ['ok-to-preview'] });
    const preview = await eventually(
      async () => {
        const found = await kubectl(['get', 'deployments.berth.dev', `store-pr-${number}`, '-n', victimNamespace, '-o', 'json']);
        return found.code === 0
          ? (JSON.parse(found.stdout) as {
              spec: { secrets?: unknown[]; previewOf?: { fromFork: boolean }; sourceConfig?: { resourceSpec?: object } };
            })
          : undefined;
      },
      30_000,
      "the fork's preview",
    );
    expect(preview.spec.previewOf?.fromFork).toBe(true);
    expect(preview.spec.secrets).toEqual([]);
    expect(preview.spec.sourceConfig?.resourceSpec).toBeUndefined();
    expect(JSON.stringify(preview)).not.toContain('store-secrets');
    // Its build (the fork's code, in the build namespace) gets the victim's build credentials, never its
    // app's secrets: not in the Job, not in the Secret Berth copies for it.
    const uid = (
      JSON.parse((await kubectl(['get', 'deployments.berth.dev', `store-pr-${number}`, '-n', victimNamespace, '-o', 'json'])).stdout) as {
        metadata: { uid: string };
      }
    ).metadata.uid;
    const job = await eventually(
      async () => {
        const found = await kubectl(['get', 'jobs', '-n', buildNamespace, '-l', `berth.dev/build-for-deployment=${uid}`, '-o', 'json']);
        return (JSON.parse(found.stdout) as { items: { metadata: { name: string }; spec: { template: { spec: object } } }[] }).items[0];
      },
      30_000,
      "the fork preview's build Job",
    );
    expect(job.spec.template.spec).toMatchObject({ automountServiceAccountToken: false });
    const copied = await kubectl(['get', 'secret', job.metadata.name, '-n', buildNamespace, '-o', 'json']);
    expect(copied.code, copied.stderr).toBe(0);
    for (const text of [JSON.stringify(job), copied.stdout]) expect(exposed(text)).toBe(false);
    tally.refused += 1;
  });

  it("never sees the victim's secret, wherever the attacker can read", async () => {
    // Where the secret is, read as the cluster's admin: the search finds it there (as Berth stored it),
    // so finding it nowhere below means it is not there.
    const stored = (await kubectl(['get', 'secrets', '-n', victimNamespace, '-o', 'json'])).stdout;
    expect(stored).toContain(Buffer.from(victimSecret).toString('base64'));
    // Everything the attacker may list in its own namespace, and every answer it got.
    const readable = await kubectl([
      'get',
      'all,secrets,configmaps,events,deployments.berth.dev,revisions.berth.dev',
      '-n',
      attackerNamespace,
      '-o',
      'json',
      `--as=system:serviceaccount:${attackerNamespace}:tenant`,
    ]);
    expect(readable.code, readable.stderr).toBe(0);
    expect(exposed(readable.stdout)).toBe(false);
    expect(exposed(JSON.stringify(await attacker.ok('GET', '/v2/deployments')))).toBe(false);
    expect(seen.filter(exposed)).toEqual([]);
    // Nor in Berth's own log, which a platform team's log collector keeps.
    expect(berth.rawOutput.filter(exposed)).toEqual([]);
    // The victim itself reads its secret's name back, never its value.
    expect(JSON.stringify(await victim.ok('GET', `/v2/deployments/${victimDeploymentId}`))).not.toContain(victimSecret);
    // The README names how many attacks this suite makes; every one was refused or contained above.
    const named = /(\d+) attacks through the API and kubectl/.exec(readFileSync(join(import.meta.dirname, '../README.md'), 'utf8'))?.[1];
    expect(tally.tried).toBe(Number(named));
  });
});

/** An organization credential (`bor_<claims>.<mac>`) whose claims name another namespace, its MAC kept. */
function spliced(token: string, namespace: string): string {
  const [payload, mac] = token.slice('bor_'.length).split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
  return `bor_${Buffer.from(JSON.stringify({ ...claims, n: namespace })).toString('base64url')}.${mac}`;
}

// Bad input gets a clear 4xx with a `detail`, and changes nothing: each request of the table below is
// sent over a real socket, and the resourceVersion of every Berth object and Secret in both
// organizations' namespaces is compared before and after it.
import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  codeHostIntegrationKind,
  deploymentKind,
  group,
  oauthProviderKind,
  revisionKind,
  version,
  type Deployment,
} from '../src/api/index.ts';
import { testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type CallOptions, type TestFacade } from './support/facade.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

let t: TestFacade;
const ids = { deployment: '', otherDeployment: '', otherIntegration: '', revision: '' };

async function createObject(namespace: string, plural: string, body: object): Promise<{ metadata: { uid: string } }> {
  return (await custom.createNamespacedCustomObject({ group, version, namespace, plural, body })) as { metadata: { uid: string } };
}

const deploymentManifest = (name: string): Deployment => ({
  apiVersion: `${group}/${version}`,
  kind: 'Deployment',
  metadata: { name },
  spec: {
    source: 'external_docker',
    sourceConfig: { resourceSpec: { minScale: 1, maxScale: 3 } },
    sourceRevisionConfig: { imageUri: 'nginx:1' },
    secrets: [{ name: 'TOKEN' }],
  },
});

beforeAll(async () => {
  t = await startTestFacade({ observeTimeoutMs: 500 });
  const provider = {
    provider_id: 'fixture',
    name: 'Fixture',
    client_id: 'id',
    auth_url: 'https://a.example.com/auth',
    token_url: 'https://a.example.com/token',
    client_secret: 'fixture-secret',
  };
  expect((await t.call('POST', '/v2/auth/providers', { body: provider })).status).toBe(200);
  expect((await t.call('POST', '/v2/auth/providers', { body: { ...provider, provider_id: 'foreign' }, key: t.otherOrg.key })).status).toBe(
    200,
  );
  ids.deployment = (await createObject(t.org.namespace, deploymentKind.plural, deploymentManifest('app'))).metadata.uid;
  ids.otherDeployment = (await createObject(t.otherOrg.namespace, deploymentKind.plural, deploymentManifest('foreign-app'))).metadata.uid;
  ids.revision = (
    await createObject(t.otherOrg.namespace, revisionKind.plural, {
      apiVersion: `${group}/${version}`,
      kind: 'Revision',
      metadata: {
        name: 'foreign-app-0123456789',
        labels: { 'berth.dev/deployment': 'foreign-app' },
        ownerReferences: [{ apiVersion: `${group}/${version}`, kind: 'Deployment', name: 'foreign-app', uid: ids.otherDeployment }],
      },
      spec: { deploymentName: 'foreign-app', source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx:1' }, digest: 'abc' },
    })
  ).metadata.uid;
  await core.createNamespacedSecret({
    namespace: t.otherOrg.namespace,
    body: { metadata: { name: 'gh', labels: sharedSecretLabels }, stringData: { token: 'x' } },
  });
  ids.otherIntegration = (
    await createObject(t.otherOrg.namespace, codeHostIntegrationKind.plural, {
      apiVersion: `${group}/${version}`,
      kind: 'CodeHostIntegration',
      metadata: { name: 'gh' },
      spec: { credentialsSecretRef: { name: 'gh' } },
    })
  ).metadata.uid;
  // The facade reads from its cache: wait until it holds the fixtures.
  for (;;) {
    const seen = await t.call('GET', `/v2/deployments/${ids.deployment}`);
    const foreign = await t.call('GET', `/v2/deployments/${ids.otherDeployment}/revisions`, { key: t.otherOrg.key });
    if (seen.status === 200 && foreign.body?.resources?.length === 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
});

/** The API server may ask a busy client to come back (429): this file lists a lot. */
async function patiently<T>(request: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if ((error as { code?: number }).code !== 429 || attempt >= 20) throw error;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

/** name -> resourceVersion of every object a bad request could touch. */
async function snapshot(): Promise<Record<string, string>> {
  const namespaces = new Set([t.org.namespace, t.otherOrg.namespace]);
  const versions: Record<string, string> = {};
  type Listed = { items: { metadata: { namespace: string; name: string; resourceVersion: string } }[] };
  for (const plural of [
    deploymentKind.plural,
    revisionKind.plural,
    oauthProviderKind.plural,
    codeHostIntegrationKind.plural,
    'tracingprojects',
    'databasebackups',
    'databaserestores',
  ]) {
    const list = (await patiently(() => custom.listClusterCustomObject({ group, version, plural }))) as Listed;
    for (const { metadata } of list.items) {
      if (namespaces.has(metadata.namespace)) versions[`${metadata.namespace}/${plural}/${metadata.name}`] = metadata.resourceVersion;
    }
  }
  for (const namespace of namespaces) {
    for (const secret of (await patiently(() => core.listNamespacedSecret({ namespace }))).items) {
      versions[`${namespace}/secrets/${secret.metadata!.name}`] = secret.metadata!.resourceVersion!;
    }
  }
  return versions;
}

type Case = [what: string, method: string, path: () => string, options: CallOptions, status: number];

const dep = () => `/v2/deployments/${ids.deployment}`;
const providerBase = {
  provider_id: 'new-one',
  name: 'N',
  client_id: 'c',
  auth_url: 'https://a.example.com/a',
  token_url: 'https://a.example.com/t',
};
const json = (body: unknown): CallOptions => ({ body });

const cases: Case[] = [
  // Authentication and tenancy
  ['no API key', 'GET', () => '/v2/auth/providers', { key: null }, 401],
  ['an unknown API key', 'GET', () => '/v2/auth/providers', { key: 'berth_not-a-key' }, 401],
  ['an empty API key', 'GET', () => '/v2/auth/providers', { key: '' }, 401],
  ['a create without API key', 'POST', () => '/v2/auth/providers', { key: null, body: providerBase }, 401],
  ['X-Tenant-Id the key cannot reach', 'GET', () => '/v2/auth/providers', { headers: { 'x-tenant-id': randomUUID() } }, 401],
  ['X-Tenant-Id that is not a UUID', 'GET', () => '/v2/auth/providers', { headers: { 'x-tenant-id': 'nope' } }, 401],
  ["another organization's provider", 'GET', () => '/v2/auth/providers/foreign', {}, 404],
  [
    "another organization's provider via the shared key's other tenant",
    'GET',
    () => '/v2/auth/providers/fixture',
    { key: 'shared', headers: {} },
    404,
  ],
  // Malformed bodies
  ['malformed JSON', 'POST', () => '/v2/auth/providers', { raw: '{"provider_id": ' }, 422],
  ['a JSON array body', 'POST', () => '/v2/auth/providers', json([providerBase]), 422],
  ['a JSON string body', 'POST', () => '/v2/auth/providers', json('provider'), 422],
  ['a null body', 'POST', () => '/v2/auth/providers', { raw: 'null' }, 422],
  ['an empty body', 'POST', () => '/v2/auth/providers', { raw: '' }, 422],
  [
    'a text/plain body',
    'POST',
    () => '/v2/auth/providers',
    { raw: JSON.stringify(providerBase), headers: { 'content-type': 'text/plain' } },
    415,
  ],
  ['an oversized body', 'POST', () => '/v2/auth/providers', { body: { ...providerBase, name: 'x'.repeat(2 * 1024 * 1024) } }, 413],
  [
    'a __proto__ member',
    'POST',
    () => '/v2/auth/providers',
    { raw: `{"__proto__": {"admin": true}, ${JSON.stringify(providerBase).slice(1)}` },
    422,
  ],
  // Provider create: fields
  ['a missing provider_id', 'POST', () => '/v2/auth/providers', json({ ...providerBase, provider_id: undefined }), 422],
  ['provider_id as a number', 'POST', () => '/v2/auth/providers', json({ ...providerBase, provider_id: 42 }), 422],
  ['an unknown member', 'POST', () => '/v2/auth/providers', json({ ...providerBase, scopes: ['a'] }), 422],
  ['uses_pkce as a string', 'POST', () => '/v2/auth/providers', json({ ...providerBase, uses_pkce: 'yes' }), 422],
  [
    'an unknown token_endpoint_auth_method',
    'POST',
    () => '/v2/auth/providers',
    json({ ...providerBase, token_endpoint_auth_method: 'private_key_jwt' }),
    422,
  ],
  ['an unknown provider_type', 'POST', () => '/v2/auth/providers', json({ ...providerBase, provider_type: 'vendor_z' }), 422],
  ['auth_url that is no URL', 'POST', () => '/v2/auth/providers', json({ ...providerBase, auth_url: 'not a url' }), 422],
  ['name null (not nullable)', 'POST', () => '/v2/auth/providers', json({ ...providerBase, name: null }), 422],
  ['an empty client_id', 'POST', () => '/v2/auth/providers', json({ ...providerBase, client_id: '' }), 422],
  ['a duplicate provider_id', 'POST', () => '/v2/auth/providers', json({ ...providerBase, provider_id: 'fixture' }), 409],
  // Provider update and delete
  ['a provider PATCH with an unknown member', 'PATCH', () => '/v2/auth/providers/fixture', json({ colour: 'red' }), 422],
  ['a provider PATCH of provider_id', 'PATCH', () => '/v2/auth/providers/fixture', json({ provider_id: 'renamed' }), 422],
  ['a provider PATCH with a bad token_url', 'PATCH', () => '/v2/auth/providers/fixture', json({ token_url: 'ftp://x' }), 422],
  ["a PATCH of another organization's provider", 'PATCH', () => '/v2/auth/providers/foreign', json({ name: 'mine' }), 404],
  ["a DELETE of another organization's provider", 'DELETE', () => '/v2/auth/providers/foreign', {}, 404],
  // Deployment ids
  ['a deployment id that is not a UUID', 'GET', () => '/v2/deployments/not-a-uuid', {}, 422],
  ['a PATCH of a deployment id that is not a UUID', 'PATCH', () => '/v2/deployments/123', json({}), 422],
  ['a PATCH of an unknown deployment', 'PATCH', () => `/v2/deployments/${randomUUID()}`, json({}), 404],
  [
    "a PATCH of another organization's deployment",
    'PATCH',
    () => `/v2/deployments/${ids.otherDeployment}`,
    json({ source_config: { custom_url: 'https://x.example.com' } }),
    404,
  ],
  ["a DELETE of another organization's deployment", 'DELETE', () => `/v2/deployments/${ids.otherDeployment}`, {}, 404],
  // Deployment PATCH bodies
  ['a PATCH changing the name', 'PATCH', dep, json({ name: 'other' }), 422],
  ['a PATCH changing the source', 'PATCH', dep, json({ source: 'internal_docker' }), 422],
  ['a PATCH with an unknown top-level member', 'PATCH', dep, json({ replicas: 3 }), 422],
  ['a PATCH with an unknown resource_spec member', 'PATCH', dep, json({ source_config: { resource_spec: { gpus: 1 } } }), 422],
  ['min_scale as a string', 'PATCH', dep, json({ source_config: { resource_spec: { min_scale: 'two' } } }), 422],
  ['a negative min_scale', 'PATCH', dep, json({ source_config: { resource_spec: { min_scale: -1 } } }), 422],
  ['a fractional min_scale', 'PATCH', dep, json({ source_config: { resource_spec: { min_scale: 1.5 } } }), 422],
  ['min_scale above max_scale', 'PATCH', dep, json({ source_config: { resource_spec: { min_scale: 10 } } }), 422],
  ['repo_ref for an external_docker deployment', 'PATCH', dep, json({ source_revision_config: { repo_ref: 'main' } }), 422],
  ['integration_id that is not a UUID', 'PATCH', dep, json({ source_config: { integration_id: 'abc' } }), 422],
  ['custom_url that is no URL', 'PATCH', dep, json({ source_config: { custom_url: 'example' } }), 422],
  [
    'a volume with two sources',
    'PATCH',
    dep,
    json({ source_config: { resource_spec: { volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'c' } }] } } }),
    422,
  ],
  ['cpu above cpu_limit', 'PATCH', dep, json({ source_config: { resource_spec: { cpu: 2, cpu_limit: 1 } } }), 422],
  [
    'a sidecar with an unknown member',
    'PATCH',
    dep,
    json({ source_config: { resource_spec: { sidecars: [{ name: 's', image: 'i', privileged: true }] } } }),
    422,
  ],
  ['secrets as an object', 'PATCH', dep, json({ secrets: { TOKEN: 'x' } }), 422],
  ['a secret without value', 'PATCH', dep, json({ secrets: [{ name: 'TOKEN' }] }), 422],
  ['a secret name with a space', 'PATCH', dep, json({ secrets: [{ name: 'MY TOKEN', value: 'x' }] }), 422],
  [
    'two secrets of one name',
    'PATCH',
    dep,
    json({
      secrets: [
        { name: 'A', value: 'x' },
        { name: 'A', value: 'y' },
      ],
    }),
    422,
  ],
  ['a masked value for a secret never stored', 'PATCH', dep, json({ secrets: [{ name: 'NEW', value: '********' }] }), 422],
  ['a PATCH body that is an array', 'PATCH', dep, json([{ source_config: {} }]), 422],
  ['source_config that is a string', 'PATCH', dep, json({ source_config: 'big' }), 422],
  // Deployment create
  [
    'a deployment name with capitals and underscores',
    'POST',
    () => '/v2/deployments',
    json({ name: 'Bad_Name', source: 'external_docker', source_revision_config: { image_uri: 'x' } }),
    422,
  ],
  [
    'an unknown source',
    'POST',
    () => '/v2/deployments',
    json({ name: 'ok', source: 'ftp', source_revision_config: { image_uri: 'x' } }),
    422,
  ],
  [
    'a codehost deployment without integration_id',
    'POST',
    () => '/v2/deployments',
    json({
      name: 'ok',
      source: 'codehost',
      source_config: { repo_url: 'https://github.com/a/b' },
      source_revision_config: { repo_ref: 'main' },
    }),
    422,
  ],
  [
    'image_uri for a codehost deployment',
    'POST',
    () => '/v2/deployments',
    json({
      name: 'ok',
      source: 'codehost',
      source_config: { integration_id: randomUUID(), repo_url: 'https://github.com/a/b' },
      source_revision_config: { repo_ref: 'main', image_uri: 'x' },
    }),
    422,
  ],
  [
    'a deployment name already taken',
    'POST',
    () => '/v2/deployments',
    json({ name: 'app', source: 'external_docker', source_revision_config: { image_uri: 'x' } }),
    409,
  ],
  // Lists
  ['limit=0', 'GET', () => '/v2/deployments?limit=0', {}, 422],
  ['limit=101', 'GET', () => '/v2/auth/providers?limit=101', {}, 422],
  ['limit=abc', 'GET', () => '/v2/deployments?limit=abc', {}, 422],
  ['offset=-1', 'GET', () => '/v2/deployments?offset=-1', {}, 422],
  // Revisions
  ["revisions of another organization's deployment", 'GET', () => `/v2/deployments/${ids.otherDeployment}/revisions`, {}, 404],
  ['a revision id that is not a UUID', 'GET', () => `${dep()}/revisions/first`, {}, 422],
  ["a redeploy of another deployment's revision", 'POST', () => `${dep()}/revisions/${ids.revision}/redeploy`, {}, 404],
  [
    "a new revision of another organization's deployment",
    'POST',
    () => `/v2/deployments/${ids.otherDeployment}/revisions`,
    json({ source_revision_config: { image_uri: 'y' } }),
    404,
  ],
  ['a new revision with an unknown field', 'POST', () => `${dep()}/revisions`, json({ name: 'renamed' }), 422],
  ['a new revision that changes no revision input', 'POST', () => `${dep()}/revisions`, json({ source_config: {} }), 409],
  // Repositories
  ['an integration id that is not a UUID', 'GET', () => '/v1/integrations/codehost/github/repos', {}, 422],
  ['an unknown integration', 'GET', () => `/v1/integrations/codehost/${randomUUID()}/repos`, {}, 404],
  ["another organization's integration", 'GET', () => `/v1/integrations/codehost/${ids.otherIntegration}/repos`, {}, 404],
  ['an unknown route', 'GET', () => '/v3/anything', {}, 404],
];

describe('bad requests', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s (%s): a 4xx with a detail, nothing changed', async (_what, method, path, options, status) => {
    const callOptions = options.key === 'shared' ? { ...options, key: t.sharedKey, headers: { 'x-tenant-id': t.otherOrg.id } } : options;
    const before = await snapshot();
    const response = await t.call(method, path(), callOptions);
    expect(response.status, response.text).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const detail = response.body.detail;
    if (typeof detail === 'string') {
      expect(detail.length).toBeGreaterThan(0);
    } else {
      expect(detail.length).toBeGreaterThan(0);
      for (const problem of detail) {
        expect(problem).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
        expect(problem.loc.length).toBeGreaterThan(0);
      }
    }
    expect(response.text).not.toMatch(/\bat .*\.ts:\d+/);
    expect(await snapshot()).toEqual(before);
  });

  it('names the offending member in the interface spelling', async () => {
    const response = await t.call('PATCH', dep(), json({ source_config: { resource_spec: { min_scale: 'two', gpus: 1 } } }));
    expect(response.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'source_config', 'resource_spec', 'min_scale'], type: 'invalid_type' }),
        { loc: ['body', 'source_config', 'resource_spec', 'gpus'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ]),
    );
  });

  it('never logs a secret value or an API key', () => {
    const log = t.logLines.join('\n');
    expect(log).not.toContain('fixture-secret');
    expect(log).not.toContain(t.org.key);
  });
});

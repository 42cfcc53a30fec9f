// Arbitrary input never crashes the facade: random JSON, and random values in the members of a real
// PATCH and create body, answer 2xx or 4xx with a detail, never a 5xx.
import { CustomObjectsApi } from '@kubernetes/client-node';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { group, version } from '../src/api/index.ts';
import { testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type CallResult, type TestFacade } from './support/facade.ts';

const custom = testKubeConfig().makeApiClient(CustomObjectsApi);
let t: TestFacade;
let deploymentId: string;

beforeAll(async () => {
  t = await startTestFacade({ observeTimeoutMs: 50 });
  const created = (await custom.createNamespacedCustomObject({
    group,
    version,
    namespace: t.org.namespace,
    plural: 'deployments',
    body: {
      apiVersion: `${group}/${version}`,
      kind: 'Deployment',
      metadata: { name: 'fuzzed' },
      spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx' } },
    },
  })) as { metadata: { uid: string } };
  deploymentId = created.metadata.uid;
  while ((await t.call('GET', `/v2/deployments/${deploymentId}`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
});

function expectHandled(response: CallResult): void {
  expect(response.status, response.text).toBeLessThan(500);
  if (response.status >= 400) expect(response.body?.detail, response.text).toBeTruthy();
}

const anyValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string()),
  fc.dictionary(fc.string(), fc.string()),
);
const member = <K extends string>(names: K[]) => fc.dictionary(fc.constantFrom(...names), anyValue, { maxKeys: 4 });

const resourceMembers = [
  'min_scale',
  'max_scale',
  'cpu',
  'cpu_limit',
  'memory_mb',
  'labels',
  'annotations',
  'volumes',
  'sidecars',
  'image_pull_secrets',
  'db_storage_gi',
];
const sourceConfigMembers = [
  'integration_id',
  'repo_url',
  'deployment_type',
  'build_on_push',
  'custom_url',
  'listener_id',
  'install_command',
  'queue_worker',
  'health_check',
];
const revisionMembers = ['repo_ref', 'graph_config_path', 'image_uri', 'source_tarball_path'];

const patchBody = fc.record(
  {
    source_config: fc.oneof(
      fc.constant(null),
      fc
        .tuple(member(sourceConfigMembers), member(resourceMembers))
        .map(([config, resources]) => ({ ...config, resource_spec: resources })),
    ),
    source_revision_config: fc.oneof(fc.constant(null), member(revisionMembers)),
    secrets: fc.oneof(fc.constant(null), fc.array(fc.record({ name: fc.string(), value: fc.string() }), { maxLength: 3 }), anyValue),
    revision_source: fc.oneof(
      fc.constant(null),
      fc.constantFrom('external_docker', 'internal_docker', 'internal_source', 'codehost'),
      anyValue,
    ),
    tracked_packages: fc.oneof(fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), anyValue),
  },
  { requiredKeys: [] },
);

describe('arbitrary input', () => {
  it('random JSON to every write route answers 2xx or 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.json(),
        fc.constantFrom('POST /v2/auth/providers', 'POST /v2/deployments', 'PATCH /v2/deployments/:id'),
        async (text, route) => {
          const [method, path] = route.split(' ') as [string, string];
          expectHandled(await t.call(method, path.replace(':id', deploymentId), { raw: text }));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('random member values in a PATCH answer 2xx or 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(patchBody, async (body) => {
        expectHandled(await t.call('PATCH', `/v2/deployments/${deploymentId}`, { body }));
      }),
      { numRuns: 150 },
    );
  });

  it('random provider bodies answer 2xx or 4xx', async () => {
    const provider = fc.record(
      {
        provider_id: fc.oneof(fc.string({ minLength: 1 }), anyValue),
        name: fc.oneof(fc.string({ minLength: 1 }), anyValue),
        client_id: fc.string(),
        auth_url: fc.oneof(fc.webUrl(), fc.string()),
        token_url: fc.oneof(fc.webUrl(), fc.string()),
        client_secret: fc.oneof(fc.string(), fc.constant(null)),
        uses_pkce: anyValue,
        provider_type: fc.oneof(fc.constantFrom('vendor_a', 'vendor_b', null), fc.string()),
      },
      { requiredKeys: ['provider_id', 'name', 'client_id', 'auth_url', 'token_url'] },
    );
    await fc.assert(
      fc.asyncProperty(provider, async (body) => {
        expectHandled(await t.call('POST', '/v2/auth/providers', { body }));
      }),
      { numRuns: 100 },
    );
  });
});

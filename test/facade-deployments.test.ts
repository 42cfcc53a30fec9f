// Deployments through the HTTP facade with the Deployment controller running in-process against the
// real API server: create, read, list, PATCH (in place or a new revision), revisions, redeploy,
// delete, secrets kept in an owned Secret and masked in every answer, kubectl interop.
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentKind, group, revisionKind, version, type Deployment, type Revision } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type TestFacade } from './support/facade.ts';
import { markRolledOut } from './support/rollout.ts';
import { deploymentTable, expectTable } from './support/facade-shapes.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

let t: TestFacade;
let manager: Manager;
const firstInputDeadlineMs = 30_000;
const hostPolicy = { allowedDomains: ['apps.example.com'], reservedHosts: ['api.apps.example.com'] };

beforeAll(async () => {
  manager = new Manager({
    kubeConfig: testKubeConfig(),
    healthPort: false,
    logger: createLogger({ level: 'silent' }),
    processMetrics: false,
  });
  t = await startTestFacade({ manager, hostPolicy });
  // A first source or image is awaited for 30 s here (30 min by default).
  registerDeploymentControllers(manager, { namespaces: [t.org.namespace, t.otherOrg.namespace], firstInputDeadlineMs, hostPolicy });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
});

async function readDeployment(namespace: string, name: string): Promise<Deployment> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural: deploymentKind.plural, name })) as Deployment;
}

async function listRevisions(namespace: string): Promise<Revision[]> {
  return ((await custom.listNamespacedCustomObject({ group, version, namespace, plural: revisionKind.plural })) as { items: Revision[] })
    .items;
}

/** The image the application Deployment's pod template runs, if it exists. */
async function templateImage(namespace: string, name: string): Promise<string | undefined> {
  const found = await apps.readNamespacedDeployment({ namespace, name }).catch(() => undefined);
  return found?.spec?.template.spec?.containers[0]?.image;
}

async function create(name: string, extra: Record<string, unknown> = {}, key?: string) {
  const response = await t.call('POST', '/v2/deployments', {
    ...(key ? { key } : {}),
    body: {
      name,
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 3, cpu: 0.5 } },
      source_revision_config: { image_uri: 'nginx:1.27' },
      ...extra,
    },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe('POST /v2/deployments', () => {
  it('creates the Deployment and answers 201 once the controller made its first revision', async () => {
    const body = await create('web');
    expectTable(body, deploymentTable);
    expect(body).toMatchObject({
      name: 'web',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 3, cpu: 0.5 } },
      source_revision_config: { image_uri: 'nginx:1.27' },
      secrets: [],
    });
    expect(body.latest_revision_id).not.toBeNull();
    const stored = await readDeployment(t.org.namespace, 'web');
    expect(stored.metadata.uid).toBe(body.id);
    expect(stored.spec.sourceConfig.resourceSpec).toEqual({ minScale: 1, maxScale: 3, cpu: 0.5 });
    const revisions = await listRevisions(t.org.namespace);
    expect(revisions.map((r) => r.metadata.uid)).toContain(body.latest_revision_id);
    await eventually(
      async () => custom.getNamespacedCustomObject({ group, version, namespace: t.org.namespace, plural: 'tracingprojects', name: 'web' }),
      20_000,
      'the tracing project of the same name',
    );
  });

  it('keeps secret values in the owned <name>-secrets Secret and masks them in answers', async () => {
    const body = await create('with-secrets', { secrets: [{ name: 'DATABASE_URL', value: 'postgres://user:hunter2-password@db/app' }] });
    expect(body.secrets).toEqual([{ name: 'DATABASE_URL', value: '********' }]);
    const stored = await readDeployment(t.org.namespace, 'with-secrets');
    expect(stored.spec.secrets).toEqual([{ name: 'DATABASE_URL' }]);
    expect(JSON.stringify(stored)).not.toContain('hunter2');
    const secret = await core.readNamespacedSecret({ namespace: t.org.namespace, name: 'with-secrets-secrets' });
    expect(Buffer.from(secret.data!.DATABASE_URL!, 'base64').toString()).toBe('postgres://user:hunter2-password@db/app');
    expect(secret.metadata?.ownerReferences?.[0]?.uid).toBe(body.id);
    const read = await t.call('GET', `/v2/deployments/${body.id}`);
    expect(read.text).not.toContain('hunter2');
    expect(t.logLines.join('\n')).not.toContain('hunter2');
  });

  it('never takes over a Secret it did not make: a name whose <name>-secrets is another Secret is a 409 that leaves nothing', async () => {
    await core.createNamespacedSecret({
      namespace: t.org.namespace,
      body: { metadata: { name: 'github-app-secrets' }, stringData: { 'private-key': 'the-app-key' } },
    });
    const taken = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'github-app',
        source: 'external_docker',
        source_revision_config: { image_uri: 'nginx:1' },
        secrets: [{ name: 'private-key', value: '********' }],
      },
    });
    expect(taken.status, taken.text).toBe(409);
    expect(taken.body.detail).toMatch(/^Secret github-app-secrets exists in the namespace and does not belong to this Deployment/);
    const secret = await core.readNamespacedSecret({ namespace: t.org.namespace, name: 'github-app-secrets' });
    expect(Buffer.from(secret.data!['private-key']!, 'base64').toString()).toBe('the-app-key');
    await eventually(
      async () => !(await t.call('GET', '/v2/deployments?name=github-app')).body.resources.length,
      10_000,
      'the deployment taken back',
    );
  });

  it('takes secret_references: values read from Secrets the organization shares, a change of one a new revision', async () => {
    await core.createNamespacedSecret({
      namespace: t.org.namespace,
      body: { metadata: { name: 'team-tokens', labels: sharedSecretLabels }, stringData: { api: 'token-one', other: 'token-two' } },
    });
    const reference = { name: 'API_TOKEN', secret_name: 'team-tokens', secret_key: 'api' };
    const created = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'referenced',
        source: 'external_docker',
        source_revision_config: { image_uri: 'nginx:1' },
        secrets: [{ name: 'OWN', value: 'own-value' }],
        secret_references: [reference],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.secrets).toEqual([{ name: 'OWN', value: '********' }]);
    expect(created.body.secret_references).toEqual([reference]);
    expect((await readDeployment(t.org.namespace, 'referenced')).spec.secrets).toEqual([
      { name: 'OWN' },
      { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'team-tokens', key: 'api' } } },
    ]);
    expect(created.text).not.toContain('token-one');

    // Another key: a new revision; the secret with a value stays.
    const moved = await t.call('PATCH', `/v2/deployments/${created.body.id}`, {
      body: { secret_references: [{ ...reference, secret_key: 'other' }] },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.latest_revision_id).not.toBe(created.body.latest_revision_id);
    expect(moved.body.secrets).toEqual([{ name: 'OWN', value: '********' }]);
    expect(moved.body.secret_references).toEqual([{ ...reference, secret_key: 'other' }]);

    // A name twice is a 422 that changes nothing.
    const twice = await t.call('PATCH', `/v2/deployments/${created.body.id}`, {
      body: { secret_references: [{ name: 'OWN', secret_name: 'team-tokens', secret_key: 'api' }] },
    });
    expect(twice.status).toBe(422);
    expect(twice.body.detail).toEqual([
      { loc: ['body', 'secret_references', 0, 'name'], msg: 'Duplicate secret name OWN', type: 'value_error' },
    ]);
    const cleared = await t.call('PATCH', `/v2/deployments/${created.body.id}`, { body: { secret_references: [] } });
    expect(cleared.body.secret_references).toEqual([]);
    expect((await readDeployment(t.org.namespace, 'referenced')).spec.secrets).toEqual([{ name: 'OWN' }]);
  });

  it('answers 409 for a name already taken in the organization', async () => {
    await create('taken');
    const again = await t.call('POST', '/v2/deployments', {
      body: { name: 'taken', source: 'external_docker', source_revision_config: { image_uri: 'nginx:2' } },
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('Deployment taken already exists.');
  });

  it('accepts every tier of the reference, dev_zero and serverless (the scale-to-zero tiers clients send by default) among them, in the older spellings too, and refuses others', async () => {
    const zero = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'tier-zero',
        source: 'external_docker',
        source_config: { deployment_type: 'dev_zero' },
        source_revision_config: { image_uri: 'nginx:1' },
      },
    });
    expect(zero.status, zero.text).toBe(201);
    expect(zero.body.source_config.deployment_type).toBe('dev_zero');
    for (const [spelled, tier] of [
      ['DEV', 'dev'],
      ['dev-zero', 'dev_zero'],
      ['Production', 'prod'],
      ['development', 'dev'],
      // What newer clients send (serverless is their default).
      ['serverless', 'serverless'],
      ['dedicated', 'dedicated'],
    ] as const) {
      const legacy = await t.call('POST', '/v2/deployments', {
        body: {
          name: `tier-${spelled.toLowerCase()}`,
          source: 'external_docker',
          source_config: { deployment_type: spelled },
          source_revision_config: { image_uri: 'nginx:1' },
        },
      });
      expect(legacy.status, legacy.text).toBe(201);
      expect(legacy.body.source_config.deployment_type).toBe(tier);
    }
    const unknown = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'tier-bad',
        source: 'external_docker',
        source_config: { deployment_type: 'huge' },
        source_revision_config: { image_uri: 'nginx:1' },
      },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'source_config', 'deployment_type']);
  });

  it('checks members against the source', async () => {
    const missingImage = await t.call('POST', '/v2/deployments', { body: { name: 'no-image', source: 'external_docker' } });
    expect(missingImage.status).toBe(422);
    expect(missingImage.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'source_revision_config', 'image_uri'], type: 'missing' }),
    );
    const repoForDocker = await t.call('POST', '/v2/deployments', {
      body: { name: 'docker-repo', source: 'external_docker', source_revision_config: { image_uri: 'nginx', repo_ref: 'main' } },
    });
    expect(repoForDocker.status).toBe(422);
    expect(repoForDocker.body.detail[0].loc).toEqual(['body', 'source_revision_config', 'repo_ref']);
  });

  it('creates an internal_docker deployment that waits for its first image, and makes its first revision when a PATCH brings one', async () => {
    const waiting = await t.call('POST', '/v2/deployments', {
      body: { name: 'awaits-image', source: 'internal_docker', source_revision_config: {} },
    });
    expect(waiting.status, waiting.text).toBe(201);
    expect(waiting.body).toMatchObject({ latest_revision_id: null, active_revision_id: null, status: 'UNKNOWN' });
    const stored = await eventually(
      async () => {
        const d = await readDeployment(t.org.namespace, 'awaits-image');
        return d.status?.conditions?.find((c) => c.type === 'Reconciling' && c.reason === 'AwaitingImage') ? d : undefined;
      },
      10_000,
      'Reconciling AwaitingImage',
    );
    expect(stored.status?.conditions?.find((c) => c.type === 'Stalled')?.status).toBe('False');
    expect((await listRevisions(t.org.namespace)).filter((r) => r.spec.deploymentName === 'awaits-image')).toEqual([]);

    const patched = await t.call('PATCH', `/v2/deployments/${waiting.body.id}`, {
      body: { source_revision_config: { image_uri: 'registry.example/awaits-image@sha256:' + 'a'.repeat(64) } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.latest_revision_id).toEqual(expect.any(String));
    expect((await listRevisions(t.org.namespace)).filter((r) => r.spec.deploymentName === 'awaits-image')).toHaveLength(1);
  });

  it('creates an internal_source deployment that waits for its sources, and keeps each member to the sources it belongs to', async () => {
    const waiting = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'awaits-source',
        source: 'internal_source',
        source_config: { deployment_type: 'dev_zero', install_command: 'npm ci' },
        source_revision_config: { graph_config_path: 'app.json' },
      },
    });
    expect(waiting.status, waiting.text).toBe(201);
    expect(waiting.body).toMatchObject({ latest_revision_id: null, source: 'internal_source' });
    await eventually(
      async () => {
        const d = await readDeployment(t.org.namespace, 'awaits-source');
        return d.status?.conditions?.find((c) => c.type === 'Reconciling' && c.reason === 'AwaitingSource') ? d : undefined;
      },
      10_000,
      'Reconciling AwaitingSource',
    );
    expect((await listRevisions(t.org.namespace)).filter((r) => r.spec.deploymentName === 'awaits-source')).toEqual([]);

    const imageForSource = await t.call('PATCH', `/v2/deployments/${waiting.body.id}`, {
      body: { revision_source: 'internal_docker', source_revision_config: { image_uri: 'nginx:1' } },
    });
    expect(imageForSource.status).toBe(422);
    expect(imageForSource.body.detail.map((p: { loc: string[] }) => p.loc.join('.'))).toEqual(['body.revision_source']);
    const imageOnly = await t.call('PATCH', `/v2/deployments/${waiting.body.id}`, {
      body: { source_revision_config: { image_uri: 'nginx:1' } },
    });
    expect(imageOnly.status).toBe(422);
    expect(imageOnly.body.detail.map((p: { loc: string[] }) => p.loc.join('.'))).toEqual(['body.source_revision_config.image_uri']);
    const archiveForDocker = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'docker-archive',
        source: 'external_docker',
        source_revision_config: { image_uri: 'nginx:1', source_tarball_path: `sources/${'a'.repeat(32)}.tar.gz` },
      },
    });
    expect(archiveForDocker.status).toBe(422);
    expect(archiveForDocker.body.detail[0].loc).toEqual(['body', 'source_revision_config', 'source_tarball_path']);
    const notAPath = await t.call('PATCH', `/v2/deployments/${waiting.body.id}`, {
      body: { source_revision_config: { source_tarball_path: '../etc/passwd' } },
    });
    expect(notAPath.status).toBe(422);
    // This installation takes no uploads (no registry for pushed images): it says so, for either source.
    expect((await t.call('POST', `/v2/deployments/${waiting.body.id}/upload-url`)).body.detail).toMatch(/takes no source uploads/);
    const docker = await t.call('POST', '/v2/deployments', {
      body: { name: 'no-upload', source: 'external_docker', source_revision_config: { image_uri: 'nginx:1' } },
    });
    const refused = await t.call('POST', `/v2/deployments/${docker.body.id}/upload-url`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/only available for internal_source deployments/);
  });

  it('stalls a deployment whose sources never came once the deadline passes, and keeps the alias it was created with as graph_config_path', async () => {
    const waiting = await t.call('POST', '/v2/deployments', {
      body: { name: 'never-sent', source: 'internal_source', source_revision_config: { langgraph_config_path: 'langgraph.json' } },
    });
    expect(waiting.status, waiting.text).toBe(201);
    const stalled = await eventually(
      async () => {
        const d = await readDeployment(t.org.namespace, 'never-sent');
        return d.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True') ? d : undefined;
      },
      firstInputDeadlineMs + 30_000,
      'Stalled SourceNeverArrived',
    );
    const condition = stalled.status!.conditions!.find((c) => c.type === 'Stalled')!;
    expect(condition.reason).toBe('SourceNeverArrived');
    expect(condition.message).toMatch(/^No source archive came within 30 s of the deployment's creation/);
    expect(stalled.spec.sourceRevisionConfig).toEqual({ graphConfigPath: 'langgraph.json' });
    const read = await t.call('GET', `/v2/deployments/${waiting.body.id}`);
    expect(read.body.source_revision_config.graph_config_path).toBe('langgraph.json');
    // The conditions kubectl shows, in the answer too, spelled as the wire spells members.
    expect(read.body.conditions).toContainEqual(
      expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'SourceNeverArrived', last_transition_time: expect.any(String) }),
    );
    expect(read.body.latest_revision_status).toBeNull();
    // And what was said about it, newest first.
    const said = await eventually(
      async () => {
        const events = await t.call('GET', `/v2/deployments/${waiting.body.id}/events?limit=10`);
        expect(events.status, events.text).toBe(200);
        return events.body.resources.find((e: { reason: string }) => e.reason === 'SourceNeverArrived');
      },
      20_000,
      'the SourceNeverArrived event',
    );
    expect(said).toMatchObject({ type: 'Warning', object: { kind: 'Deployment', name: 'never-sent' }, count: 1 });
    expect((await t.call('GET', `/v2/deployments/${waiting.body.id}/events`, { key: t.otherOrg.key })).status).toBe(404);
    expect((await t.call('GET', `/v2/deployments/${waiting.body.id}/events?limit=0`)).status).toBe(422);
  });
});

describe('PATCH /v2/deployments/{id}', () => {
  it('applies source_config in place: same latest_revision_id, members merged', async () => {
    const created = await create('in-place');
    const patched = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { source_config: { resource_spec: { min_scale: 2 }, custom_url: null } },
    });
    expect(patched.status, patched.text).toBe(200);
    expectTable(patched.body, deploymentTable);
    expect(patched.body.latest_revision_id).toBe(created.latest_revision_id);
    expect(patched.body.source_config.resource_spec).toEqual({ min_scale: 2, max_scale: 3, cpu: 0.5 });
    const stored = await readDeployment(t.org.namespace, 'in-place');
    expect(stored.metadata.generation).toBe(2);
    expect(stored.status?.observedGeneration).toBe(2);
  });

  it('sizes by name in place: the pods take the size, the revision stays, a figure set beside it wins', async () => {
    const created = await create('sized');
    const patched = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { source_config: { resource_spec: { size: 'large' } } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.latest_revision_id).toBe(created.latest_revision_id);
    expect(patched.body.source_config.resource_spec).toEqual({ size: 'large', min_scale: 1, max_scale: 3, cpu: 0.5 });
    // The spec's cpu (0.5) beside the size's memory and limits.
    await eventually(
      async () => {
        const workload = await apps.readNamespacedDeployment({ namespace: t.org.namespace, name: 'sized' });
        expect(workload.spec?.template.spec?.containers[0]?.resources).toEqual({
          requests: { cpu: '500m', memory: '4Gi' },
          limits: { cpu: '4', memory: '8Gi' },
        });
        return true;
      },
      20_000,
      'the large size on the pod template',
    );
    const refused = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { source_config: { resource_spec: { size: 'huge' } } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'source_config', 'resource_spec', 'size']);
    expect((await readDeployment(t.org.namespace, 'sized')).spec.sourceConfig?.resourceSpec?.size).toBe('large');
  });

  it("takes the reference's revision_source: the deployment's own source is accepted, anything else is a 422 that changes nothing", async () => {
    const created = await create('with-revision-source');
    const same = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { revision_source: 'external_docker', source_revision_config: { image_uri: 'nginx:1.29' } },
    });
    expect(same.status, same.text).toBe(200);
    expect(same.body.latest_revision_id).not.toBe(created.latest_revision_id);
    const archive = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { revision_source: 'internal_source', source_revision_config: { image_uri: 'nginx:1.30' } },
    });
    expect(archive.status).toBe(422);
    expect(archive.body.detail[0]).toMatchObject({
      loc: ['body', 'revision_source'],
      msg: expect.stringMatching(/an external_docker deployment makes its revisions from external_docker images, not from internal_source/),
    });
    expect((await readDeployment(t.org.namespace, 'with-revision-source')).spec.sourceRevisionConfig?.imageUri).toBe('nginx:1.29');
  });

  it("refuses what the CRD's rules refuse, named as on the wire, and changes nothing", async () => {
    const created = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'ruled',
        source: 'codehost',
        source_config: {
          integration_id: '8d2fd73c-8889-4291-9e85-f89284bf3c8f',
          repo_url: 'https://github.com/a/b',
          resource_spec: { min_scale: 1, max_scale: 3 },
          listener_config: { k8s_namespace: t.org.namespace },
        },
        source_revision_config: { repo_ref: 'main' },
      },
    });
    expect(created.status, created.text).toBe(201);
    const before = await readDeployment(t.org.namespace, 'ruled');
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { source_config: { integration_id: '00000000-0000-4000-8000-000000000000' } },
        'body.source_config.integration_id',
        /^source_config\.integration_id is immutable once set$/,
      ],
      [
        { source_config: { external_database: { postgres_uri: { name: 'team-db', key: 'uri' } } } },
        'body.source_config.external_database',
        /^source_config\.external_database is chosen when the deployment is made: it cannot be added or removed later$/,
      ],
      [
        { source_revision_config: { image_uri: 'x' } },
        'body.source_revision_config.image_uri',
        /applies only when source is external_docker or internal_docker: the build makes the image/,
      ],
      [
        { source_config: { resource_spec: { min_scale: 9 } } },
        'body.source_config.resource_spec.min_scale',
        /^source_config\.resource_spec\.min_scale must be less than or equal to max_scale$/,
      ],
      [
        { source_config: { build_on_push: true }, source_revision_config: { repo_ref: 'refs/tags/v1' } },
        'body.source_config.build_on_push',
        /a tag never moves/,
      ],
      [
        { source_config: { resource_spec: { sidecars: [{ name: 'root', image: 'busybox', securityContext: { privileged: true } }] } } },
        'body.source_config.resource_spec.sidecars.0.securityContext.privileged',
        /privileged containers are not allowed: the Pod Security Standards baseline level forbids them/,
      ],
    ];
    for (const [body, loc, msg] of cases) {
      const refused = await t.call('PATCH', `/v2/deployments/${created.body.id}`, { body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(
        refused.body.detail.map((p: { loc: (string | number)[] }) => p.loc.join('.')),
        JSON.stringify(body),
      ).toEqual([loc]);
      expect(refused.body.detail[0].msg).toMatch(msg);
    }
    // Nothing refused reached the spec (the controller writes status and its finalizer meanwhile).
    const after = await readDeployment(t.org.namespace, 'ruled');
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);
    // The repository may change, as the reference's API takes it: in place, no new revision until the next build.
    const moved = await t.call('PATCH', `/v2/deployments/${created.body.id}`, {
      body: { source_config: { repo_url: 'https://github.com/a/c' } },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.latest_revision_id).toBe(created.body.latest_revision_id);
    expect((await readDeployment(t.org.namespace, 'ruled')).spec.sourceConfig?.repoUrl).toBe('https://github.com/a/c');
    const bare = await t.call('POST', '/v2/deployments', { body: { name: 'bare', source: 'codehost' } });
    expect(bare.status).toBe(422);
    expect(bare.body.detail).toEqual([
      {
        loc: ['body', 'source_config', 'integration_id'],
        msg: 'source_config.integration_id is required when source is codehost',
        type: 'missing',
      },
      { loc: ['body', 'source_config', 'repo_url'], msg: 'source_config.repo_url is required when source is codehost', type: 'missing' },
      {
        loc: ['body', 'source_revision_config', 'repo_ref'],
        msg: 'source_revision_config.repo_ref is required when source is codehost',
        type: 'missing',
      },
    ]);
  });

  it('makes a new revision for source_revision_config and answers with its id', async () => {
    const created = await create('new-revision');
    const patched = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { source_revision_config: { image_uri: 'nginx:1.28' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.source_revision_config.image_uri).toBe('nginx:1.28');
    expect(patched.body.latest_revision_id).not.toBeNull();
    expect(patched.body.latest_revision_id).not.toBe(created.latest_revision_id);
    const revisions = (await listRevisions(t.org.namespace)).filter((r) => r.spec.deploymentName === 'new-revision');
    expect(revisions).toHaveLength(2);
    const latest = revisions.find((r) => r.metadata.uid === patched.body.latest_revision_id);
    expect(latest?.spec.sourceRevisionConfig.imageUri).toBe('nginx:1.28');
  });

  it('refuses to change name or source, and answers 404 for unknown or foreign ids', async () => {
    const created = await create('fixed');
    const before = await readDeployment(t.org.namespace, 'fixed');
    const rename = await t.call('PATCH', `/v2/deployments/${created.id}`, { body: { name: 'renamed' } });
    expect(rename.status).toBe(422);
    expect(rename.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'name cannot be changed after creation', type: 'immutable' }]);
    const resource = await t.call('PATCH', `/v2/deployments/${created.id}`, { body: { source: 'codehost' } });
    expect(resource.status).toBe(422);
    expect(resource.body.detail[0].msg).toBe('source cannot be changed after creation');
    const unknown = await t.call('PATCH', '/v2/deployments/00000000-0000-4000-8000-000000000000', { body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Deployment ID 00000000-0000-4000-8000-000000000000 not found.' });
    const foreign = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { source_config: { custom_url: 'https://x.example.com' } },
      key: t.otherOrg.key,
    });
    expect(foreign.status).toBe(404);
    // Nothing refused reached the spec (the controller writes status and its finalizer meanwhile).
    const after = await readDeployment(t.org.namespace, 'fixed');
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);
  });

  it('replaces secrets, keeps a masked value, and never answers a value', async () => {
    const created = await create('rotating', {
      secrets: [
        { name: 'A', value: 'alpha-value' },
        { name: 'B', value: 'bravo-value' },
      ],
    });
    const patched = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: {
        secrets: [
          { name: 'A', value: '********' },
          { name: 'C', value: 'charlie-value' },
        ],
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.secrets).toEqual([
      { name: 'A', value: '********' },
      { name: 'C', value: '********' },
    ]);
    const secret = await core.readNamespacedSecret({ namespace: t.org.namespace, name: 'rotating-secrets' });
    const values = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    expect(values).toEqual({ A: 'alpha-value', C: 'charlie-value' });
  });
});

describe('PATCH under concurrency and of secret values', () => {
  it('makes a new revision when only secret values change, and answers with it', async () => {
    const created = await create('secret-values', { secrets: [{ name: 'API_TOKEN', value: 'first-token-value' }] });
    expect(created.latest_revision_id).not.toBeNull();
    const patched = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { secrets: [{ name: 'API_TOKEN', value: 'second-token-value' }] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.latest_revision_id).not.toBe(created.latest_revision_id);
    expect(patched.text).not.toContain('token-value');

    const unchanged = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { secrets: [{ name: 'API_TOKEN', value: '********' }] },
    });
    expect(unchanged.body.latest_revision_id).toBe(patched.body.latest_revision_id);

    // Each revision keeps the names it was made with, never the values: a name added makes one more.
    const added = await t.call('PATCH', `/v2/deployments/${created.id}`, {
      body: {
        secrets: [
          { name: 'API_TOKEN', value: '********' },
          { name: 'SIGNING_KEY', value: 'signing-key-value' },
        ],
      },
    });
    expect(added.body.latest_revision_id).not.toBe(patched.body.latest_revision_id);
    const revisions = await t.call('GET', `/v2/deployments/${created.id}/revisions`);
    expect(revisions.body.resources.map((r: { secret_names: string[] }) => r.secret_names)).toEqual([
      ['API_TOKEN', 'SIGNING_KEY'],
      ['API_TOKEN'],
      ['API_TOKEN'],
    ]);
    expect(revisions.text).not.toMatch(/token-value|signing-key-value/);
  });

  it('applies concurrent PATCHes of different members without losing one (optimistic concurrency)', async () => {
    const created = await create('contended');
    const fields = [
      'queue_min_scale',
      'queue_max_scale',
      'memory_mb',
      'memory_limit_mb',
      'redis_memory_mb',
      'db_storage_gi',
      'db_max_connections',
      'executor_memory_mb',
    ];
    const answers = await Promise.all(
      fields.map((field) =>
        t.call('PATCH', `/v2/deployments/${created.id}`, { body: { source_config: { resource_spec: { [field]: 64 } } } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(fields.map(() => 200));
    const stored = await readDeployment(t.org.namespace, 'contended');
    const wire = (await t.call('GET', `/v2/deployments/${created.id}`)).body;
    for (const field of fields) expect(wire.source_config.resource_spec[field], field).toBe(64);
    expect(stored.spec.sourceConfig.resourceSpec).toMatchObject({ minScale: 1, maxScale: 3, queueMinScale: 64, dbStorageGi: 64 });
  });
});

describe('GET, list, revisions, redeploy, DELETE', () => {
  it('reads and lists deployments of the organization only', async () => {
    const created = await create('listed');
    const read = await t.call('GET', `/v2/deployments/${created.id}`);
    expect(read.status).toBe(200);
    expectTable(read.body, deploymentTable);
    const list = await t.call('GET', '/v2/deployments?limit=100');
    expect(list.body.resources.map((d: { id: string }) => d.id)).toContain(created.id);
    expect(list.body.offset).toBe(list.body.resources.length);
    const foreign = await t.call('GET', '/v2/deployments?limit=100', { key: t.otherOrg.key });
    expect(foreign.body.resources).toEqual([]);
    expect((await t.call('GET', `/v2/deployments/${created.id}`, { key: t.otherOrg.key })).status).toBe(404);
  });

  it('filters the list by name, name_contains and status, and ignores filters it does not know', async () => {
    const alpha = await create('filter-alpha');
    const beta = await create('filter-beta');
    const ids = async (query: string) =>
      ((await t.call('GET', `/v2/deployments?limit=100&${query}`)).body.resources as { id: string }[]).map((d) => d.id);
    expect(await ids('name=filter-alpha')).toEqual([alpha.id]);
    expect(await ids('name=filter')).toEqual([]);
    expect(await ids('name_contains=filter-')).toEqual([alpha.id, beta.id]);
    expect(await ids('name_contains=beta&unknown_filter=1')).toEqual([beta.id]);
    expect(await ids('name_contains=filter-&status=AWAITING_DELETE')).toEqual([]);
    expect((await t.call('GET', '/v2/deployments?status=RUNNING')).status).toBe(422);
    expect((await t.call('GET', '/v2/deployments?name=filter-alpha', { key: t.otherOrg.key })).body.resources).toEqual([]);
    // Agent filters answer what the reference answers a tenant without agents, the words its client knows.
    for (const query of ['agent_id=a1', 'agent_environment=production', 'name=filter-alpha&agent_id=']) {
      const refused = await t.call('GET', `/v2/deployments?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toEqual({ detail: 'Agent filters are not available for this tenant.' });
    }
  });

  it("counts the organization's free deployments, as the reference's free-count does", async () => {
    const count = async (key?: string) => {
      const answer = await t.call('GET', '/v2/deployments/free-count', key ? { key } : {});
      expect(answer.status).toBe(200);
      return (answer.body as { count: number }).count;
    };
    const [before, otherBefore] = [await count(), await count(t.otherOrg.key)];
    const free = await create('free-tier', {
      source_config: { deployment_type: 'dev_free', resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1 } },
    });
    await create('paid-tier', { source_config: { deployment_type: 'prod', resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1 } } });
    expect(await count()).toBe(before + 1);
    expect(await count(t.otherOrg.key)).toBe(otherBefore);
    expect((await t.call('DELETE', `/v2/deployments/${free.id}`)).status).toBe(204);
    // Counted until it is gone: the controller takes its children down first.
    await eventually(async () => (await count()) === before || undefined, 30_000, 'the free deployment no longer counted');
  });

  it('names its organization as tenant_id, and answers the same under the self-hosted prefix /api-host', async () => {
    const created = await create('prefixed');
    expect(created.tenant_id).toBe(t.org.id);
    const direct = await t.call('GET', `/v2/deployments/${created.id}`);
    const prefixed = await t.call('GET', `/api-host/v2/deployments/${created.id}`);
    expect(prefixed.status).toBe(200);
    expect(prefixed.body).toEqual(direct.body);
    expect((await t.call('GET', `/api-host/v2/deployments/${created.id}`, { key: t.otherOrg.key })).status).toBe(404);
    expect(
      (await t.call('GET', '/api-host/openapi.json', { key: null })).body.servers.map((server: { url: string }) => server.url),
    ).toEqual(['/', '/api-host']);
    expect((await t.call('GET', '/api-host/v2/nothing-here')).status).toBe(404);
  });

  it('lists and reads revisions, newest first, and redeploys an earlier one', async () => {
    const created = await create('history');
    const second = await t.call('PATCH', `/v2/deployments/${created.id}`, { body: { source_revision_config: { image_uri: 'nginx:9' } } });
    const revisions = await t.call('GET', `/v2/deployments/${created.id}/revisions`);
    expect(revisions.status).toBe(200);
    expect(revisions.body.resources.map((r: { id: string }) => r.id)).toEqual([second.body.latest_revision_id, created.latest_revision_id]);
    const first = await t.call('GET', `/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      deployment_id: created.id,
      source: 'external_docker',
      source_revision_config: { image_uri: 'nginx:1.27' },
    });

    const redeployed = await t.call('POST', `/v2/deployments/${created.id}/revisions/${created.latest_revision_id}/redeploy`);
    expect(redeployed.status, redeployed.text).toBe(200);
    const stored = await readDeployment(t.org.namespace, 'history');
    expect(stored.spec.revisionName).toBe(first.body.name);
    const unknown = await t.call('GET', `/v2/deployments/${created.id}/revisions/00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
  });

  it('creates a revision explicitly, answering with it; a body that would make none is a 409 that changes nothing', async () => {
    const created = await create('explicit');
    const made = await t.call('POST', `/v2/deployments/${created.id}/revisions`, {
      body: { source_revision_config: { image_uri: 'nginx:2' } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      deployment_id: created.id,
      source: 'external_docker',
      source_revision_config: { image_uri: 'nginx:2' },
    });
    const deployment = await t.call('GET', `/v2/deployments/${created.id}`);
    expect(deployment.body.latest_revision_id).toBe(made.body.id);
    expect((await t.call('GET', `/v2/deployments/${created.id}/revisions/${made.body.id}`)).body).toEqual(made.body);

    // The same config again, or a change to source_config alone, makes no revision: refused, nothing written.
    const stored = await readDeployment(t.org.namespace, 'explicit');
    for (const body of [{ source_revision_config: { image_uri: 'nginx:2' } }, { source_config: { resource_spec: { min_scale: 2 } } }]) {
      const refused = await t.call('POST', `/v2/deployments/${created.id}/revisions`, { body });
      expect(refused.status, JSON.stringify(body)).toBe(409);
      expect(refused.body.detail).toMatch(/^This body makes no new revision/);
    }
    expect((await readDeployment(t.org.namespace, 'explicit')).metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect((await t.call('GET', `/v2/deployments/${created.id}/revisions`)).body.resources).toHaveLength(2);

    // Another organization's deployment is not found; a body that is not a patch is a 422.
    const foreign = await t.call('POST', `/v2/deployments/${created.id}/revisions`, {
      body: { source_revision_config: { image_uri: 'nginx:3' } },
      key: t.otherOrg.key,
    });
    expect(foreign.status).toBe(404);
    expect((await t.call('POST', `/v2/deployments/${created.id}/revisions`, { body: { name: 'renamed' } })).status).toBe(422);
  });

  it('interrupts a revision that is deploying: its rollout goes back to the revision before, and it ends INTERRUPTED', async () => {
    const created = await create('interrupted');
    // No kubelet here: the first rollout is marked done as the apps/v1 controller would.
    await eventually(() => markRolledOut(kc, t.org.namespace, 'interrupted'), 30_000, 'the first rollout marked done');
    await eventually(
      async () =>
        (await t.call('GET', `/v2/deployments/${created.id}`)).body.active_revision_id === created.latest_revision_id || undefined,
      30_000,
      'the first revision DEPLOYED',
    );
    // The answer reads the Revision's phase from the revisions' cache, which may see the pass's write a
    // moment after the deployments' cache does.
    await eventually(
      async () => (await t.call('GET', `/v2/deployments/${created.id}`)).body.latest_revision_status === 'DEPLOYED',
      10_000,
      'latest_revision_status DEPLOYED in the answer',
    );
    const patched = await t.call('PATCH', `/v2/deployments/${created.id}`, { body: { source_revision_config: { image_uri: 'nginx:2' } } });
    const stuck = patched.body.latest_revision_id as string;
    await eventually(
      async () => (await templateImage(t.org.namespace, 'interrupted')) === 'nginx:2' || undefined,
      30_000,
      'the rollout of nginx:2',
    );

    const interrupted = await t.call('POST', `/v2/deployments/${created.id}/revisions/${stuck}/interrupt`);
    expect(interrupted.status, interrupted.text).toBe(200);
    expect(interrupted.body).toMatchObject({ id: stuck, status: 'INTERRUPTED' });
    expect(interrupted.body.status_message).toMatch(/^Interrupted at .*: its build and rollout were stopped/);
    await eventually(
      async () => (await templateImage(t.org.namespace, 'interrupted')) === 'nginx:1.27' || undefined,
      30_000,
      'back to nginx:1.27',
    );
    expect((await t.call('GET', `/v2/deployments/${created.id}`)).body.active_revision_id).toBe(created.latest_revision_id);

    // Only a revision on its way: one that ended is a 409, and nothing changes.
    for (const ended of [stuck, created.latest_revision_id as string]) {
      const refused = await t.call('POST', `/v2/deployments/${created.id}/revisions/${ended}/interrupt`);
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/only a revision that is building or deploying can be interrupted/);
    }
    const first = (await listRevisions(t.org.namespace)).find((r) => r.metadata.uid === created.latest_revision_id)!;
    expect(first.metadata.annotations?.['berth.dev/interrupted-at']).toBeUndefined();
    const unknown = `/v2/deployments/${created.id}/revisions/00000000-0000-4000-8000-000000000000/interrupt`;
    expect((await t.call('POST', unknown)).status).toBe(404);
    expect((await t.call('POST', `/v2/deployments/${created.id}/revisions/${stuck}/interrupt`, { key: t.otherOrg.key })).status).toBe(404);
  });

  it("answers a deployment's figures, null where this cluster cannot measure them, and why", async () => {
    const created = await create('measured');
    const figures = await t.call('GET', `/v2/deployments/${created.id}/metrics`);
    expect(figures.status, figures.text).toBe(200);
    expect(figures.body).toMatchObject({
      deployment_id: created.id,
      // No kubelet runs pods here, and no metrics-server or store measures them.
      application: { replicas: 0, ready_replicas: 0, restarts: 0, cpu_cores: null, memory_bytes: null },
      database: null,
      api: null,
      // No queue worker: no queue, and nothing to say about it.
      queue: null,
      unavailable: [
        { metric: 'cpu_cores, memory_bytes', reason: 'this cluster serves no resource metrics (metrics-server)' },
        { metric: 'api', reason: 'this installation reads no request metrics (--concurrency-metrics)' },
      ],
    });
    expect(Date.parse(figures.body.measured_at as string)).not.toBeNaN();
    // A database restored by CloudNativePG serves from the deployment's second Cluster: its volume's size.
    await core.createNamespacedPersistentVolumeClaim({
      namespace: t.org.namespace,
      body: {
        metadata: { name: 'measured-db-2-1' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
      },
    });
    await core.patchNamespacedPersistentVolumeClaimStatus({
      namespace: t.org.namespace,
      name: 'measured-db-2-1',
      body: [{ op: 'add', path: '/status', value: { phase: 'Bound', capacity: { storage: '2Gi' } } }],
    });
    const restored = await t.call('GET', `/v2/deployments/${created.id}/metrics`);
    expect(restored.body.database).toMatchObject({ disk_capacity_bytes: 2 * 1024 ** 3 });
    // Another organization's deployment is not found, as a missing one; an id that is not one is a 422.
    expect((await t.call('GET', `/v2/deployments/${created.id}/metrics`, { key: t.otherOrg.key })).status).toBe(404);
    expect((await t.call('GET', '/v2/deployments/not-an-id/metrics')).status).toBe(422);
  });

  it('deletes a deployment (204)', async () => {
    const created = await create('doomed');
    expect((await t.call('DELETE', `/v2/deployments/${created.id}`, { key: t.otherOrg.key })).status).toBe(404);
    const deleted = await t.call('DELETE', `/v2/deployments/${created.id}`);
    expect(deleted.status).toBe(204);
    await eventually(
      async () =>
        custom.getNamespacedCustomObject({ group, version, namespace: t.org.namespace, plural: 'deployments', name: 'doomed' }).then(
          () => false,
          (e: { code?: number }) => e.code === 404,
        ),
      30_000,
      'the Deployment to be deleted',
    );
  });

  it("deletes several deployments at once: all of them, or none when one is not the organization's", async () => {
    const [one, two, three] = [await create('many-one'), await create('many-two'), await create('many-three')];
    const foreign = await create('many-foreign', {}, t.otherOrg.key);
    const stored = async (name: string) =>
      custom.getNamespacedCustomObject({ group, version, namespace: t.org.namespace, plural: 'deployments', name }).then(
        (object: { metadata?: { deletionTimestamp?: string } }) => !object.metadata?.deletionTimestamp,
        () => false,
      );

    // One id of another organization: a 404 that names it, and nothing deleted.
    const refused = await t.call('DELETE', `/v2/deployments?deployment_ids=${one.id}&deployment_ids=${foreign.id}`);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ detail: `Deployment ID ${foreign.id} not found.` });
    expect(await stored('many-one')).toBe(true);

    for (const query of ['deployment_ids=not-a-uuid', '', `deployment_ids=${Array.from({ length: 101 }, () => one.id).join(',')}`]) {
      const invalid = await t.call('DELETE', `/v2/deployments?${query}`);
      expect(invalid.status, query).toBe(422);
      expect(invalid.body.detail[0].loc.slice(0, 2), query).toEqual(['query', 'deployment_ids']);
    }
    expect(await stored('many-one')).toBe(true);

    // Repeated, as the reference's clients send them, or joined by commas.
    const deleted = await t.call('DELETE', `/v2/deployments?deployment_ids=${one.id}&deployment_ids=${two.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({});
    expect([await stored('many-one'), await stored('many-two'), await stored('many-three')]).toEqual([false, false, true]);
    expect((await t.call('DELETE', `/v2/deployments?deployment_ids=${three.id},${three.id}`)).status).toBe(200);
    expect(await stored('many-three')).toBe(false);
    expect((await t.call('GET', `/v2/deployments/${foreign.id}`, { key: t.otherOrg.key })).status).toBe(200);
  });
});

describe('metrics', () => {
  it("counts answers by route pattern on the manager's registry", async () => {
    await t.call('GET', '/v2/deployments/00000000-0000-4000-8000-000000000000');
    const text = await manager.metrics.registry.getSingleMetricAsString('berth_http_requests_total');
    expect(text).toContain('berth_http_requests_total{route="/v2/deployments/:deployment_id",method="GET",code="404"}');
    expect(text).toMatch(/route="\/v2\/deployments",method="POST",code="201"} \d+/);
  });
});

describe('kubectl and the facade see the same deployments', () => {
  it('serves a Deployment applied with kubectl', async () => {
    const manifest = {
      apiVersion: `${group}/${version}`,
      kind: 'Deployment',
      metadata: { name: 'applied', namespace: t.org.namespace },
      spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'busybox:1' }, sourceConfig: { resourceSpec: { maxScale: 4 } } },
    };
    const applied = await kubectl(['apply', '-f', '-'], JSON.stringify(manifest));
    expect(applied.code, applied.stderr).toBe(0);
    const stored = await readDeployment(t.org.namespace, 'applied');
    const read = await eventually(
      async () => {
        const response = await t.call('GET', `/v2/deployments/${stored.metadata.uid}`);
        return response.status === 200 && response;
      },
      10_000,
      'the applied Deployment through the facade',
    );
    expectTable(read.body, deploymentTable);
    expect(read.body.source_config).toEqual({ resource_spec: { max_scale: 4 } });
  });

  it('shows a facade-created Deployment to kubectl', async () => {
    await create('for-kubectl');
    const got = await kubectl(['get', 'deployments.berth.dev', 'for-kubectl', '-n', t.org.namespace, '-o', 'json']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout).spec.sourceRevisionConfig).toEqual({ imageUri: 'nginx:1.27' });
  });
});

// Hosts no other test file claims: the facade's cache spans every namespace of the shared control plane.
describe('custom_url hosts, claimed once across the installation', () => {
  const stalledReason = async (namespace: string, name: string) =>
    (await readDeployment(namespace, name)).status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True')?.reason;

  it('refuses a second claim of a host from any organization (409, the claimant unnamed), a reserved host and one outside the allowed domains (422)', async () => {
    await create('shop', { source_config: { custom_url: 'https://storefront.apps.example.com/store' } });
    const second = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'thief',
        source: 'external_docker',
        source_config: { custom_url: 'https://STOREFRONT.apps.example.com/' },
        source_revision_config: { image_uri: 'nginx:1' },
      },
      key: t.otherOrg.key,
    });
    expect(second.status).toBe(409);
    expect(second.body.detail).toBe('custom_url host storefront.apps.example.com is claimed by another deployment.');
    expect(second.text).not.toContain(t.org.namespace);
    expect((await t.call('GET', '/v2/deployments?name=thief', { key: t.otherOrg.key })).body.resources).toEqual([]);

    const other = await create('other-host');
    const cases: [string, string][] = [
      ['https://api.apps.example.com/v2', 'custom_url host api.apps.example.com is reserved by this installation'],
      [
        'https://victim.example.org',
        'custom_url host victim.example.org is outside the domains this installation allows: apps.example.com',
      ],
      ['https://storefront.apps.example.com/other', 'custom_url host storefront.apps.example.com is claimed by another deployment.'],
    ];
    for (const [url, message] of cases) {
      const refused = await t.call('PATCH', `/v2/deployments/${other.id}`, { body: { source_config: { custom_url: url } } });
      expect(refused.body.detail, url).toEqual(
        url.includes('storefront.') ? message : [{ loc: ['body', 'source_config', 'custom_url'], msg: message, type: 'value_error' }],
      );
    }
    expect((await readDeployment(t.org.namespace, 'other-host')).spec.sourceConfig?.customUrl).toBeUndefined();
  });

  it('stalls a claim applied with kubectl, makes no Ingress for it, and takes it up once the earlier claim is gone', async () => {
    await create('first-claim', { source_config: { custom_url: 'https://taken.apps.example.com' } });
    // Claims made in one second are ordered by uid: the second claim is made in a later second.
    const firstCreated = Date.parse(String((await readDeployment(t.org.namespace, 'first-claim')).metadata.creationTimestamp));
    await eventually(async () => Date.now() >= firstCreated + 1_000, 5_000, 'a later second');
    const manifest = {
      apiVersion: `${group}/${version}`,
      kind: 'Deployment',
      metadata: { name: 'second-claim', namespace: t.otherOrg.namespace },
      spec: {
        source: 'external_docker',
        sourceRevisionConfig: { imageUri: 'busybox:1' },
        sourceConfig: { customUrl: 'https://taken.apps.example.com/' },
      },
    };
    const applied = await kubectl(['apply', '-f', '-'], JSON.stringify(manifest));
    expect(applied.code, applied.stderr).toBe(0);
    await eventually(
      async () => (await stalledReason(t.otherOrg.namespace, 'second-claim')) === 'HostClaimed',
      15_000,
      'Stalled HostClaimed',
    );
    const ingresses = await kubectl(['get', 'ingresses', '-n', t.otherOrg.namespace, '-o', 'name']);
    expect(ingresses.stdout).not.toContain('second-claim');

    const first = await readDeployment(t.org.namespace, 'first-claim');
    expect((await t.call('DELETE', `/v2/deployments/${first.metadata.uid}`)).status).toBe(204);
    // The holder's delete makes the waiting claim look again at once (else it would each minute).
    await eventually(
      async () => (await stalledReason(t.otherOrg.namespace, 'second-claim')) !== 'HostClaimed',
      15_000,
      'the claim taken up',
    );
  });

  it('never lets an older deployment take a held host by moving its customUrl there with kubectl', async () => {
    // The attacker's deployment is made first, on a host of its own; the victim's later, on its host.
    await create('older-attacker', { source_config: { custom_url: 'https://mine.apps.example.com' } });
    const attackerCreated = Date.parse(String((await readDeployment(t.org.namespace, 'older-attacker')).metadata.creationTimestamp));
    await eventually(async () => Date.now() >= attackerCreated + 1_000, 5_000, 'a later second');
    const manifest = (name: string, namespace: string, customUrl: string) =>
      JSON.stringify({
        apiVersion: `${group}/${version}`,
        kind: 'Deployment',
        metadata: { name, namespace },
        spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'busybox:1' }, sourceConfig: { customUrl } },
      });
    expect((await kubectl(['apply', '-f', '-'], manifest('victim', t.otherOrg.namespace, 'https://held.apps.example.com'))).code).toBe(0);
    const hostsOf = async (namespace: string) =>
      (await kubectl(['get', 'ingresses', '-n', namespace, '-o', 'jsonpath={.items[*].spec.rules[*].host}'])).stdout;
    // Its Ingress comes in the pass that writes its claim on its status, which may land a moment later.
    const victimBefore = await eventually(
      async () => {
        if (!(await hostsOf(t.otherOrg.namespace)).includes('held.apps.example.com')) return undefined;
        const read = await readDeployment(t.otherOrg.namespace, 'victim');
        return read.status?.customHostClaim?.host === 'held.apps.example.com' ? read : undefined;
      },
      15_000,
      "the victim's Ingress and its claim",
    );

    const moved = await kubectl([
      'patch',
      'deployments.berth.dev',
      'older-attacker',
      '-n',
      t.org.namespace,
      '--type=merge',
      '-p',
      '{"spec":{"sourceConfig":{"customUrl":"https://held.apps.example.com"}}}',
    ]);
    expect(moved.code, moved.stderr).toBe(0);
    await eventually(
      async () => (await stalledReason(t.org.namespace, 'older-attacker')) === 'HostClaimed',
      15_000,
      'the attacker Stalled',
    );
    // The victim keeps its claim, its record and its Ingress; the attacker has none for the host.
    expect(await stalledReason(t.otherOrg.namespace, 'victim')).not.toBe('HostClaimed');
    const victim = await readDeployment(t.otherOrg.namespace, 'victim');
    expect(victim.status?.customHostClaim?.host).toBe('held.apps.example.com');
    expect(victim.status?.customHostClaim).toEqual(victimBefore.status?.customHostClaim);
    // It left its own host and holds none.
    expect((await readDeployment(t.org.namespace, 'older-attacker')).status?.customHostClaim).toBeUndefined();
    expect(await hostsOf(t.otherOrg.namespace)).toContain('held.apps.example.com');
    expect(await hostsOf(t.org.namespace)).not.toContain('held.apps.example.com');
  });
});

describe('child names, claimed once in a namespace', () => {
  const stalled = async (name: string) =>
    (await readDeployment(t.org.namespace, name)).status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');

  it("refuses a deployment named as another one's queue worker with a 409 that says which, and creates nothing", async () => {
    await create('till');
    const refused = await t.call('POST', '/v2/deployments', {
      body: { name: 'till-queue', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'nginx:1' } },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      'the name till-queue would give its objects the name till-queue, which deployment till already uses; choose another name.',
    );
    expect((await t.call('GET', '/v2/deployments?name=till-queue')).body.resources).toEqual([]);
  });

  it("stalls a dotted name applied with kubectl whose objects would be a dashed one's, and leaves the first one's objects alone", async () => {
    await create('a-b');
    const owner = await readDeployment(t.org.namespace, 'a-b');
    const ownedByFirst = async () => {
      const got = await kubectl([
        'get',
        'deployments.apps',
        'a-b',
        '-n',
        t.org.namespace,
        '-o',
        'jsonpath={.metadata.ownerReferences[0].uid}',
      ]);
      return got.code === 0 && got.stdout === owner.metadata.uid;
    };
    await eventually(ownedByFirst, 15_000, "the first deployment's workload");
    await eventually(async () => Date.now() >= Date.parse(String(owner.metadata.creationTimestamp)) + 1_000, 5_000, 'a later second');
    const manifest = {
      apiVersion: `${group}/${version}`,
      kind: 'Deployment',
      metadata: { name: 'a.b', namespace: t.org.namespace },
      spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'busybox:1' } },
    };
    const applied = await kubectl(['apply', '-f', '-'], JSON.stringify(manifest));
    expect(applied.code, applied.stderr).toBe(0);
    const condition = await eventually(
      async () => {
        const found = await stalled('a.b');
        return found?.reason === 'NameTaken' ? found : undefined;
      },
      15_000,
      'Stalled NameTaken',
    );
    expect(condition.message).toBe(
      'the name a.b would give its objects the name a-b, a-b-queue, a-b-canary, a-b-postgres, a-b-postgres-tls, a-b-db-1, a-b-db-1-rw, a-b-db-1-ro, a-b-db-1-r, a-b-db-2, a-b-db-2-rw, a-b-db-2-ro, a-b-db-2-r, a-b-redis, a-b-custom, which deployment a-b already uses; choose another name',
    );
    expect(await ownedByFirst()).toBe(true);
    // Deleting the refused one takes nothing of the first one's with it.
    expect((await kubectl(['delete', 'deployments.berth.dev', 'a.b', '-n', t.org.namespace, '--wait=true'])).code).toBe(0);
    expect(await ownedByFirst()).toBe(true);
  });
});

/** A watch stream's events as they come: `next(event)` resolves with the next one of that name. */
async function watchStream(key: string, query = '') {
  const abort = new AbortController();
  const response = await fetch(`${t.url}/v2/deployments/watch${query}`, { headers: { 'x-api-key': key }, signal: abort.signal });
  const events: { event: string; data: unknown }[] = [];
  let buffered = '';
  const pump = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event) events.push({ event, data: data ? JSON.parse(data) : undefined });
      }
    }
  })().catch(() => {});
  // Event bodies are checked field by field by the tests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const next = (event: string, matches: (data: any) => boolean = () => true) =>
    eventually(() => events.find((e) => e.event === event && matches(e.data)), 20_000, `a ${event} event`);
  return { response, events, next, close: async () => (abort.abort(), await pump) };
}

describe('GET /v2/deployments/watch', () => {
  it("streams the organization's deployment and revision changes as server-sent events, and nothing of another's", async () => {
    const mine = await watchStream(t.org.key);
    const theirs = await watchStream(t.otherOrg.key);
    expect(mine.response.status).toBe(200);
    expect(mine.response.headers.get('content-type')).toContain('text/event-stream');
    await mine.next('ready');
    await theirs.next('ready');

    const created = await create('watched');
    const seen = (await mine.next('deployment', (d) => d.id === created.id)).data as Record<string, unknown>;
    expectTable(seen, deploymentTable);
    await mine.next('revision', (r) => r.deployment_id === created.id && r.id === created.latest_revision_id);
    expect((await t.call('DELETE', `/v2/deployments/${created.id}`)).status).toBe(204);
    await mine.next('deployment_deleted', (d) => d.id === created.id);

    expect(theirs.events.filter((e) => e.event !== 'ready')).toEqual([]);
    await Promise.all([mine.close(), theirs.close()]);
  });

  it('follows one deployment when asked, and refuses one of another organization, a bad id or no key', async () => {
    const one = await create('watched-one');
    const other = await create('watched-other');
    const only = await watchStream(t.org.key, `?deployment_id=${one.id}`);
    await only.next('ready');
    await t.call('PATCH', `/v2/deployments/${other.id}`, { body: { source_revision_config: { image_uri: 'nginx:2' } } });
    await t.call('PATCH', `/v2/deployments/${one.id}`, { body: { source_revision_config: { image_uri: 'nginx:2' } } });
    await only.next('revision', (r) => r.deployment_id === one.id && r.source_revision_config.image_uri === 'nginx:2');
    expect(only.events.some((e) => (e.data as { id?: string; deployment_id?: string })?.deployment_id === other.id)).toBe(false);
    expect(only.events.some((e) => (e.data as { id?: string })?.id === other.id)).toBe(false);
    await only.close();

    expect((await t.call('GET', `/v2/deployments/watch?deployment_id=${one.id}`, { key: t.otherOrg.key })).status).toBe(404);
    expect((await t.call('GET', '/v2/deployments/watch?deployment_id=nope')).status).toBe(422);
    expect((await t.call('GET', '/v2/deployments/watch', { key: null })).status).toBe(401);
  });
});

// Listeners, as the reference control plane's deploy tools read them: the cluster Berth runs in is the
// one listener of an installation, and each organization sees it as the namespace its deployments run
// in. A deployment that names another listener or namespace is refused with the member at fault.
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type TestFacade } from './support/facade.ts';

let t: TestFacade;
let listenerId: string;
let otherListenerId: string;

beforeAll(async () => {
  // No controller runs here: a create answers without waiting for one to observe it.
  t = await startTestFacade({ observeTimeoutMs: 200 });
  const core = testKubeConfig().makeApiClient(CoreV1Api);
  listenerId = (await core.readNamespace({ name: t.org.namespace })).metadata!.uid!;
  otherListenerId = (await core.readNamespace({ name: t.otherOrg.namespace })).metadata!.uid!;
});

describe('GET /v2/listeners', () => {
  it("lists the organization's one listener: the cluster, through the namespace its deployments run in", async () => {
    const list = await t.call('GET', '/v2/listeners');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      resources: [
        {
          id: listenerId,
          tenant_id: t.org.id,
          compute_type: 'k8s',
          compute_config: { k8s_namespaces: [t.org.namespace] },
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
      ],
      offset: 1,
    });
    expect((await t.call('GET', '/api-host/v2/listeners')).body).toEqual(list.body);
    expect((await t.call('GET', '/v2/listeners?offset=1')).body).toEqual({ resources: [], offset: 1 });
  });

  it("reads it by id; another organization's listener is 404, a malformed id 422", async () => {
    const one = await t.call('GET', `/v2/listeners/${listenerId}`);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(listenerId);
    const foreign = await t.call('GET', `/v2/listeners/${otherListenerId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: `Listener ID ${otherListenerId} not found.` });
    expect((await t.call('GET', '/v2/listeners/not-a-uuid')).status).toBe(422);
  });
});

describe('a deployment choosing its listener', () => {
  const body = (sourceConfig: Record<string, unknown>, name: string) => ({
    name,
    source: 'external_docker',
    source_config: sourceConfig,
    source_revision_config: { image_uri: 'nginx:1' },
  });

  it("is created on the organization's listener and namespace", async () => {
    const created = await t.call('POST', '/v2/deployments', {
      body: body({ listener_id: listenerId, listener_config: { k8s_namespace: t.org.namespace } }, 'on-listener'),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.source_config.listener_id).toBe(listenerId);
  });

  it('is refused, changing nothing, on another listener or namespace', async () => {
    const elsewhere = await t.call('POST', '/v2/deployments', {
      body: body({ listener_id: otherListenerId, listener_config: { k8s_namespace: t.otherOrg.namespace } }, 'elsewhere'),
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.detail.map((problem: { loc: string[] }) => problem.loc)).toEqual([
      ['body', 'source_config', 'listener_id'],
      ['body', 'source_config', 'listener_config', 'k8s_namespace'],
    ]);
    expect(elsewhere.body.detail[1].msg).toBe(`This organization's deployments run in namespace ${t.org.namespace}.`);
    expect((await t.call('GET', '/v2/deployments?name=elsewhere')).body.resources).toEqual([]);
  });
});

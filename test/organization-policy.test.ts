// The organization policy against a real API server: every organization namespace in Berth's scope gets
// the installation's ResourceQuota, LimitRange and NetworkPolicy, which the API server then enforces on
// whatever the tenant creates (a pod past the quota is refused; a pod without requests gets the
// defaults). A tenant who deletes one sees it back; a pass that finds them as rendered writes nothing;
// a namespace that stops being an organization's loses them, and one never an organization's has none.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { httpApi, type Api } from './support/http-api.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, useNamespace } from './support/cluster.ts';
import { useOrganization } from './support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from './support/berth-process.ts';

const policy = {
  maxReplicas: 5,
  resourceQuota: { pods: '2', 'requests.cpu': '1' },
  limitRange: { defaultRequest: { cpu: '50m', memory: '32Mi' }, default: { cpu: '200m', memory: '128Mi' } },
  networkPolicy: { blockedCidrs: ['10.244.0.0/16', '169.254.169.254/32'] },
  nodeVolumes: { nfsServers: ['nfs.corp.example'], csiDrivers: [] },
};
const kinds = 'resourcequota,limitrange,networkpolicy';
let berth: BerthProcess;
let operatorNamespace: string;
let organization: string;
let bystander: string;
let api: Api;

beforeAll(async () => {
  const created = await useOrganization('policy-org');
  ({ operatorNamespace, namespace: organization } = created);
  bystander = await useNamespace('policy-other');
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [operatorNamespace, organization, bystander] }),
    '--organization-policy',
    JSON.stringify(policy),
  ]);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': created.key });
});

afterAll(async () => {
  await berth?.stop();
});

async function objectsIn(namespace: string): Promise<string[]> {
  const got = await kubectl(['get', kinds, '-n', namespace, '-o', 'name']);
  return got.stdout.trim().split('\n').filter(Boolean).sort();
}

const pod = (name: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox:1' }] } });

/** A Deployment applied with kubectl, once its Stalled condition has `reason`. */
async function appliedUntilStalled(name: string, resourceSpec: object, reason: string) {
  const manifest = {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name, namespace: organization },
    spec: { source: 'external_docker', sourceConfig: { resourceSpec }, sourceRevisionConfig: { imageUri: 'busybox:1' } },
  };
  expect((await kubectl(['apply', '-f', '-'], JSON.stringify(manifest))).code).toBe(0);
  return eventually(
    async () => {
      const got = await kubectl([
        'get',
        'deployments.berth.dev',
        name,
        '-n',
        organization,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Stalled")]}',
      ]);
      const condition = got.stdout ? (JSON.parse(got.stdout) as { status: string; reason: string; message: string }) : undefined;
      return condition?.reason === reason ? condition : undefined;
    },
    20_000,
    `Stalled ${reason}`,
  );
}

describe('the organization policy', () => {
  const expected = [
    'limitrange/berth-organization',
    'networkpolicy.networking.k8s.io/berth-organization',
    'resourcequota/berth-organization',
  ];

  it('gives an organization namespace its quota, container limits and network policy, and no other namespace any', async () => {
    await eventually(async () => (await objectsIn(organization)).length === 3, 20_000, 'the three objects');
    expect(await objectsIn(organization)).toEqual(expected);
    expect(await objectsIn(bystander)).toEqual([]);
    const egress = JSON.parse(
      (await kubectl(['get', 'networkpolicy', 'berth-organization', '-n', organization, '-o', 'jsonpath={.spec.egress[2]}'])).stdout,
    );
    expect(egress).toEqual({
      to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.244.0.0/16', '169.254.169.254/32'] } }, { ipBlock: { cidr: '::/0' } }],
    });
  });

  it('is enforced by the API server: a pod without requests gets the defaults, a pod past the quota is refused', async () => {
    expect((await kubectl(['apply', '-n', organization, '-f', '-'], pod('first'))).code).toBe(0);
    const resources = JSON.parse(
      (await kubectl(['get', 'pod', 'first', '-n', organization, '-o', 'jsonpath={.spec.containers[0].resources}'])).stdout,
    );
    expect(resources).toEqual({ requests: { cpu: '50m', memory: '32Mi' }, limits: { cpu: '200m', memory: '128Mi' } });
    expect((await kubectl(['apply', '-n', organization, '-f', '-'], pod('second'))).code).toBe(0);
    // The quota controller counts what the namespace holds; admission refuses past it from then on.
    await eventually(
      async () =>
        (await kubectl(['get', 'resourcequota', 'berth-organization', '-n', organization, '-o', 'jsonpath={.status.used.pods}'])).stdout ===
        '2',
      20_000,
      'the quota counting two pods',
    );
    const third = await kubectl(['apply', '-n', organization, '-f', '-'], pod('third'));
    expect(third.code).not.toBe(0);
    expect(third.stderr).toContain('exceeded quota: berth-organization');
  });

  it('comes back when a tenant deletes a part, and a pass that finds it as rendered writes nothing', async () => {
    expect((await kubectl(['delete', 'resourcequota', 'berth-organization', '-n', organization])).code).toBe(0);
    await eventually(async () => (await objectsIn(organization)).includes('resourcequota/berth-organization'), 20_000, 'the quota back');
    const versions = async () =>
      (await kubectl(['get', kinds, '-n', organization, '-o', 'jsonpath={.items[*].metadata.resourceVersion}'])).stdout;
    const before = await versions();
    // A change of the namespace runs a pass.
    expect((await kubectl(['annotate', 'namespace', organization, 'touched=1'])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await versions()).toBe(before);
  });

  it('puts its NetworkPolicy back when someone edits it under the same hash: to select no pod, or with a rule added', async () => {
    const spec = async () =>
      JSON.parse((await kubectl(['get', 'networkpolicy', 'berth-organization', '-n', organization, '-o', 'jsonpath={.spec}'])).stdout) as {
        podSelector: object;
        ingress: unknown[];
      };
    const rendered = await spec();
    expect(rendered.podSelector).toEqual({});
    for (const patch of [
      { spec: { podSelector: { matchLabels: { none: 'selected' } } } },
      { spec: { ingress: [...rendered.ingress, { from: [{ namespaceSelector: {} }] }] } },
    ]) {
      const edited = await kubectl([
        'patch',
        'networkpolicy',
        'berth-organization',
        '-n',
        organization,
        '--type',
        'merge',
        '-p',
        JSON.stringify(patch),
      ]);
      expect(edited.code, edited.stderr).toBe(0);
      await eventually(
        async () => JSON.stringify(await spec()) === JSON.stringify(rendered),
        20_000,
        'the NetworkPolicy as rendered again',
      );
    }
  });

  it("caps one deployment's replicas: a 422 naming the field from the API, Stalled from kubectl", async () => {
    const body = (resourceSpec: object) => ({
      name: 'many',
      source: 'external_docker',
      source_config: { resource_spec: resourceSpec },
      source_revision_config: { image_uri: 'nginx:1' },
    });
    const refused = await api.call('POST', '/v2/deployments', body({ min_scale: 1, max_scale: 6 }));
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: unknown }).detail).toEqual([
      {
        loc: ['body', 'source_config', 'resource_spec', 'max_scale'],
        msg: "must be at most 5: this installation's cap on one deployment's replicas",
        type: 'value_error',
      },
    ]);
    const created = await api.ok('POST', '/v2/deployments', body({ min_scale: 1, max_scale: 5 }));
    const patch = await api.call('PATCH', `/v2/deployments/${created.id}`, {
      source_config: { resource_spec: { queue_max_scale: 9, queue_min_scale: 1 } },
    });
    expect(patch.status).toBe(422);
    expect(JSON.stringify(patch.body)).toContain('"queue_max_scale"');

    const stalled = await appliedUntilStalled('swarm', { maxScale: 50 }, 'ReplicaCapExceeded');
    expect(stalled.message).toBe(
      "spec.sourceConfig.resourceSpec.maxScale 50 must be at most 5: this installation's cap on one deployment's replicas",
    );
    expect((await kubectl(['get', 'deployments.apps', 'swarm', '-n', organization])).code).not.toBe(0);
  });

  it("refuses a deployment that could never fit the quota, with the quota's numbers: a 422 from the API, Stalled from kubectl", async () => {
    const body = (resourceSpec: object) => ({
      name: 'greedy',
      source: 'external_docker',
      source_config: { resource_spec: resourceSpec },
      source_revision_config: { image_uri: 'nginx:1' },
    });
    const refused = await api.call('POST', '/v2/deployments', body({ cpu: 2 }));
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: unknown }).detail).toEqual([
      {
        loc: ['body', 'source_config', 'resource_spec', 'cpu'],
        msg: "asks for 2 CPU for its 1 replica at the fewest, more than the organization's quota allows in all (requests.cpu=1): it could never run",
        type: 'value_error',
      },
    ]);
    const tooMany = await api.call('POST', '/v2/deployments', body({ cpu: 0.1, min_scale: 3, max_scale: 3 }));
    expect(tooMany.status).toBe(422);
    expect(JSON.stringify(tooMany.body)).toContain('(pods=2)');
    expect((await kubectl(['get', 'deployments.berth.dev', 'greedy', '-n', organization])).code).not.toBe(0);

    const stalled = await appliedUntilStalled('hungry', { memoryMb: 256, cpu: 4 }, 'QuotaExceeded');
    expect(stalled.message).toBe(
      "The deployment asks for 4 CPU for its 1 replica at the fewest, more than the organization's quota allows in all (requests.cpu=1): it could never run.",
    );
    expect((await kubectl(['get', 'deployments.apps', 'hungry', '-n', organization])).code).not.toBe(0);
  });

  it('mounts from the node only what the installation lists: a 422 naming the volume from the API, Stalled from kubectl', async () => {
    const body = (name: string, volume: object) => ({
      name,
      source: 'external_docker',
      source_config: { resource_spec: { volumes: [{ name: 'data', ...volume }] } },
      source_revision_config: { image_uri: 'nginx:1' },
    });
    const refused = await api.call('POST', '/v2/deployments', body('mounts', { nfs: { server: '10.0.0.5', path: '/' } }));
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: unknown }).detail).toEqual([
      {
        loc: ['body', 'source_config', 'resource_spec', 'volumes', 0, 'nfs'],
        msg: 'mounts NFS server "10.0.0.5", which this installation does not allow (the kubelet mounts it from the node, past every NetworkPolicy)',
        type: 'value_error',
      },
    ]);
    expect((await kubectl(['get', 'deployments.berth.dev', 'mounts', '-n', organization])).code).not.toBe(0);
    await api.ok('POST', '/v2/deployments', body('mounts', { nfs: { server: 'nfs.corp.example', path: '/data' } }));

    const stalled = await appliedUntilStalled(
      'inline',
      { volumes: [{ name: 'x', csi: { driver: 'hostpath.csi.k8s.io' } }] },
      'VolumeNotAllowed',
    );
    expect(stalled.message).toBe(
      'spec.sourceConfig.resourceSpec.volumes[0] names CSI driver "hostpath.csi.k8s.io", which this installation does not allow in an inline volume.',
    );
    expect((await kubectl(['get', 'deployments.apps', 'inline', '-n', organization])).code).not.toBe(0);
  });

  it("removes them from a namespace that stops being an organization's", async () => {
    expect((await kubectl(['label', 'namespace', organization, 'berth.dev/organization-id-'])).code).toBe(0);
    await eventually(async () => (await objectsIn(organization)).length === 0, 20_000, 'the objects gone');
  });
});

// Rollouts that wait for room on the real node instead of failing: while another workload takes the
// node's CPU, a new revision's surge pod is Unschedulable; the revision stays DEPLOYING with reason
// WaitingForCapacity and the scheduler's words, and the previous revision keeps serving. When room
// appears (the other workload goes), it deploys. One that waits past the progress deadline (short here:
// --progress-deadline-seconds) is DEPLOY_FAILED with the scheduler's words, the previous one still serving.
// The same for room in an organization's quota: a revision whose pods the quota refuses waits, with
// reason WaitingForQuota and the quota's words, and deploys once another workload frees room.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cpuQuantity } from '../../src/reconcilers/deployment/render/common.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { useOrganization } from '../support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { apply, exampleImage, httpGet, kubectlOk } from './support.ts';

const deadlineSeconds = 40;
let berth: BerthProcess;
let api: Api;
let namespace: string;
const images: Record<string, string> = {};

beforeAll(async () => {
  const { operatorNamespace, key, ...organization } = await useOrganization('capacity');
  namespace = organization.namespace;
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    '--progress-deadline-seconds',
    String(deadlineSeconds),
  ]);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': key });
  for (const version of ['v1', 'v2', 'v3']) images[version] = await exampleImage(`capacity-${version}`);
}, 300_000);

afterAll(async () => {
  await berth?.stop();
});

/** Cores as the API server writes them: `2`, `1500m`. */
const cores = (quantity: string | undefined) =>
  !quantity ? 0 : quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);

/** The node's allocatable CPU less what the pods on it request: the room a new pod may take. */
async function freeCores(): Promise<number> {
  const node = JSON.parse(await kubectlOk(['get', 'nodes', '-o', 'json'])) as {
    items: { status: { allocatable: Record<string, string> } }[];
  };
  const pods = JSON.parse(
    await kubectlOk(['get', 'pods', '-A', '--field-selector=status.phase!=Succeeded,status.phase!=Failed', '-o', 'json']),
  ) as {
    items: { spec: { nodeName?: string; containers: { resources?: { requests?: Record<string, string> } }[] } }[];
  };
  const requested = pods.items
    .filter((pod) => pod.spec.nodeName)
    .flatMap((pod) => pod.spec.containers)
    .reduce((sum, c) => sum + cores(c.resources?.requests?.cpu), 0);
  return cores(node.items[0]!.status.allocatable.cpu) - requested;
}

/** A plain workload of one pod that asks for `cpu` and does nothing with it. */
function cpuHolder(name: string, cpu: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{ name, image: images.v1!, resources: { requests: { cpu } } }],
        },
      },
    },
  };
}

/** A plain workload that takes all of the node's free CPU but `leave` cores. Measured once no pod of the
 * namespace is on its way out: a terminating pod still counts, and its room would appear later. */
async function hog(leave: number): Promise<void> {
  await eventually(
    async () => {
      const pods = JSON.parse(await kubectlOk(['get', 'pods', '-n', namespace, '-o', 'json'])) as {
        items: { metadata: { deletionTimestamp?: string } }[];
      };
      return pods.items.every((pod) => !pod.metadata.deletionTimestamp);
    },
    120_000,
    'no pod terminating',
  );
  const take = cpuQuantity(Math.max((await freeCores()) - leave, 0.01));
  await apply(namespace, cpuHolder('hog', take));
  await eventually(
    async () => (await kubectlOk(['get', 'deployment', 'hog', '-n', namespace, '-o', 'jsonpath={.status.availableReplicas}'])) === '1',
    60_000,
    'the hog running',
  );
}

async function unhog(): Promise<void> {
  await kubectlOk(['delete', 'deployment', 'hog', '-n', namespace, '--wait=true']);
  await eventually(
    async () => (await kubectlOk(['get', 'pods', '-n', namespace, '-l', 'app=hog', '-o', 'name'])).trim() === '',
    60_000,
    'the hog gone',
  );
}

const answers = (url: string, version: string) =>
  eventually(async () => (await httpGet(`${url}/`)).body === `berth-example capacity-${version}\n`, 20_000, `${version} answering`);

/** The Revision object's status, as kubectl shows it. */
async function revisionObject(name: string) {
  return JSON.parse(await kubectlOk(['get', 'revisions.berth.dev', name, '-n', namespace, '-o', 'json'])) as {
    status: { status: string; reason?: string; message?: string };
  };
}

describe('a rollout with no room on the node', () => {
  let id: string;
  let url: string;

  it("waits for capacity with the scheduler's words while the previous revision serves, then deploys once room appears", async () => {
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'roomy',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.5, memory_mb: 64 } },
      source_revision_config: { image_uri: images.v1 },
    });
    id = created.id;
    await revisionReaches(api, id, created.latest_revision_id, ['DEPLOYED'], { timeoutMs: 120_000 });
    url = (await api.ok('GET', `/v2/deployments/${id}`)).url;
    await answers(url, 'v1');

    await hog(0.2);
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: images.v2 } });
    const revisionName = (
      await kubectlOk(['get', 'deployments.berth.dev', 'roomy', '-n', namespace, '-o', 'jsonpath={.status.latestRevisionName}'])
    ).trim();
    const waiting = await eventually(
      async () => {
        const revision = await revisionObject(revisionName);
        return revision.status?.reason === 'WaitingForCapacity' ? revision : undefined;
      },
      60_000,
      'the revision waiting for capacity',
    );
    expect(waiting.status.status).toBe('DEPLOYING');
    expect(waiting.status.message).toMatch(
      /^Waiting for capacity: pod roomy-[a-z0-9-]+: Unschedulable: 0\/1 nodes are available: 1 Insufficient cpu/,
    );
    const reconciling = JSON.parse(
      await kubectlOk([
        'get',
        'deployments.berth.dev',
        'roomy',
        '-n',
        namespace,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Reconciling")]}',
      ]),
    );
    expect(reconciling).toMatchObject({ status: 'True', reason: 'WaitingForCapacity' });
    expect((await api.ok('GET', `/v2/deployments/${id}/revisions/${patched.latest_revision_id}`)).status).toBe('DEPLOYING');
    await answers(url, 'v1');

    await unhog();
    await revisionReaches(api, id, patched.latest_revision_id, ['DEPLOYED'], { timeoutMs: 120_000 });
    await answers(url, 'v2');
  });

  it("fails with the scheduler's words once the progress deadline passes, the previous revision still serving", async () => {
    await hog(0.2);
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: images.v3 } });
    const failed = await revisionReaches(api, id, patched.latest_revision_id, ['DEPLOY_FAILED', 'DEPLOYED'], {
      timeoutMs: (deadlineSeconds + 60) * 1000,
    });
    expect(failed.status).toBe('DEPLOY_FAILED');
    expect(failed.status_message).toMatch(
      /^The rollout failed: .*progress.*; pod roomy-[a-z0-9-]+: Unschedulable: 0\/1 nodes are available: 1 Insufficient cpu/s,
    );
    await answers(url, 'v2');
    await unhog();
  });
});

describe("a rollout with no room in its organization's quota", () => {
  const quota = { resourceQuota: { 'requests.cpu': '1' }, limitRange: { defaultRequest: { cpu: '50m', memory: '32Mi' } } };
  let quotaBerth: BerthProcess;
  let quotaApi: Api;
  let quotaNamespace: string;

  beforeAll(async () => {
    const { operatorNamespace, key, ...organization } = await useOrganization('quota');
    quotaNamespace = organization.namespace;
    quotaBerth = spawnBerth(inject('kubeconfigPath'), [
      ...runArgs({ operatorNamespace, watchNamespaces: [quotaNamespace, operatorNamespace] }),
      '--organization-policy',
      JSON.stringify(quota),
    ]);
    await waitReady(quotaBerth);
    quotaApi = httpApi(`http://127.0.0.1:${await quotaBerth.facadePort()}`, { 'x-api-key': key });
    await eventually(
      async () => (await kubectlOk(['get', 'resourcequota', '-n', quotaNamespace, '-o', 'name'])).includes('berth-organization'),
      30_000,
      "the organization's quota",
    );
  }, 120_000);

  afterAll(async () => {
    await quotaBerth?.stop();
  });

  it("waits for room with the quota's words, then deploys once another workload frees it", async () => {
    // Another workload of the organization holds 0.8 of its 1 CPU.
    await apply(quotaNamespace, cpuHolder('holder', '800m'));
    const created = await quotaApi.ok('POST', '/v2/deployments', {
      name: 'cramped',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.5, memory_mb: 64 } },
      source_revision_config: { image_uri: images.v1 },
    });
    const waiting = await eventually(
      async () => {
        const revision = await quotaApi.ok('GET', `/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`);
        return revision.status_message?.startsWith('Waiting for room') ? revision : undefined;
      },
      60_000,
      'the revision waiting for room in the quota',
    );
    expect(waiting.status).toBe('DEPLOYING');
    expect(waiting.status_message).toContain('exceeded quota: berth-organization');
    expect(waiting.status_message).toContain('limited: requests.cpu=1');
    // The Deployment's status is written after its Revision's, in the same pass: read it once it is.
    await eventually(
      async () =>
        (
          await kubectlOk([
            'get',
            'deployments.berth.dev',
            'cramped',
            '-n',
            quotaNamespace,
            '-o',
            'jsonpath={.status.conditions[?(@.type=="Reconciling")].reason}',
          ])
        ).trim() === 'WaitingForQuota',
      20_000,
      'the Deployment Reconciling, WaitingForQuota',
    );

    await kubectlOk(['delete', 'deployment', 'holder', '-n', quotaNamespace, '--wait=true']);
    await revisionReaches(quotaApi, created.id, created.latest_revision_id, ['DEPLOYED'], { timeoutMs: 180_000 });
  });
});

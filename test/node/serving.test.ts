// Deployments that really serve, through Berth's HTTP API on the real node: DEPLOYED means the
// revision's pods answer at the Deployment's url; an image PATCH changes what answers; a bad image or
// a crashing configuration turns the revision DEPLOY_FAILED in seconds with the kubelet's reason while
// the previous revision keeps serving; a rollback brings the older image back; secrets reach the app;
// sourceConfig changes reach the pods without a revision; logs come back masked and paged.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { registryAddress } from '../../workbench/node/network.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { defaultBuildNamespace } from '../../src/workloads/build-jobs.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches as revisionStatus, type Api } from '../support/http-api.ts';
import { apply, exampleImage, httpGet, componentPods, kubectlOk } from './support.ts';

let berth: BerthProcess;
let api: Api;
/** The same API with another organization's key. */
let otherApi: Api;
let namespace: string;
const images: Record<string, string> = {};

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-serving-op');
  namespace = await useNamespace('serving');
  const otherNamespace = await useNamespace('serving-other');
  const [org, other] = [randomUUID(), randomUUID()];
  await ensureOrganizationNamespace(kc, namespace, org);
  await ensureOrganizationNamespace(kc, otherNamespace, other);
  const key = (await ensureApiKey(kc, operatorNamespace, [org])).key;
  const otherKey = (await ensureApiKey(kc, operatorNamespace, [other])).key;
  berth = spawnBerth(
    inject('kubeconfigPath'),
    runArgs({ operatorNamespace, watchNamespaces: [namespace, otherNamespace, operatorNamespace] }),
  );
  await waitReady(berth);
  const url = `http://127.0.0.1:${await berth.facadePort()}`;
  api = httpApi(url, { 'x-api-key': key });
  otherApi = httpApi(url, { 'x-api-key': otherKey });
  images.v1 = await exampleImage('serving-v1');
  images.v2 = await exampleImage('serving-v2');
});

afterAll(async () => {
  await berth?.stop();
});

/** The revision once its status is one of `statuses`; `seen` collects the statuses it passed through. */
function revisionReaches(deploymentId: string, revisionId: string, statuses: string[], seen: string[] = [], timeoutMs = 90_000) {
  return revisionStatus(api, deploymentId, revisionId, statuses, { seen, timeoutMs });
}

/** The deployment once its active revision is `revisionId`: the status follows the revision's DEPLOYED in the same reconcile. */
async function activeIs(deploymentId: string, revisionId: string) {
  return eventually(
    async () => {
      const deployment = await api.ok('GET', `/v2/deployments/${deploymentId}`);
      return deployment.active_revision_id === revisionId ? deployment : undefined;
    },
    10_000,
    `revision ${revisionId} active`,
  );
}

/** What the app at `url` answers, retried while kube-proxy programs the Service. */
async function answerAt(url: string, expected: string) {
  return eventually(async () => (await httpGet(`${url}/`)).body === expected, 20_000, `${url} answering ${JSON.stringify(expected)}`);
}

async function podsOf(name: string) {
  const pods = await componentPods<{
    metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
    spec: { containers: { resources: { requests: Record<string, string> } }[] };
  }>(namespace, name);
  return pods.filter((pod) => !pod.metadata.deletionTimestamp);
}

describe('a Deployment created through the HTTP API on the real node', () => {
  const secret = 's3cr3t-value-for-the-log';
  const rotated = 'rotated-value-for-the-log';
  let id: string;
  let first: string;
  let second: string;
  let url: string;

  it('is DEPLOYED once its pods answer at its url, with its secret in the environment and not in the spec', async () => {
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'web',
      source: 'external_docker',
      source_config: {
        resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 },
        health_check: { path: '/ok', period_seconds: 1 },
      },
      source_revision_config: { image_uri: images.v1 },
      secrets: [{ name: 'BERTH_EXAMPLE_LOG', value: secret }],
    });
    id = created.id;
    first = created.latest_revision_id;
    const revision = await revisionReaches(id, first, ['DEPLOYED']);
    expect(revision.image_uri).toBe(images.v1);
    const deployment = await activeIs(id, first);
    expect(deployment.url).toMatch(/^http:\/\/10\.96\.\d+\.\d+$/);
    url = deployment.url;
    await answerAt(url, 'berth-example serving-v1\n');

    const [pod] = await podsOf('web');
    expect((await kubectlOk(['exec', '-n', namespace, pod!.metadata.name, '--', '/app', 'env', 'BERTH_EXAMPLE_LOG'])).trim()).toBe(secret);
    expect(await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'web', '-o', 'json'])).not.toContain(secret);
    expect(await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'web', '-o', 'jsonpath={.status.url}'])).toBe(url);
  });

  it('serves a new image after an image PATCH, through DEPLOYING, with no pod of the old one left', async () => {
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: images.v2 } });
    second = patched.latest_revision_id;
    expect(second).not.toBe(first);
    expect(patched.active_revision_id).toBe(first);
    const seen: string[] = [];
    await revisionReaches(id, second, ['DEPLOYED'], seen);
    expect(seen).toContain('DEPLOYING');
    await activeIs(id, second);
    // DEPLOYED means only the new image's pods are left: once kube-proxy has programmed the change (up to a
    // second on its sync period), every request answers from the new image.
    await answerAt(url, 'berth-example serving-v2\n');
    for (let i = 0; i < 5; i++) expect((await httpGet(`${url}/`)).body).toBe('berth-example serving-v2\n');
    expect((await podsOf('web')).map((pod) => pod.metadata.labels['berth.dev/revision'])).toEqual([
      (await api.ok('GET', `/v2/deployments/${id}/revisions/${second}`)).name,
    ]);
  });

  it('turns an image that cannot be pulled DEPLOY_FAILED with the reason, a Stalled condition and an Event, while the working revision serves', async () => {
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, {
      source_revision_config: { image_uri: `${registryAddress}/berth/does-not-exist:1` },
    });
    const bad = patched.latest_revision_id;
    const failed = await revisionReaches(id, bad, ['DEPLOY_FAILED'], [], 60_000);
    expect(failed.status_message).toMatch(/ErrImagePull|ImagePullBackOff/);
    const revisionObject = JSON.parse(await kubectlOk(['get', 'revisions.berth.dev', '-n', namespace, failed.name, '-o', 'json'])) as {
      status: { reason: string };
    };
    expect(['ErrImagePull', 'ImagePullBackOff']).toContain(revisionObject.status.reason);

    const deployment = await api.ok('GET', `/v2/deployments/${id}`);
    expect(deployment.active_revision_id).toBe(second);
    expect(deployment.status).toBe('READY');
    const stalled = await kubectlOk([
      'get',
      'deployments.berth.dev',
      '-n',
      namespace,
      'web',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Stalled")]}',
    ]);
    expect(JSON.parse(stalled)).toMatchObject({ status: 'True', reason: 'DeployFailed' });
    await eventually(
      async () =>
        (await kubectlOk(['get', 'events', '-n', namespace, '--field-selector', 'reason=DeployFailed', '-o', 'name'])).trim() !== '',
      10_000,
      'a DeployFailed Event',
    );
    for (let i = 0; i < 5; i++) expect((await httpGet(`${url}/`)).body).toBe('berth-example serving-v2\n');
  });

  it('turns a secret change that makes the app crash DEPLOY_FAILED with CrashLoopBackOff', async () => {
    // Back to the working image, plus a secret that makes it exit: a new revision either way.
    await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: images.v2 } });
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, {
      secrets: [
        { name: 'BERTH_EXAMPLE_LOG', value: '********' },
        { name: 'BERTH_EXAMPLE_EXIT', value: '3' },
      ],
    });
    const crashing = patched.latest_revision_id;
    expect([first, second]).not.toContain(crashing);
    const failed = await revisionReaches(id, crashing, ['DEPLOY_FAILED'], [], 90_000);
    expect(failed.status_message).toContain('CrashLoopBackOff');
    expect(failed.status_message).toContain('last exit code 3');
    for (let i = 0; i < 3; i++) expect((await httpGet(`${url}/`)).body).toBe('berth-example serving-v2\n');
  });

  it('makes a revision of a changed secret value, whose new pods see the new value', async () => {
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { secrets: [{ name: 'BERTH_EXAMPLE_LOG', value: rotated }] });
    const revision = patched.latest_revision_id;
    expect([first, second]).not.toContain(revision);
    await revisionReaches(id, revision, ['DEPLOYED']);
    await activeIs(id, revision);
    const [pod] = await podsOf('web');
    expect((await kubectlOk(['exec', '-n', namespace, pod!.metadata.name, '--', '/app', 'env', 'BERTH_EXAMPLE_LOG'])).trim()).toBe(rotated);
    expect(await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'web', '-o', 'json'])).not.toContain(rotated);
  });

  it('brings the first image back on redeploy, verified by what answers', async () => {
    await api.ok('POST', `/v2/deployments/${id}/revisions/${first}/redeploy`);
    await eventually(
      async () => (await api.ok('GET', `/v2/deployments/${id}`)).active_revision_id === first,
      60_000,
      'the first revision active',
    );
    // The Deployment records the revision active first; the revision's own DEPLOYED follows in the same pass.
    await revisionReaches(id, first, ['DEPLOYED'], [], 10_000);
    await answerAt(url, 'berth-example serving-v1\n');
    for (let i = 0; i < 5; i++) expect((await httpGet(`${url}/`)).body).toBe('berth-example serving-v1\n');
  });

  it('applies a sourceConfig change to the running pods without a new revision', async () => {
    const before = await api.ok('GET', `/v2/deployments/${id}`);
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { resource_spec: { cpu: 0.2 } } });
    expect(patched.latest_revision_id).toBe(before.latest_revision_id);
    await eventually(
      async () => {
        const pods = await podsOf('web');
        return pods.length === 1 && pods[0]!.spec.containers[0]!.resources.requests.cpu === '200m';
      },
      60_000,
      'the pod running with 200m of CPU',
    );
    expect((await api.ok('GET', `/v2/deployments/${id}`)).latest_revision_id).toBe(before.latest_revision_id);
    await answerAt(url, 'berth-example serving-v1\n');
  });

  it('reads deploy logs through the v2 and the v1 routes, masked, filtered and paged; another organization gets 404', async () => {
    const path = `/v2/deployments/${id}/revisions/${first}/logs`;
    const all = await eventually(
      async () => {
        const page = await api.ok('GET', `${path}?type=deploy&order=asc&limit=1000`);
        return page.logs.some((line: { message: string }) => line.message.includes('listening')) ? page : undefined;
      },
      30_000,
      'the listening line in the deploy logs',
    );
    const messages = all.logs.map((line: { message: string }) => line.message);
    expect(messages.join('\n')).not.toContain(secret);
    expect(messages.some((m: string) => m.endsWith('BERTH_EXAMPLE_LOG is ********'))).toBe(true);
    expect(all.logs[0]).toMatchObject({ level: 'info', container_name: 'app' });
    expect(all.logs[0].pod_name).toMatch(/^web-/);
    expect(all.next_offset).toBe(all.logs.at(-1).offset);
    expect(new Set(all.logs.map((line: { id: string }) => line.id)).size).toBe(all.logs.length);

    const firstPage = await api.ok('GET', `${path}?order=asc&limit=1`);
    expect(firstPage.logs).toHaveLength(1);
    expect(firstPage.next_offset).toEqual(expect.any(String));
    const secondPage = await api.ok('GET', `${path}?order=asc&limit=1&offset=${encodeURIComponent(firstPage.next_offset)}`);
    expect(secondPage.logs[0].offset).not.toBe(firstPage.logs[0].offset);
    expect(secondPage.logs[0].timestamp >= firstPage.logs[0].timestamp).toBe(true);

    const filtered = await api.ok('POST', `/v1/projects/${id}/revisions/${first}/deploy_logs`, { query: 'LISTENING', limit: 10 });
    expect(filtered.logs.length).toBeGreaterThan(0);
    for (const line of filtered.logs) expect(line.message.toLowerCase()).toContain('listening');
    const project = await api.ok('POST', `/v1/projects/${id}/deploy_logs`, {});
    expect(project.logs.length).toBeGreaterThan(0);
    expect((await api.ok('POST', `/v1/projects/${id}/revisions/${first}/build_logs`, {})).logs).toEqual([]);

    // The Job where Berth runs the revision's build (the build namespace, named by the revision's uid) is
    // its build: its log comes back as build logs, masked too.
    const revisionName = (await api.ok('GET', `/v2/deployments/${id}/revisions/${first}`)).name;
    await apply(defaultBuildNamespace, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: `build-${first}`, labels: { 'berth.dev/build-for-deployment': id, 'berth.dev/build-for-namespace': namespace } },
      spec: {
        backoffLimit: 0,
        template: {
          metadata: { labels: { 'berth.dev/revision': revisionName, 'berth.dev/build-for-namespace': namespace } },
          spec: {
            restartPolicy: 'Never',
            terminationGracePeriodSeconds: 0,
            containers: [{ name: 'build', image: images.v1, args: ['env', 'TOKEN'], env: [{ name: 'TOKEN', value: `token ${rotated}` }] }],
          },
        },
      },
    });
    const build = await eventually(
      async () => {
        const page = await api.ok('POST', `/v1/projects/${id}/revisions/${first}/build_logs`, {});
        return page.logs.length > 0 ? page : undefined;
      },
      60_000,
      "the build-like Job's log",
    );
    expect(build.logs.map((line: { message: string; container_name: string }) => [line.container_name, line.message])).toEqual([
      ['build', 'token ********'],
    ]);
    expect((await api.ok('GET', `${path}?type=build`)).logs.map((line: { message: string }) => line.message)).toEqual(['token ********']);
    expect((await api.ok('GET', `${path}?type=deploy&limit=1000`)).logs.map((line: { message: string }) => line.message)).not.toContain(
      'token ********',
    );

    // The newer form: a deployment's lines by cursor, the same lines as the older forms give. Read once
    // the rollouts' old pods are gone: a container the kubelet removes between two reads has lines in one.
    await eventually(
      async () =>
        (await componentPods<{ metadata: { deletionTimestamp?: string } }>(namespace, 'web')).every(
          (pod) => !pod.metadata.deletionTimestamp,
        ),
      60_000,
      "only the current revision's pods",
    );
    const oldest = await api.ok('POST', `/v1/projects/${id}/deploy_logs`, { order: 'asc', limit: 100 });
    const newer = await api.ok('GET', `/v2/deployment-logs?deployment_id=${id}&page_size=100`);
    expect(newer).toEqual({ items: oldest.logs, next_cursor: oldest.next_offset });
    // Ids in any case, as in paths.
    expect(await api.ok('GET', `/v2/deployment-logs?deployment_id=${id.toUpperCase()}&page_size=100`)).toEqual(newer);
    const one = await api.ok('GET', `/v2/deployment-logs?deployment_id=${id}&page_size=1`);
    const next = await api.ok('GET', `/v2/deployment-logs?deployment_id=${id}&page_size=1&cursor=${encodeURIComponent(one.next_cursor)}`);
    expect([...one.items, ...next.items]).toEqual(oldest.logs.slice(0, 2));
    expect(
      (await api.ok('GET', `/v2/deployment-logs?deployment_id=${id}&revision_id=${first}&log_type=BUILD`)).items.map(
        (line: { message: string }) => line.message,
      ),
    ).toEqual(['token ********']);
    expect((await otherApi.call('GET', `/v2/deployment-logs?deployment_id=${id}`)).status).toBe(404);
    expect((await api.call('GET', `/v2/deployment-logs?deployment_id=${id}&page_size=101`)).status).toBe(422);
    expect((await api.call('GET', `/v2/deployment-logs?deployment_id=${id}&cursor=not-a-cursor`)).body).toMatchObject({
      detail: [{ loc: ['query', 'cursor'] }],
    });
    expect((await api.call('GET', '/v2/deployment-logs')).status).toBe(422);

    expect((await otherApi.call('GET', `${path}?type=deploy`)).status).toBe(404);
    expect((await api.call('GET', `${path}?offset=not-a-cursor`)).status).toBe(422);
    expect((await api.call('GET', `${path}?limit=1001`)).status).toBe(422);
  });

  it('takes the app down on delete', async () => {
    expect((await api.call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    await eventually(async () => (await podsOf('web')).length === 0, 60_000, 'no pod of web left');
    await eventually(
      async () => (await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, '-o', 'name'])).trim() === '',
      30_000,
      'the Deployment gone',
    );
  });
});

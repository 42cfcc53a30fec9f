// Preview Deployments per pull request, against a real API server and a running Berth, with the real
// GitHub client against a GitHub that speaks GitHub's wire format: a preview per open request (drafts
// and requests over the cap left out, a fork's until a maintainer labels it), the parent's secrets for
// the team's own requests and none for a fork's (nor its service account), `is_preview` in the HTTP API,
// a restarted Berth that writes nothing over them at rest (nor over a canary's rollout or an agent
// server beside them), and the preview gone once its request closes or the deployment asks for none.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { codeHostIntegrationKind, type Deployment } from '../src/api/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';
import { kubectl } from './support/cluster.ts';
import { apiWrites, parseMetrics, sumOf, type Sample } from '../workbench/support/berth-metrics.ts';
import { GitServer } from '../workbench/support/git-server.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { httpApi, type Api } from './support/http-api.ts';
import { useOrganization } from './support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from './support/berth-process.ts';

let berth: BerthProcess;
let github: FakeGitHub;
let git: GitServer;
let api: Api;
let namespace: string;
let repositoryId: number;
let integrationId: string;
let startPreviewsBerth: () => Promise<void>;

async function kubectlJson<T>(args: string[]): Promise<T> {
  const result = await kubectl([...args, '-o', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** The previews the API lists, by name. */
async function previewNames(): Promise<string[]> {
  const listed = (await api.ok('GET', '/v2/deployments?is_preview=true')).resources as { name: string; is_preview: boolean }[];
  expect(listed.every((deployment) => deployment.is_preview)).toBe(true);
  return listed.map((deployment) => deployment.name).sort();
}

async function metricsOf(process: BerthProcess): Promise<Sample[]> {
  return parseMetrics(await (await fetch(`http://127.0.0.1:${await process.probePort()}/metrics`)).text());
}

/** Until Berth has reconciled each of `deployments` and its queues stayed empty for 3 s (polls of the
 * code host go on: they must find nothing to do). */
async function untilIdle(process: BerthProcess, deployments: number): Promise<void> {
  let emptySince: number | undefined;
  await eventually(
    async () => {
      const samples = await metricsOf(process);
      const settled =
        sumOf(samples, 'berth_reconcile_total', { controller: 'deployment' }) >= deployments &&
        sumOf(samples, 'berth_reconcile_total', { controller: 'preview' }) >= 1 &&
        sumOf(samples, 'berth_workqueue_depth') === 0;
      emptySince = settled ? (emptySince ?? Date.now()) : undefined;
      return emptySince !== undefined && Date.now() - emptySince >= 3000;
    },
    60_000,
    `Berth ${process.pid} at rest`,
    250,
  );
}

beforeAll(async () => {
  // Served as GitHub Enterprise serves it: the API and the repositories' git on one origin.
  git = await GitServer.start();
  github = await FakeGitHub.start({ git });
  const alice = github.account('alice');
  repositoryId = github.addRepository(alice, { name: 'shop' });
  const token = github.issuePersonalToken(alice);
  await git.createRepository('alice/shop', { Dockerfile: 'FROM scratch\n' }, { token });
  const organization = await useOrganization('previews');
  namespace = organization.namespace;
  for (const object of [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'github', labels: sharedSecretLabels }, stringData: { token } },
    {
      apiVersion: codeHostIntegrationKind.apiVersion,
      kind: 'CodeHostIntegration',
      metadata: { name: 'github' },
      spec: { baseUrl: github.url, credentialsSecretRef: { name: 'github' } },
    },
  ]) {
    const applied = await kubectl(['apply', '-n', namespace, '-f', '-'], JSON.stringify(object));
    expect(applied.code, applied.stderr).toBe(0);
  }
  integrationId = (await kubectlJson<{ metadata: { uid: string } }>(['get', 'codehostintegration', 'github', '-n', namespace])).metadata
    .uid;
  startPreviewsBerth = async () => {
    berth = spawnBerth(inject('kubeconfigPath'), [
      ...runArgs({ operatorNamespace: organization.operatorNamespace, watchNamespaces: [organization.operatorNamespace, namespace] }),
      '--code-host-origins',
      github.url,
      '--source-poll-seconds',
      '2',
      // Previews of alice's repositories may clone their deployment's database.
      '--organization-policy',
      JSON.stringify({ previewDatabaseClone: [`${new URL(github.url).host}/alice/*`] }),
      // Agent servers on a durable image: their status says whether their database admits them.
      '--agent-server-image',
      `registry.test:5000/berth/agent-server@sha256:${'0'.repeat(64)}`,
    ]);
    await waitReady(berth);
    api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': organization.key });
  };
  await startPreviewsBerth();
});

afterAll(async () => {
  await berth?.stop();
  await github?.stop();
  await git?.stop();
});

describe('preview deployments per pull request', () => {
  it("makes one per open request, a fork's once a maintainer labels it, with the deployment's secrets for its own requests and none for a fork's", async () => {
    const own = github.openPullRequest(repositoryId, { headSha: 'a'.repeat(40), headRef: 'feature' });
    const fork = github.openPullRequest(repositoryId, { headSha: 'b'.repeat(40), headRef: 'patch', fromFork: true });
    github.openPullRequest(repositoryId, { headSha: 'c'.repeat(40), headRef: 'wip', draft: true });
    await api.ok('POST', '/v2/deployments', {
      name: 'shop',
      source: 'codehost',
      source_config: {
        integration_id: integrationId,
        repo_url: `${github.url}/alice/shop`,
        custom_url: 'https://shop.example.com',
        previews: { max_concurrent: 2, secrets: [{ name: 'DB_URL', value_from: { secret_key_ref: { name: 'staging', key: 'url' } } }] },
        resource_spec: { max_scale: 2, service_account_name: 'deployer' },
      },
      source_revision_config: { repo_ref: 'main' },
      secrets: [{ name: 'API_TOKEN', value: 'parent-only' }],
    });
    await eventually(async () => (await previewNames()).join() === `shop-pr-${own}`, 30_000, "the team's own request's preview");
    // A fork's request waits for a maintainer's label (previews.forks defaults to label).
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await previewNames()).toEqual([`shop-pr-${own}`]);
    github.updatePullRequest(repositoryId, fork, { labels: ['ok-to-preview'] });
    await eventually(async () => (await previewNames()).join() === `shop-pr-${own},shop-pr-${fork}`, 30_000, 'two previews');
    // Each preview says what it previews, with its request's page on the code host.
    const listed = (await api.ok('GET', '/v2/deployments?is_preview=true')).resources as { name: string; preview_of: unknown }[];
    expect(Object.fromEntries(listed.map((deployment) => [deployment.name, deployment.preview_of]))).toEqual({
      [`shop-pr-${own}`]: {
        deployment_name: 'shop',
        pull_request: own,
        from_fork: false,
        pull_request_url: `${github.url}/alice/shop/pull/${own}`,
      },
      [`shop-pr-${fork}`]: {
        deployment_name: 'shop',
        pull_request: fork,
        from_fork: true,
        pull_request_url: `${github.url}/alice/shop/pull/${fork}`,
      },
    });
    const listedAll = (await api.ok('GET', '/v2/deployments?is_preview=false')).resources as { name: string; preview_of: unknown }[];
    expect(listedAll.map((deployment) => deployment.preview_of)).toEqual([null]);
    expect(listedAll.map((deployment) => deployment.name)).toEqual(['shop']);

    const preview = await kubectlJson<Deployment>(['get', 'deployments.berth.dev', `shop-pr-${own}`, '-n', namespace]);
    expect(preview.spec.sourceRevisionConfig.repoRef).toBe(`refs/pull/${own}/head`);
    expect(preview.spec.sourceConfig).toMatchObject({ buildOnPush: true, databaseRetention: 'delete', deploymentType: 'dev_zero' });
    expect(preview.spec.sourceConfig?.customUrl).toBeUndefined();
    // The parent's own secret, read from the parent's Secret, and the previews' own beside it.
    expect(preview.spec.secrets).toEqual([
      { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'shop-secrets', key: 'API_TOKEN' } } },
      { name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'staging', key: 'url' } } },
    ]);
    expect(preview.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'shop', controller: true });
    const forked = await kubectlJson<Deployment>(['get', 'deployments.berth.dev', `shop-pr-${fork}`, '-n', namespace]);
    expect(forked.spec.secrets).toEqual([]);
    // A fork's code gets a minimal pod: sizes, not the deployment's service account.
    expect(preview.spec.sourceConfig?.resourceSpec).toEqual({ maxScale: 2, serviceAccountName: 'deployer' });
    expect(forked.spec.sourceConfig?.resourceSpec).toEqual({ maxScale: 2 });
    expect(forked.spec.previewOf).toEqual({ deploymentName: 'shop', pullRequest: fork, fromFork: true });
  });

  it('removes a preview when its request closes, and gives the room to the next request', async () => {
    const next = github.openPullRequest(repositoryId, { headSha: 'd'.repeat(40), headRef: 'next' });
    const later = github.openPullRequest(repositoryId, { headSha: 'e'.repeat(40), headRef: 'later' });
    // At the cap: the two that have previews keep them.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(await previewNames()).toEqual(['shop-pr-1', 'shop-pr-2']);
    github.closePullRequest(repositoryId, 1);
    await eventually(async () => (await previewNames()).join() === `shop-pr-2,shop-pr-${next}`, 30_000, 'the closed one replaced');
    expect((await previewNames()).includes(`shop-pr-${later}`)).toBe(false);
    const events = await kubectlJson<{ items: { reason: string; message: string }[] }>([
      'get',
      'events',
      '-n',
      namespace,
      '--field-selector',
      'involvedObject.name=shop',
    ]);
    expect(events.items.map((event) => event.reason)).toEqual(expect.arrayContaining(['PreviewCreated', 'PreviewRemoved']));
  });

  it('writes nothing once restarted over its deployments at rest: a parent, its previews, a canary, an agent server', async () => {
    // The open requests' heads, which the previews build on every push.
    const head = await git.head('alice/shop');
    for (const number of [2, 4]) await git.setRef('alice/shop', `refs/pull/${number}/head`, head);
    // Beside the previews: a canary's rollout (this installation has no metrics store: the revision
    // rolls out at once and a condition says why) and an agent server whose build waits for a builder,
    // with more replicas than its database has connections for (a condition and a Warning, once).
    const canary = await api.ok('POST', '/v2/deployments', {
      name: 'steady',
      source: 'external_docker',
      source_config: { canary: { steps: [10, 50] } },
      source_revision_config: { image_uri: 'nginx:1' },
    });
    await api.ok('PATCH', `/v2/deployments/${canary.id as string}`, { source_revision_config: { image_uri: 'nginx:2' } });
    await api.ok('POST', '/v2/deployments', {
      name: 'agent',
      source: 'codehost',
      source_config: { integration_id: integrationId, repo_url: `${github.url}/alice/shop`, resource_spec: { max_scale: 4 } },
      source_revision_config: { repo_ref: 'main', langgraph_config_path: 'langgraph.json' },
    });
    await eventually(
      async () => ((await api.ok('GET', `/v2/deployments/${canary.id as string}/revisions`)).resources as unknown[]).length === 2,
      30_000,
      "the canary's second revision",
    );
    await eventually(
      async () => {
        const agent = await kubectlJson<Deployment>(['get', 'deployments.berth.dev', 'agent', '-n', namespace]);
        return agent.status?.conditions?.find((c) => c.type === 'DatabaseConnections')?.reason === 'MaxConnectionsTooLow';
      },
      30_000,
      "the agent server's DatabaseConnections condition",
    );
    const deployments = (await kubectlJson<{ items: unknown[] }>(['get', 'deployments.berth.dev', '-n', namespace])).items.length;
    const previews = await previewNames();
    await untilIdle(berth, deployments);
    await berth.stop();

    await startPreviewsBerth();
    await untilIdle(berth, deployments);
    expect(Object.fromEntries(apiWrites(await metricsOf(berth)))).toEqual({});
    expect(await previewNames()).toEqual(previews);
  });

  it("clones a deployment's database into its previews only where the policy lists the repository, and never for a fork", async () => {
    const cloned = { previews: { database: 'clone' } };
    // Another owner's repository: refused at the API, and nothing made.
    const refused = await api.call('POST', '/v2/deployments', {
      name: 'cart',
      source: 'codehost',
      source_config: { integration_id: integrationId, repo_url: `${github.url}/bob/cart`, ...cloned },
      source_revision_config: { repo_ref: 'main' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'source_config', 'previews', 'database'] });
    expect(refused.body.detail[0].msg).toContain(`lets no preview of ${new URL(github.url).host}/bob/cart clone`);
    expect((await kubectl(['get', 'deployments.berth.dev', 'cart', '-n', namespace])).code).not.toBe(0);
    // Alice's: taken. The previews made before keep the database they have; a new one would clone it,
    // which this installation cannot (no CloudNativePG): it says so rather than begin empty.
    const id = ((await api.ok('GET', '/v2/deployments?name=shop')).resources as { id: string }[])[0]!.id;
    await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { previews: { database: 'clone', max_concurrent: 5 } } });
    const own = github.openPullRequest(repositoryId, { headSha: 'f'.repeat(40), headRef: 'clone-me' });
    const fork = github.openPullRequest(repositoryId, {
      headSha: '9'.repeat(40),
      headRef: 'fork',
      fromFork: true,
      labels: ['ok-to-preview'],
    });
    const stalledReason = async (name: string) => {
      const preview = await kubectlJson<Deployment>(['get', 'deployments.berth.dev', name, '-n', namespace]);
      const stalled = preview.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');
      return stalled && `${stalled.reason}: ${stalled.message}`;
    };
    const reason = await eventually(async () => stalledReason(`shop-pr-${own}`), 30_000, 'the cloning preview stalled');
    expect(reason).toContain('PreviewCloneUnavailable: Deployment shop asks previews.database clone, but its database is not backed up');
    // A fork's request gets an empty database: its preview goes on, as do the previews made before.
    await eventually(
      async () => (await kubectl(['get', 'statefulset', `shop-pr-${fork}-postgres`, '-n', namespace])).code === 0,
      30_000,
      "the fork's preview's empty database",
    );
    for (const name of [`shop-pr-${fork}`, 'shop-pr-2']) expect(await stalledReason(name)).toBeUndefined();
  });

  it('removes every preview when the deployment asks for none', async () => {
    const id = ((await api.ok('GET', '/v2/deployments?name=shop')).resources as { id: string }[])[0]!.id;
    await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { previews: { trigger: 'off' } } });
    await eventually(async () => (await previewNames()).length === 0, 30_000, 'no previews');
  });
});

describe("a code host's webhook", () => {
  const webhookSecret = 'hook-secret-0123456789';
  let quiet: BerthProcess;
  let quietApi: Api;
  let base: string;
  let cartId: number;
  let cartIntegration: string;

  beforeAll(async () => {
    const alice = github.account('alice-hooks');
    cartId = github.addRepository(alice, { name: 'cart' });
    const token = github.issuePersonalToken(alice);
    const organization = await useOrganization('webhooks');
    for (const object of [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'github', labels: sharedSecretLabels }, stringData: { token, webhookSecret } },
      {
        apiVersion: codeHostIntegrationKind.apiVersion,
        kind: 'CodeHostIntegration',
        metadata: { name: 'github' },
        spec: { baseUrl: github.url, credentialsSecretRef: { name: 'github' } },
      },
    ]) {
      const applied = await kubectl(['apply', '-n', organization.namespace, '-f', '-'], JSON.stringify(object));
      expect(applied.code, applied.stderr).toBe(0);
    }
    cartIntegration = (
      await kubectlJson<{ metadata: { uid: string } }>(['get', 'codehostintegration', 'github', '-n', organization.namespace])
    ).metadata.uid;
    // Polls every ten minutes: only a delivery can make it look sooner.
    quiet = spawnBerth(inject('kubeconfigPath'), [
      ...runArgs({
        operatorNamespace: organization.operatorNamespace,
        watchNamespaces: [organization.operatorNamespace, organization.namespace],
      }),
      '--code-host-origins',
      github.url,
      '--source-poll-seconds',
      '600',
    ]);
    await waitReady(quiet);
    base = `http://127.0.0.1:${await quiet.facadePort()}`;
    quietApi = httpApi(base, { 'x-api-key': organization.key });
    await quietApi.ok('POST', '/v2/deployments', {
      name: 'cart',
      source: 'codehost',
      source_config: { integration_id: cartIntegration, repo_url: `${github.url}/alice-hooks/cart`, previews: {} },
      source_revision_config: { repo_ref: 'main' },
    });
  });

  afterAll(async () => {
    await quiet?.stop();
  });

  it('makes the repository read again at once when signed with the secret, and is refused otherwise', async () => {
    const previews = async () =>
      ((await quietApi.ok('GET', '/v2/deployments?is_preview=true')).resources as { name: string }[]).map((d) => d.name);
    // The first pass read no pull request; one opened now waits for the next poll, ten minutes away.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const number = github.openPullRequest(cartId, { headSha: 'f'.repeat(40), headRef: 'hooked' });
    const url = `${base}/v1/integrations/codehost/${cartIntegration}/webhook`;
    const payload = { action: 'opened', number, repository: { html_url: github.htmlUrl('alice-hooks/cart') } };

    // A forged delivery, one to an integration that takes no webhooks (the first organization's has no
    // webhook secret) and one to no integration at all get the same answer: none tells them apart.
    const refusals = await Promise.all(
      [
        github.deliverWebhook(url, 'not-the-secret', 'pull_request', payload),
        github.deliverWebhook(url.replace(cartIntegration, integrationId), webhookSecret, 'pull_request', payload),
        github.deliverWebhook(url.replace(cartIntegration, randomUUID()), webhookSecret, 'pull_request', payload),
      ].map(async (answer) => {
        const response = await answer;
        const { detail } = (await response.json()) as { detail: string };
        return [response.status, detail.replace(/integration ID \S+ /, 'integration ID <id> ')];
      }),
    );
    expect(new Set(refusals.map((refusal) => JSON.stringify(refusal)))).toEqual(
      new Set([JSON.stringify([401, 'The delivery is not verified: integration ID <id> takes no webhook signed so.'])]),
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await previews()).toEqual([]);

    const delivered = await github.deliverWebhook(url, webhookSecret, 'pull_request', payload);
    expect(delivered.status).toBe(202);
    expect(((await delivered.json()) as { detail: string }).detail).toBe('pull_request: 1 deployment(s) read the repository again.');
    await eventually(async () => (await previews()).join() === `cart-pr-${number}`, 15_000, 'the preview, soon after the delivery');
  });
});

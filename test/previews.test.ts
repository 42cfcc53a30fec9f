// Preview Deployments per pull request, against a real API server and a running Berth, with the real
// GitHub client against a GitHub that speaks GitHub's wire format: a preview per open request (drafts
// and requests over the cap left out), the parent's secrets for the team's own requests and none for a
// fork's, `is_preview` in the HTTP API, and the preview gone once its request closes or the deployment
// asks for none.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { codeHostIntegrationKind, type Deployment } from '../src/api/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';
import { kubectl } from './support/cluster.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { httpApi, type Api } from './support/http-api.ts';
import { useOrganization } from './support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from './support/berth-process.ts';

let berth: BerthProcess;
let github: FakeGitHub;
let api: Api;
let namespace: string;
let repositoryId: number;
let integrationId: string;

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

beforeAll(async () => {
  github = await FakeGitHub.start({ enterprise: true });
  const alice = github.account('alice');
  repositoryId = github.addRepository(alice, { name: 'shop' });
  const token = github.issuePersonalToken(alice);
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
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace: organization.operatorNamespace, watchNamespaces: [organization.operatorNamespace, namespace] }),
    '--code-host-origins',
    github.url,
    '--source-poll-seconds',
    '2',
  ]);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': organization.key });
});

afterAll(async () => {
  await berth?.stop();
  await github?.stop();
});

describe('preview deployments per pull request', () => {
  it("makes one per open request, with the deployment's secrets for its own requests and none for a fork's", async () => {
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
        previews: { max_concurrent: 2 },
      },
      source_revision_config: { repo_ref: 'main' },
      secrets: [{ name: 'API_TOKEN', value: 'parent-only' }],
    });
    await eventually(async () => (await previewNames()).join() === `shop-pr-${own},shop-pr-${fork}`, 30_000, 'two previews');
    const listedAll = (await api.ok('GET', '/v2/deployments?is_preview=false')).resources as { name: string }[];
    expect(listedAll.map((deployment) => deployment.name)).toEqual(['shop']);

    const preview = await kubectlJson<Deployment>(['get', 'deployments.berth.dev', `shop-pr-${own}`, '-n', namespace]);
    expect(preview.spec.sourceRevisionConfig.repoRef).toBe(`refs/pull/${own}/head`);
    expect(preview.spec.sourceConfig).toMatchObject({ buildOnPush: true, databaseRetention: 'delete', deploymentType: 'dev_zero' });
    expect(preview.spec.sourceConfig?.customUrl).toBeUndefined();
    expect(preview.spec.secrets).toEqual([{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'shop-secrets', key: 'API_TOKEN' } } }]);
    expect(preview.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'shop', controller: true });
    const forked = await kubectlJson<Deployment>(['get', 'deployments.berth.dev', `shop-pr-${fork}`, '-n', namespace]);
    expect(forked.spec.secrets).toEqual([]);
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

  it('removes every preview when the deployment asks for none', async () => {
    const id = ((await api.ok('GET', '/v2/deployments?name=shop')).resources as { id: string }[])[0]!.id;
    await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { previews: { trigger: 'off' } } });
    await eventually(async () => (await previewNames()).length === 0, 30_000, 'no previews');
  });
});

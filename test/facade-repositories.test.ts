// GET /v1/integrations/codehost/{integration_id}/repos through the facade, with the real code-host
// client against a GitHub that speaks GitHub's wire format: a bare array of Repository, every field of
// the table, tenancy by the integration's uid, and code-host refusals as 4xx without the token.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHostIntegrationKind, group, version } from '../src/api/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type TestFacade } from './support/facade.ts';
import { expectTable, repositoryTable } from './support/facade-shapes.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

let t: TestFacade;
let github: FakeGitHub;
let token: string;

beforeAll(async () => {
  // A GitHub Enterprise: repositories on the API's host, where the integration's token may go.
  github = await FakeGitHub.start({ enterprise: true });
  // No Deployment controller here: a create answers after a short wait for an observation that never comes.
  t = await startTestFacade({ observeTimeoutMs: 300, codeHostOrigins: [github.url] });
  const alice = github.account('alice');
  github.addRepositories(alice, 130);
  token = github.issuePersonalToken(alice);
});

afterAll(async () => {
  await github?.stop();
});

async function createIntegration(namespace: string, name: string, secretToken: string): Promise<string> {
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: `${name}-credentials`, labels: sharedSecretLabels }, stringData: { token: secretToken } },
  });
  const created = (await custom.createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: codeHostIntegrationKind.plural,
    body: {
      apiVersion: `${group}/${version}`,
      kind: 'CodeHostIntegration',
      metadata: { name },
      spec: { baseUrl: github.url, credentialsSecretRef: { name: `${name}-credentials` } },
    },
  })) as { metadata: { uid: string } };
  return created.metadata.uid;
}

async function listRepos(id: string, key?: string) {
  return eventually(
    async () => {
      const response = await t.call('GET', `/v1/integrations/codehost/${id}/repos`, key ? { key } : {});
      // The facade's cache learns of a new integration within moments.
      return response.status === 404 && response.body.detail.startsWith('Integration ID') && !key ? undefined : response;
    },
    10_000,
    'the integration in the cache',
  );
}

describe('GET /v1/integrations/codehost/{integration_id}/repos', () => {
  it('answers every repository the token reaches as a bare array of the table', async () => {
    const id = await createIntegration(t.org.namespace, 'github', token);
    const response = await listRepos(id);
    expect(response.status, response.text).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body).toHaveLength(130);
    for (const repository of response.body) expectTable(repository, repositoryTable);
    expect(response.body[0]).toMatchObject({ host_integration_id: id, owner: 'alice', default_branch: 'main' });
    expect(response.body[0].url.startsWith(`${github.url}/alice/repo-`)).toBe(true);
  });

  it('lists fields a deployment-creation body takes as they are', async () => {
    const id = await createIntegration(t.org.namespace, 'for-create', token);
    const [repository] = (await listRepos(id)).body;
    const created = await t.call('POST', '/v2/deployments', {
      body: {
        name: 'from-repo',
        source: 'codehost',
        source_config: { integration_id: repository.host_integration_id, repo_url: repository.url, build_on_push: true },
        source_revision_config: { repo_ref: repository.default_branch, graph_config_path: 'app.json' },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.source_config).toEqual({ integration_id: id, repo_url: repository.url, build_on_push: true });
    expect(created.body.source_revision_config).toEqual({ repo_ref: 'main', graph_config_path: 'app.json' });
  });

  it("answers 404 for another organization's integration", async () => {
    const id = await createIntegration(t.otherOrg.namespace, 'foreign', token);
    await eventually(
      async () => (await t.call('GET', `/v1/integrations/codehost/${id}/repos`, { key: t.otherOrg.key })).status === 200,
      10_000,
      'the integration in the cache',
    );
    const response = await t.call('GET', `/v1/integrations/codehost/${id}/repos`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: `Integration ID ${id} not found.` });
  });

  it('answers a revoked token with a 4xx that does not quote it', async () => {
    const revoked = github.issuePersonalToken(github.account('bob'));
    github.revokeToken(revoked);
    const id = await createIntegration(t.org.namespace, 'revoked', revoked);
    const response = await listRepos(id);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/refused the integration's credentials/);
    expect(response.text).not.toContain(revoked);
    expect(t.logLines.join('\n')).not.toContain(revoked);
  });

  it('answers an integration whose Secret is missing with a 400 naming the Secret', async () => {
    const created = (await custom.createNamespacedCustomObject({
      group,
      version,
      namespace: t.org.namespace,
      plural: codeHostIntegrationKind.plural,
      body: {
        apiVersion: `${group}/${version}`,
        kind: 'CodeHostIntegration',
        metadata: { name: 'no-secret' },
        spec: { baseUrl: github.url, credentialsSecretRef: { name: 'absent' } },
      },
    })) as { metadata: { uid: string } };
    const response = await listRepos(created.metadata.uid);
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain('absent');
  });
});

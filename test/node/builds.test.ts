// Builds for real: a codehost Deployment's revision is cloned from a git server on the host (with the
// integration's token: the repository is private), built by BuildKit from the repository's Dockerfile
// in a Job on the node, pushed with the organization's credential to the registry Berth issues tokens
// for, pinned by digest, and then pulled with its pull secret and served. A failed
// build (a RUN step, a build command, a missing ref) says which step failed and its last lines; the
// previous revision keeps serving; the token never shows in a status, a log line or an Event.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeIp } from '../../workbench/node/network.ts';
import type { PushRegistry } from '../../workbench/node/push-registry.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { defaultBuildNamespace } from '../../src/workloads/build-jobs.ts';
import { useOrganization } from '../support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { GitServer } from '../../workbench/support/git-server.ts';
import { httpApi, revisionReaches as revisionStatus, type Api } from '../support/http-api.ts';
import {
  componentPods,
  exampleImage,
  filePushRegistry,
  httpGet,
  kubectlOk,
  sourceBuildFlags,
  startOrganizationRegistry,
} from './support.ts';
import { shareSecretArgs } from '../../workbench/support/shared-secrets.ts';

let berth: BerthProcess;
let registry: PushRegistry | undefined;
let workdir: string;
let api: Api;
let git: GitServer;
let github: FakeGitHub;
let namespace: string;
let token: string;
let base: string;
let repositoryId: number;
const repository = 'acme/shop';

/** A Dockerfile that builds on the example app's image and answers `version`; its RUN step runs in BuildKit's sandbox. */
function dockerfile(version: string, run: string[] = ['/app', 'version']): string {
  return [`FROM ${base}`, `ENV APP_VERSION=${version}`, `RUN ${JSON.stringify(run)}`, ''].join('\n');
}

beforeAll(async () => {
  const { operatorNamespace, key, ...org } = await useOrganization('builds');
  namespace = org.namespace;
  base = await exampleImage('build-base');

  git = await GitServer.start(nodeIp);
  github = await FakeGitHub.start({ host: nodeIp, git });
  const owner = github.account('acme', 'Organization');
  repositoryId = github.addRepository(owner, { name: 'shop', private: true });
  token = github.issuePersonalToken(owner);
  await git.createRepository(repository, { Dockerfile: dockerfile('built-1'), 'README.md': '# shop\n' }, { token });
  await kubectlOk(['create', 'secret', 'generic', '-n', namespace, 'github-token', `--from-literal=token=${token}`]);
  await kubectlOk(shareSecretArgs(namespace, 'github-token'));
  await kubectlOk(
    ['apply', '-n', namespace, '-f', '-'],
    JSON.stringify({
      apiVersion: 'berth.dev/v1alpha1',
      kind: 'CodeHostIntegration',
      metadata: { name: 'github' },
      spec: { baseUrl: github.url, credentialsSecretRef: { name: 'github-token' } },
    }),
  );

  // As `berth dev` runs it: the registry whose tokens Berth issues, and the images built here.
  const args = [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    ...(await sourceBuildFlags()),
    // The GitHub Enterprise stand-in, an origin the installation allows.
    '--code-host-origins',
    github.url,
    '--source-poll-seconds',
    '2',
  ];
  berth = spawnBerth(inject('kubeconfigPath'), args);
  await waitReady(berth);
  workdir = mkdtempSync(join(tmpdir(), 'berth-builds-'));
  registry = await startOrganizationRegistry(berth, operatorNamespace, join(workdir, 'registry'));
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': key });
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  await berth?.stop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
  await github?.stop();
  await git?.stop();
});

/** The revision once its status is one of `statuses`; `seen` collects the statuses it passed through. */
function revisionReaches(deploymentId: string, revisionId: string, statuses: string[], seen: string[] = [], timeoutMs = 240_000) {
  return revisionStatus(api, deploymentId, revisionId, statuses, { seen, timeoutMs });
}

/** What the app at `url` answers, retried while kube-proxy programs the Service; then asked again, to be sure. */
async function answerAt(url: string, expected: string): Promise<void> {
  await eventually(
    async () => (await httpGet(url).catch(() => ({ body: '' }))).body.trim() === expected,
    20_000,
    `${url} answering ${expected}`,
  );
  for (let i = 0; i < 3; i++) expect((await httpGet(url)).body.trim()).toBe(expected);
}

describe('a codehost Deployment on the real node', () => {
  let id: string;
  let first: string;
  let url: string;

  it('clones with the integration token, builds the Dockerfile with BuildKit, pushes by digest and serves what it built', async () => {
    await eventually(
      async () =>
        (await kubectlOk([
          'get',
          'codehost',
          '-n',
          namespace,
          'github',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
        ])) === 'True',
      60_000,
      'the integration Ready',
    );
    const integrationId = (await kubectlOk(['get', 'codehost', '-n', namespace, 'github', '-o', 'jsonpath={.metadata.uid}'])).trim();
    const head = await git.head(repository);
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'shop',
      source: 'codehost',
      source_config: {
        integration_id: integrationId,
        repo_url: `${github.url}/${repository}`,
        resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64, db_cpu: 0.1, db_memory_mb: 128 },
      },
      source_revision_config: { repo_ref: 'main' },
    });
    id = created.id;
    first = created.latest_revision_id;
    const seen: string[] = [];
    const revision = await revisionReaches(id, first, ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED'], seen);
    expect(revision.status, revision.status_message).toBe('DEPLOYED');
    expect(seen).toContain('BUILDING');
    expect(seen.indexOf('BUILDING')).toBeLessThan(seen.indexOf('DEPLOYED'));
    expect(revision.source_revision_config.repo_commit_sha).toBe(head);
    expect(revision.image_uri).toMatch(new RegExp(`^${filePushRegistry()}/${namespace}/shop:${revision.name}@sha256:[0-9a-f]{64}$`));

    const deployment = await api.ok('GET', `/v2/deployments/${id}`);
    url = deployment.url;
    await answerAt(url, 'berth-example built-1');
    // The private repository was read with the token, and only with it.
    expect(git.requests.some((r) => r.status === 200 && r.path.endsWith('/git-upload-pack'))).toBe(true);
    // Built apart from the organization: the privileged Job ran in the build namespace, none beside the app.
    expect((await kubectlOk(['get', 'jobs', '-n', namespace, '-o', 'name'])).trim()).toBe('');
    const builds = await kubectlOk([
      'get',
      'jobs',
      '-n',
      defaultBuildNamespace,
      '-l',
      `berth.dev/build-for-namespace=${namespace}`,
      '-o',
      'name',
    ]);
    expect(builds).toContain(`job.batch/build-${first}`);
  });

  it('shows the build log through the logs route: BuildKit ran the RUN step', async () => {
    const page = await api.ok('GET', `/v2/deployments/${id}/revisions/${first}/logs?type=build&limit=1000`);
    const messages: string[] = page.logs.map((line: { message: string }) => line.message);
    expect(messages.some((m) => m.includes('RUN ["/app","version"]') || m.includes('RUN ["/app", "version"]'))).toBe(true);
    expect(messages.some((m) => m.includes('pushing'))).toBe(true);
  });

  it('turns a failing build BUILD_FAILED with the step and its last lines, while the built revision keeps serving', async () => {
    const bad = await git.commit(repository, { Dockerfile: dockerfile('built-bad', ['/app', 'fail']) }, 'a failing build step');
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { repo_ref: bad } });
    const revisionId = patched.latest_revision_id;
    expect(revisionId).not.toBe(first);
    const revision = await revisionReaches(id, revisionId, ['BUILD_FAILED', 'DEPLOYED', 'DEPLOY_FAILED']);
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toContain('step "image" exited with code 1');
    expect(revision.status_message).toContain('failing on purpose');
    expect((await api.ok('GET', `/v2/deployments/${id}`)).active_revision_id).toBe(first);
    await answerAt(url, 'berth-example built-1');
  });

  it("keeps a build's RUN steps from the pod network: an app's pod is out of reach, while its URL answers", async () => {
    const [pod] = await componentPods<{ status: { podIP: string } }>(namespace, 'shop');
    const target = `http://${pod!.status.podIP}:8000/`;
    const probe = await git.commit(
      repository,
      { Dockerfile: dockerfile('probe', ['/app', 'get', target]) },
      'a build that calls an app pod',
    );
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { repo_ref: probe } });
    const revision = await revisionReaches(id, patched.latest_revision_id, ['BUILD_FAILED', 'DEPLOYED', 'DEPLOY_FAILED']);
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toContain('step "image" exited with code 1');
    expect(revision.status_message).toContain(target);
    expect(revision.status_message).toMatch(/Client\.Timeout exceeded|i\/o timeout|connection refused|no route to host/);
    await answerAt(url, 'berth-example built-1');
  });

  it('turns a failing build command BUILD_FAILED at the commands step, with its output', async () => {
    const commit = await git.commit(repository, { 'VERSION.txt': 'x\n' }, 'a commit to build with a broken command');
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, {
      source_config: { build_command: 'echo "make: *** [all] Error 3" >&2; exit 3' },
      source_revision_config: { repo_ref: commit },
    });
    const revision = await revisionReaches(id, patched.latest_revision_id, ['BUILD_FAILED', 'DEPLOYED', 'DEPLOY_FAILED']);
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toContain('step "commands" exited with code 3');
    expect(revision.status_message).toContain('make: *** [all] Error 3');
    await answerAt(url, 'berth-example built-1');
    await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { build_command: 'true' } });
  });

  it("lets a build read the node's registry but never write it: no build replaces a base image", async () => {
    const commit = await git.commit(repository, { 'VERSION.txt': 'y\n' }, 'a build that tries to write the base images');
    const registry = `http://${inject('registry')}`;
    const hostile = [
      `wget -q -O /dev/null ${registry}/v2/ && echo "READ"`,
      `if wget -q -O /dev/null --post-data= ${registry}/v2/berth/pause/blobs/uploads/; then echo "WROTE"; exit 4; fi`,
      'echo "REFUSED"; exit 5',
    ].join('; ');
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, {
      source_config: { build_command: hostile },
      source_revision_config: { repo_ref: commit },
    });
    const revision = await revisionReaches(id, patched.latest_revision_id, ['BUILD_FAILED', 'DEPLOYED', 'DEPLOY_FAILED']);
    expect(revision.status_message).toContain('step "commands" exited with code 5');
    expect(revision.status_message).toMatch(/READ[\s\S]*REFUSED/);
    await answerAt(url, 'berth-example built-1');
    await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { build_command: 'true' } });
  });

  it('turns a ref that does not exist BUILD_FAILED at the clone step', async () => {
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { repo_ref: 'no-such-branch' } });
    const revision = await revisionReaches(id, patched.latest_revision_id, ['BUILD_FAILED', 'DEPLOYED', 'DEPLOY_FAILED']);
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toContain('step "clone" exited with code 128');
    expect(revision.status_message).toContain('no-such-branch');
  });

  it('with build_on_push, builds the branch head, and a push to the branch makes one new revision that builds and serves', async () => {
    const second = await git.commit(repository, { Dockerfile: dockerfile('built-2') }, 'a good build again');
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, {
      source_config: { build_on_push: true },
      source_revision_config: { repo_ref: 'main' },
    });
    const onHead = await revisionReaches(id, patched.latest_revision_id, ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED']);
    expect(onHead.status, onHead.status_message).toBe('DEPLOYED');
    expect(onHead.source_revision_config.repo_commit_sha).toBe(second);
    await answerAt(url, 'berth-example built-2');

    // Nothing pushed: polls of the branch make no revision.
    const count = async () => (await api.ok('GET', `/v2/deployments/${id}/revisions`)).resources.length as number;
    const before = await count();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await count()).toBe(before);

    const pushed = await git.commit(repository, { Dockerfile: dockerfile('built-3') }, 'a push');
    const next = await eventually(
      async () => {
        const deployment = await api.ok('GET', `/v2/deployments/${id}`);
        return deployment.latest_revision_id !== onHead.id ? deployment.latest_revision_id : undefined;
      },
      30_000,
      'a revision for the push',
    );
    const built = await revisionReaches(id, next, ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED']);
    expect(built.status, built.status_message).toBe('DEPLOYED');
    expect(built.source_revision_config.repo_commit_sha).toBe(pushed);
    await answerAt(url, 'berth-example built-3');
    expect(await count()).toBe(before + 1);
  });

  it('gives a pull request a preview built from its head at its own address, rebuilt on a push and removed when it closes', async () => {
    const opened = await git.commit(repository, { Dockerfile: dockerfile('preview-1') }, 'a change to preview', 'feature');
    await git.setRef(repository, 'refs/pull/1/head', opened);
    const number = github.openPullRequest(repositoryId, { headSha: opened, headRef: 'feature' });
    await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { previews: { trigger: 'all' } } });
    const preview = await eventually(
      async () => ((await api.ok('GET', '/v2/deployments?is_preview=true')).resources as { id: string; name: string }[])[0],
      30_000,
      'a preview',
    );
    expect(preview.name).toBe(`shop-pr-${number}`);
    const latest = async () => ((await api.ok('GET', `/v2/deployments/${preview.id}`)).latest_revision_id as string | null) ?? undefined;
    const first = await eventually(latest, 30_000, "the preview's first revision");
    const built = await revisionReaches(preview.id, first, ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED']);
    expect(built.status, built.status_message).toBe('DEPLOYED');
    expect(built.source_revision_config.repo_commit_sha).toBe(opened);
    const previewUrl = (await api.ok('GET', `/v2/deployments/${preview.id}`)).url as string;
    expect(previewUrl).not.toBe(url);
    await answerAt(previewUrl, 'berth-example preview-1');
    // The deployment itself serves what it served.
    await answerAt(url, 'berth-example built-3');

    const pushed = await git.commit(repository, { Dockerfile: dockerfile('preview-2') }, 'a push to the pull request', 'feature');
    await git.setRef(repository, 'refs/pull/1/head', pushed);
    github.updatePullRequest(repositoryId, number, { headSha: pushed });
    const second = await eventually(async () => ((await latest()) !== first ? latest() : undefined), 30_000, 'a revision for the push');
    const rebuilt = await revisionReaches(preview.id, second, ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED']);
    expect(rebuilt.status, rebuilt.status_message).toBe('DEPLOYED');
    await answerAt(previewUrl, 'berth-example preview-2');

    github.closePullRequest(repositoryId, number);
    await eventually(
      async () => ((await api.ok('GET', '/v2/deployments?is_preview=true')).resources as unknown[]).length === 0,
      60_000,
      'the preview removed',
    );
    await eventually(async () => (await componentPods(namespace, `shop-pr-${number}`)).length === 0, 60_000, "the preview's pods gone");
  });

  it('never shows the code host token: not in statuses, build logs, Berth log lines or Events', async () => {
    const statuses = await kubectlOk(['get', 'revisions.berth.dev,deployments.berth.dev', '-n', namespace, '-o', 'json']);
    const events = await kubectlOk(['get', 'events', '-n', namespace, '-o', 'json']);
    const revisions = (await api.ok('GET', `/v2/deployments/${id}/revisions`)).resources as { id: string }[];
    const logs = await Promise.all(
      revisions.map((r) => api.ok('GET', `/v2/deployments/${id}/revisions/${r.id}/logs?type=build&limit=1000`)),
    );
    for (const text of [statuses, events, JSON.stringify(logs), berth.rawOutput.join('\n')]) expect(text).not.toContain(token);
  });
});

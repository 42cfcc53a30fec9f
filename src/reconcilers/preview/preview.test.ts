import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../api/index.ts';
import { fromGitHubPull, fromGitLabMergeRequest, repositoryPathOf, type PullRequest } from '../../codehost/pull-request.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import { decidePreviews } from './decide.ts';
import { previewName, renderPreview } from './render.ts';

const request = (number: number, more: Partial<PullRequest> = {}): PullRequest => ({
  number,
  headSha: 'a'.repeat(40),
  headRef: `topic-${number}`,
  fromFork: false,
  labels: [],
  draft: false,
  ...more,
});

describe('decidePreviews', () => {
  it('gives every open request but drafts a preview, and removes those whose request went', () => {
    const choice = decidePreviews({}, [request(3), request(1), request(2, { draft: true })], [1, 7]);
    expect(choice.wanted.map((r) => r.number)).toEqual([1, 3]);
    expect(choice.removed).toEqual([7]);
  });

  it('with trigger label, only requests that carry it; off removes them all', () => {
    const open = [request(1, { labels: ['preview'] }), request(2, { labels: ['other'] })];
    expect(decidePreviews({ trigger: 'label', label: 'preview' }, open, [2]).wanted.map((r) => r.number)).toEqual([1]);
    expect(decidePreviews({ trigger: 'label', label: 'preview' }, open, [2]).removed).toEqual([2]);
    expect(decidePreviews({ trigger: 'off' }, open, [1, 2])).toEqual({ wanted: [], removed: [1, 2], overCap: [] });
    expect(decidePreviews(undefined, open, [1])).toEqual({ wanted: [], removed: [1], overCap: [] });
  });

  it("admits a fork's request only with a maintainer's label, unless the deployment says all or off", () => {
    const open = [request(1, { fromFork: true }), request(2, { fromFork: true, labels: ['ok-to-preview'] }), request(3)];
    const wanted = (config: Parameters<typeof decidePreviews>[0]) => decidePreviews(config, open, []).wanted.map((r) => r.number);
    expect(wanted({})).toEqual([2, 3]);
    expect(wanted({ forkLabel: 'safe' })).toEqual([3]);
    expect(wanted({ forks: 'all' })).toEqual([1, 2, 3]);
    expect(wanted({ forks: 'off' })).toEqual([3]);
    // The label taken away: the preview goes.
    expect(decidePreviews({}, [request(2, { fromFork: true })], [2]).removed).toEqual([2]);
  });

  it('caps them: a request that has a preview keeps it, then the lowest-numbered', () => {
    const open = [request(1), request(2), request(3), request(4)];
    const choice = decidePreviews({ maxConcurrent: 2 }, open, [4]);
    expect(choice.wanted.map((r) => r.number)).toEqual([1, 4]);
    expect(choice.overCap).toEqual([2, 3]);
    expect(choice.removed).toEqual([]);
  });
});

const parent = {
  apiVersion: 'berth.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name: 'shop', namespace: 'acme', uid: 'uid-shop' },
  spec: {
    source: 'codehost',
    sourceConfig: {
      integrationId: '6f1c2a3e-8b4d-4f7a-9c2e-1d3b5a7c9e0f',
      repoUrl: 'https://github.com/acme/shop',
      customUrl: 'https://shop.example.com',
      previews: { maxConcurrent: 3 },
      canary: { steps: [10] },
      databaseRetention: 'retain',
      resourceSpec: { maxScale: 2 },
    },
    sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    secrets: [{ name: 'TOKEN' }, { name: 'SHARED', valueFrom: { secretKeyRef: { name: 'team', key: 'k' } } }],
  },
} as DeepReadonly<Deployment>;

describe('renderPreview', () => {
  it("builds the parent's spec from the request's head ref, without its custom URL, with an empty database of its own", () => {
    const preview = renderPreview(parent, request(12), { provider: 'github', forkSecrets: false });
    expect(preview.metadata).toMatchObject({
      name: 'shop-pr-12',
      namespace: 'acme',
      labels: { 'berth.dev/preview-of': 'shop', 'berth.dev/pull-request': '12' },
      ownerReferences: [{ kind: 'Deployment', name: 'shop', uid: 'uid-shop', controller: true }],
    });
    expect(preview.spec.sourceConfig).toEqual({
      integrationId: '6f1c2a3e-8b4d-4f7a-9c2e-1d3b5a7c9e0f',
      repoUrl: 'https://github.com/acme/shop',
      resourceSpec: { maxScale: 2 },
      buildOnPush: true,
      deploymentType: 'dev_zero',
      databaseRetention: 'delete',
    });
    expect(preview.spec.sourceRevisionConfig).toEqual({ repoRef: 'refs/pull/12/head', graphConfigPath: 'langgraph.json' });
    expect(preview.spec.previewOf).toEqual({ deploymentName: 'shop', pullRequest: 12, fromFork: false });
    // The parent's secrets, read from where the parent reads them.
    expect(preview.spec.secrets).toEqual([
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'shop-secrets', key: 'TOKEN' } } },
      { name: 'SHARED', valueFrom: { secretKeyRef: { name: 'team', key: 'k' } } },
    ]);
    const idle = {
      ...parent,
      spec: { ...parent.spec, sourceConfig: { ...parent.spec.sourceConfig, idleSeconds: 90, previews: { idleSeconds: 600 } } },
    };
    expect(
      renderPreview(idle as DeepReadonly<Deployment>, request(12), { provider: 'github', forkSecrets: false }).spec.sourceConfig
        ?.idleSeconds,
    ).toBe(600);
    expect(renderPreview(parent, request(3), { provider: 'gitlab', forkSecrets: false }).spec.sourceRevisionConfig.repoRef).toBe(
      'refs/merge-requests/3/head',
    );
  });

  it("reads the previews' own secrets in place of the parent's of the same name, and beside them", () => {
    const overriding = {
      ...parent,
      spec: {
        ...parent.spec,
        sourceConfig: {
          ...parent.spec.sourceConfig,
          previews: {
            secrets: [
              { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'staging', key: 'token' } } },
              { name: 'EXTRA', valueFrom: { secretKeyRef: { name: 'staging', key: 'extra' } } },
            ],
          },
        },
      },
    } as DeepReadonly<Deployment>;
    expect(renderPreview(overriding, request(1), { provider: 'github', forkSecrets: false }).spec.secrets).toEqual([
      { name: 'SHARED', valueFrom: { secretKeyRef: { name: 'team', key: 'k' } } },
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'staging', key: 'token' } } },
      { name: 'EXTRA', valueFrom: { secretKeyRef: { name: 'staging', key: 'extra' } } },
    ]);
    expect(renderPreview(overriding, request(2, { fromFork: true }), { provider: 'github', forkSecrets: false }).spec.secrets).toEqual([]);
  });

  it("gives a fork's request none of the parent's secrets, unless the installation allows it", () => {
    expect(renderPreview(parent, request(5, { fromFork: true }), { provider: 'github', forkSecrets: false }).spec.secrets).toEqual([]);
    expect(renderPreview(parent, request(5, { fromFork: true }), { provider: 'github', forkSecrets: true }).spec.secrets).toHaveLength(2);
  });

  it("takes the parent's settings by allow-list: a fork's pod gets sizes only, and no secret through the queue worker", () => {
    const loaded = {
      ...parent,
      spec: {
        ...parent.spec,
        sourceConfig: {
          ...parent.spec.sourceConfig,
          listenerId: '7f1c2a3e-8b4d-4f7a-9c2e-1d3b5a7c9e0f',
          idleSeconds: 90,
          smokeTestPath: '/ok',
          queueWorker: {
            env: [
              { name: 'MODE', value: 'q' },
              { name: 'KEY', valueFrom: { secretKeyRef: { name: 'vault', key: 'k' } } },
            ],
          },
          resourceSpec: {
            maxScale: 2,
            cpu: 1,
            serviceAccountName: 'deployer',
            annotations: { 'vault.hashicorp.com/agent-inject': 'true' },
            labels: { team: 'shop' },
            imagePullSecrets: [{ name: 'private' }],
            volumes: [{ name: 'creds', secret: { secretName: 'creds' } }],
            volumeMounts: [{ name: 'creds', mountPath: '/creds' }],
            initContainers: [{ name: 'init', image: 'init:1' }],
            sidecars: [{ name: 'proxy', image: 'proxy:1' }],
          },
        },
      },
    } as DeepReadonly<Deployment>;
    const own = renderPreview(loaded, request(1), { provider: 'github', forkSecrets: false }).spec.sourceConfig!;
    expect(Object.keys(own).sort()).toEqual([
      'buildOnPush',
      'databaseRetention',
      'deploymentType',
      'integrationId',
      'queueWorker',
      'repoUrl',
      'resourceSpec',
      'smokeTestPath',
    ]);
    expect(own.resourceSpec).toEqual(loaded.spec.sourceConfig?.resourceSpec);
    const fork = renderPreview(loaded, request(2, { fromFork: true }), { provider: 'github', forkSecrets: true }).spec.sourceConfig!;
    expect(fork.resourceSpec).toEqual({ maxScale: 2, cpu: 1 });
    expect(fork.queueWorker).toEqual({ env: [{ name: 'MODE', value: 'q' }] });
  });

  it('names a long parent within a DNS label', () => {
    const name = previewName('x'.repeat(48), 99999);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/-pr-99999$/);
  });
});

describe('pull requests from the hosts', () => {
  it('reads GitHub pulls, a deleted or other head repository being a fork', () => {
    const pull = {
      number: 4,
      draft: true,
      labels: [{ name: 'preview' }],
      head: { sha: 'abc', ref: 'topic', repo: { id: 1 } },
      base: { repo: { id: 1 } },
    };
    expect(fromGitHubPull(pull)).toEqual({
      number: 4,
      headSha: 'abc',
      headRef: 'topic',
      fromFork: false,
      labels: ['preview'],
      draft: true,
    });
    expect(fromGitHubPull({ ...pull, head: { ...pull.head, repo: null } }).fromFork).toBe(true);
    expect(fromGitHubPull({ ...pull, head: { ...pull.head, repo: { id: 2 } } }).fromFork).toBe(true);
  });

  it('reads GitLab merge requests', () => {
    expect(
      fromGitLabMergeRequest({ iid: 7, sha: 'def', source_branch: 'b', source_project_id: 3, target_project_id: 4, labels: ['x'] }),
    ).toEqual({ number: 7, headSha: 'def', headRef: 'b', fromFork: true, labels: ['x'], draft: false });
  });

  it("takes a repository's path from its address", () => {
    expect(repositoryPathOf('https://github.com/acme/shop')).toBe('acme/shop');
    expect(repositoryPathOf('https://gitlab.com/group/sub/app.git')).toBe('group/sub/app');
    expect(repositoryPathOf('https://github.com/acme')).toBeUndefined();
    expect(repositoryPathOf('https://github.com/acme/../x')).toBeUndefined();
  });
});

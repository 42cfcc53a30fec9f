// GitOps for real: Flux's source-controller and kustomize-controller, built here and running on the
// node, sync Berth's objects from a git server on the host. The Kustomization waits on Berth's health
// (wait: true): Ready only once Berth's Deployment is Ready and the app answers, failed (Berth's
// Deployment Failed, its message on its Stalled condition) when a commit carries a bad image. An imageUri commit makes one Revision, a sourceConfig
// commit none, a re-sync with nothing new writes nothing, and removing the Deployment from git prunes
// it and its workloads. Secrets stay out of git: the repository holds references only.
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { nodeIp } from '../../workbench/node/network.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { GitServer } from '../../workbench/support/git-server.ts';
import { fluxLogs, fluxNamespace, installFlux } from './flux.ts';
import { exampleImage, httpGet, kubectlOk } from './support.ts';
import { shareSecretArgs } from '../../workbench/support/shared-secrets.ts';

let berth: BerthProcess;
let git: GitServer;
let github: FakeGitHub;
let namespace: string;
let githubToken: string;
const clientSecret = `gitops-client-secret-${randomUUID()}`;
const repository = 'platform/apps';
const images: Record<string, string> = {};

/** The repository's files: Berth's examples, with references to Secrets the cluster holds. */
function manifests(options: { image: string; maxScale?: number; withDeployment?: boolean }): Record<string, string> {
  const deployment = {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'hello', namespace },
    spec: {
      source: 'external_docker',
      sourceConfig: {
        healthCheck: { path: '/ok' },
        resourceSpec: { minScale: 1, maxScale: options.maxScale ?? 1, cpu: 0.1, memoryMb: 64 },
      },
      sourceRevisionConfig: { imageUri: options.image },
    },
  };
  const provider = {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'OAuthProvider',
    metadata: { name: 'acme-sso', namespace },
    spec: {
      providerId: 'acme-sso',
      name: 'Acme SSO',
      clientId: 'berth-acme',
      authUrl: 'https://sso.acme.example/oauth2/authorize',
      tokenUrl: 'https://sso.acme.example/oauth2/token',
      clientSecretRef: { name: 'acme-sso-client', key: 'clientSecret' },
    },
  };
  const integration = {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'CodeHostIntegration',
    metadata: { name: 'github', namespace },
    spec: { baseUrl: github.url, credentialsSecretRef: { name: 'github-credentials' } },
  };
  const files: Record<string, string> = {
    'apps/oauth-provider.yaml': stringify(provider),
    'apps/codehost-integration.yaml': stringify(integration),
    'apps/deployment.yaml': options.withDeployment === false ? '' : stringify(deployment),
  };
  const resources = Object.keys(files)
    .filter((path) => files[path] !== '')
    .map((path) => path.slice('apps/'.length));
  files['apps/kustomization.yaml'] = stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources });
  return files;
}

async function commit(files: Record<string, string>, message: string): Promise<string> {
  const sha = await git.commit(repository, files, message);
  // What `flux reconcile source git` does: ask for a sync now instead of at the next interval.
  await kubectlOk([
    'annotate',
    '--overwrite',
    'gitrepository',
    '-n',
    fluxNamespace,
    'apps',
    `reconcile.fluxcd.io/requestedAt=${Date.now()}`,
  ]);
  return sha;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

async function kustomization(): Promise<{
  ready?: Condition;
  lastAppliedRevision?: string;
  lastAttemptedRevision?: string;
  lastHandledReconcileAt?: string;
}> {
  const object = JSON.parse(await kubectlOk(['get', 'kustomization', '-n', fluxNamespace, 'apps', '-o', 'json']));
  const conditions = (object.status?.conditions ?? []) as Condition[];
  return { ready: conditions.find((c) => c.type === 'Ready'), ...object.status };
}

/** The Kustomization once it has handled `sha` and its Ready condition is `status`. */
async function kustomizationAt(sha: string, status: 'True' | 'False', timeoutMs = 180_000) {
  return eventually(
    async () => {
      const current = await kustomization();
      const revision = status === 'True' ? current.lastAppliedRevision : current.lastAttemptedRevision;
      return revision?.endsWith(sha) && current.ready?.status === status && current.ready.reason !== 'Progressing' ? current : undefined;
    },
    timeoutMs,
    `the Kustomization at ${sha.slice(0, 8)} Ready=${status}`,
  );
}

async function revisionNames(): Promise<string[]> {
  return (await kubectlOk(['get', 'revisions.berth.dev', '-n', namespace, '-o', 'jsonpath={.items[*].metadata.name}']))
    .split(' ')
    .filter(Boolean);
}

async function resourceVersions(): Promise<string> {
  return kubectlOk([
    'get',
    'deployments.berth.dev,revisions.berth.dev,oauthproviders.berth.dev,codehostintegrations.berth.dev,deployments.apps,services',
    '-n',
    namespace,
    '-o',
    'jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion}{"\\n"}{end}',
  ]);
}

beforeAll(async () => {
  const operatorNamespace = await useNamespace('berth-gitops-op');
  namespace = await useNamespace('gitops');
  [images.v1, images.v2] = await Promise.all([exampleImage('gitops-v1'), exampleImage('gitops-v2')]);
  git = await GitServer.start(nodeIp);
  github = await FakeGitHub.start({ host: nodeIp });
  const owner = github.account('platform', 'Organization');
  github.addRepositories(owner, 2);
  githubToken = github.issuePersonalToken(owner);
  // The Secrets live in the cluster only; git holds their names.
  await kubectlOk(['create', 'secret', 'generic', '-n', namespace, 'acme-sso-client', `--from-literal=clientSecret=${clientSecret}`]);
  await kubectlOk(['create', 'secret', 'generic', '-n', namespace, 'github-credentials', `--from-literal=token=${githubToken}`]);
  for (const name of ['acme-sso-client', 'github-credentials']) await kubectlOk(shareSecretArgs(namespace, name));
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    '--code-host-origins',
    github.url,
  ]);
  await waitReady(berth);
  await installFlux();
}, 600_000);

afterAll(async () => {
  await kubectlOk(['delete', 'kustomization,gitrepository', '-n', fluxNamespace, '--all', '--wait=true']).catch(() => {});
  await berth?.stop();
  await github?.stop();
  await git?.stop();
});

describe('Flux syncs Berth objects from git onto the real node', () => {
  let url: string;
  let first: string;

  it('becomes Ready only once Berth says the Deployment is Ready, and the app answers then', async () => {
    const sha = await git.createRepository(repository, manifests({ image: images.v1! }));
    const source = {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name: 'apps', namespace: fluxNamespace },
      spec: { url: git.cloneUrl(repository), interval: '10m', ref: { branch: 'main' }, timeout: '20s' },
    };
    const sync = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: fluxNamespace },
      spec: {
        sourceRef: { kind: 'GitRepository', name: 'apps' },
        path: './apps',
        interval: '10m',
        retryInterval: '5s',
        prune: true,
        wait: true,
        timeout: '90s',
      },
    };
    await kubectlOk(['apply', '--server-side', '-f', '-'], [source, sync].map((o) => JSON.stringify(o)).join('\n'));
    await kustomizationAt(sha, 'True');
    // Ready came after Berth's verdict on each object it waited for, and the app serves.
    for (const kind of ['deployments.berth.dev/hello', 'oauthproviders.berth.dev/acme-sso', 'codehostintegrations.berth.dev/github']) {
      expect(await kubectlOk(['get', kind, '-n', namespace, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).toBe(
        'True',
      );
    }
    url = (await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'hello', '-o', 'jsonpath={.status.url}'])).trim();
    await eventually(
      async () => (await httpGet(url).catch(() => ({ body: '' }))).body.trim() === 'berth-example gitops-v1',
      20_000,
      'the app answering',
    );
    first = (await revisionNames())[0]!;
    expect(await revisionNames()).toEqual([first]);
  });

  it('re-syncs a commit with nothing new without one write', async () => {
    const before = await resourceVersions();
    const token = `${Date.now()}`;
    await kubectlOk(['annotate', '--overwrite', 'kustomization', '-n', fluxNamespace, 'apps', `reconcile.fluxcd.io/requestedAt=${token}`]);
    await eventually(async () => (await kustomization()).lastHandledReconcileAt === token, 60_000, 'the forced re-sync handled');
    expect((await kustomization()).ready?.status).toBe('True');
    expect(await resourceVersions()).toBe(before);
  });

  it('makes no Revision for a commit that changes sourceConfig only, and scales in place', async () => {
    const sha = await commit(manifests({ image: images.v1!, maxScale: 2 }), 'allow a second replica');
    await kustomizationAt(sha, 'True');
    await eventually(
      async () =>
        (await kubectlOk([
          'get',
          'deployments.berth.dev',
          '-n',
          namespace,
          'hello',
          '-o',
          'jsonpath={.spec.sourceConfig.resourceSpec.maxScale}',
        ])) === '2',
      30_000,
      'maxScale 2',
    );
    expect(await revisionNames()).toEqual([first]);
  });

  it('makes exactly one Revision for an imageUri commit, and the new image answers', async () => {
    const sha = await commit(manifests({ image: images.v2!, maxScale: 2 }), 'ship v2');
    await kustomizationAt(sha, 'True');
    const names = await revisionNames();
    expect(names).toHaveLength(2);
    expect(names).toContain(first);
    await eventually(
      async () => (await httpGet(url).catch(() => ({ body: '' }))).body.trim() === 'berth-example gitops-v2',
      20_000,
      'v2 answering',
    );
  });

  it("fails the sync with Berth's message when a commit carries an image that cannot be pulled, while v2 keeps answering", async () => {
    const bad = `${inject('registry')}/berth-example:does-not-exist`;
    const sha = await commit(manifests({ image: bad, maxScale: 2 }), 'a bad image');
    const failed = await kustomizationAt(sha, 'False');
    const berthMessage = await kubectlOk([
      'get',
      'deployments.berth.dev',
      '-n',
      namespace,
      'hello',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Stalled")].message}',
    ]);
    expect(berthMessage).toContain('does-not-exist');
    // Flux names the object and kstatus's verdict (fluxcd/pkg/ssa's wait message); Berth's own message
    // is in that object's Stalled condition, its Event and `flux events`.
    expect(failed.ready?.reason).toBe('HealthCheckFailed');
    expect(failed.ready?.message).toContain(`Deployment/${namespace}/hello status: 'Failed'`);
    expect((await httpGet(url)).body.trim()).toBe('berth-example gitops-v2');
  });

  it('prunes a Deployment removed from git, with its workloads', async () => {
    const sha = await commit(manifests({ image: images.v2!, withDeployment: false }), 'retire hello');
    await kustomizationAt(sha, 'True');
    await eventually(
      async () =>
        (await kubectlOk(['get', 'deployments.berth.dev,deployments.apps,services', '-n', namespace, '-o', 'name'])).trim() === '',
      90_000,
      'hello and its workloads gone',
    );
  });

  it('keeps secrets out of git and out of the controllers logs', async () => {
    const tree = await git.history(repository);
    for (const secret of [clientSecret, githubToken]) {
      expect(tree).not.toContain(secret);
      expect(await fluxLogs()).not.toContain(secret);
      expect(berth.rawOutput.join('\n')).not.toContain(secret);
    }
  });
});

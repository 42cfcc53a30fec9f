// The GitHub client against a server that speaks GitHub's REST wire format over a real socket:
// pagination, token and App authentication, and every failure a caller must tell apart.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodeHostCredentialsError,
  CodeHostNotFoundError,
  CodeHostRateLimitedError,
  CodeHostRegistry,
  CodeHostUnauthorizedError,
  CodeHostUnreachableError,
  createGitHubClient,
  type CodeHostLog,
  type IntegrationReference,
} from '../src/codehost/index.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { secretNotReadableMessage } from '../src/api/readable-secrets.ts';

function gitHubAppKeys() {
  // GitHub hands out App keys as PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"): test with that form.
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
}

function recordingLog(): CodeHostLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, debug: (message) => lines.push(message), warn: (message) => lines.push(message) };
}

async function failureOf(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

let github: FakeGitHub;
beforeAll(async () => {
  github = await FakeGitHub.start();
});
afterAll(async () => {
  await github.stop();
});

describe('the fake GitHub speaks GitHub’s wire format', () => {
  it('pages with per_page (at most 100), RFC 8288 Link relations and rate-limit headers', async () => {
    const owner = github.account('wire');
    github.addRepositories(owner, 250);
    const token = github.issuePersonalToken(owner);
    const response = await fetch(`${github.url}/user/repos?per_page=500&page=2`, { headers: { authorization: `token ${token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      name: string;
      full_name: string;
      owner: { login: string };
      html_url: string;
      clone_url: string;
    }[];
    expect(body).toHaveLength(100);
    expect(body[0]).toMatchObject({
      name: 'repo-101',
      full_name: 'wire/repo-101',
      owner: { login: 'wire' },
      clone_url: 'https://github.com/wire/repo-101.git',
    });
    const links = Object.fromEntries(
      (response.headers.get('link') ?? '').split(', ').map((part) => {
        const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!;
        return [rel, new URL(url!).searchParams.get('page')];
      }),
    );
    expect(links).toEqual({ prev: '1', next: '3', last: '3', first: '1' });
    expect(response.headers.get('x-ratelimit-limit')).toBe('5000');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4999');
    expect(response.headers.get('x-ratelimit-resource')).toBe('core');
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);

    const refused = await fetch(`${github.url}/user`, { headers: { authorization: 'token ghp_unknown' } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
  });
});

describe('GitHub with a personal access token', () => {
  it('lists 250 repositories across three pages with the interface fields', async () => {
    const alice = github.account('alice');
    github.addRepositories(alice, 250, 'svc');
    const token = github.issuePersonalToken(alice);
    const client = createGitHubClient({
      integrationId: '6f1c1d2e-0000-4000-8000-000000000001',
      baseUrl: github.url,
      credentials: { kind: 'token', token },
    });

    const repositories = await client.listRepositories();

    expect(repositories).toHaveLength(250);
    expect(new Set(repositories.map((r) => r.id)).size).toBe(250);
    expect(repositories[0]).toEqual({
      host_integration_id: '6f1c1d2e-0000-4000-8000-000000000001',
      id: expect.any(Number),
      name: 'svc-001',
      owner: 'alice',
      url: 'https://github.com/alice/svc-001',
      default_branch: 'main',
    });
    expect(repositories.at(-1)).toMatchObject({ name: 'svc-250', url: 'https://github.com/alice/svc-250' });
    const pages = github.requests.filter((r) => r.path.startsWith('/user/repos') && r.credential === token);
    expect(pages.map((r) => new URL(r.path, github.url).searchParams.get('page') ?? '1')).toEqual(['1', '2', '3']);
    expect(pages.every((r) => new URL(r.path, github.url).searchParams.get('per_page') === '100')).toBe(true);
  });

  it('stops a listing at maxRepositories and says so in the log', async () => {
    const ivy = github.account('ivy');
    github.addRepositories(ivy, 250);
    const log = recordingLog();
    const client = createGitHubClient({
      integrationId: 'i',
      baseUrl: github.url,
      credentials: { kind: 'token', token: github.issuePersonalToken(ivy) },
      maxRepositories: 150,
      log,
    });
    const repositories = await client.listRepositories();
    expect(repositories).toHaveLength(150);
    expect(log.lines).toContain('GitHub listing stopped at 150 repositories');
  });

  it('says whom the token acts as', async () => {
    const bob = github.account('bob');
    const client = createGitHubClient({
      integrationId: 'i',
      baseUrl: github.url,
      credentials: { kind: 'token', token: github.issuePersonalToken(bob) },
    });
    await expect(client.verify()).resolves.toEqual({ login: 'bob', kind: 'user' });
  });

  it('turns a revoked token into an Unauthorized error carrying GitHub’s message and not the token', async () => {
    const carol = github.account('carol');
    github.addRepositories(carol, 3);
    const token = github.issuePersonalToken(carol);
    const log = recordingLog();
    const client = createGitHubClient({ integrationId: 'i', baseUrl: github.url, credentials: { kind: 'token', token }, log });
    await expect(client.listRepositories()).resolves.toHaveLength(3);

    github.revokeToken(token);
    const listing = await failureOf(client.listRepositories());
    const verifying = await failureOf(client.verify());

    for (const error of [listing, verifying]) {
      expect(error).toBeInstanceOf(CodeHostUnauthorizedError);
      expect(error).toMatchObject({ reason: 'Unauthorized', status: 401, message: 'GitHub rejected the credentials: Bad credentials' });
      expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(token);
    }
    expect(log.lines.length).toBeGreaterThan(0);
    expect(log.lines.join('\n')).not.toContain(token);
  });

  it('reports a primary rate limit (403) with its reset time', async () => {
    const dave = github.account('dave');
    const client = createGitHubClient({
      integrationId: 'i',
      baseUrl: github.url,
      credentials: { kind: 'token', token: github.issuePersonalToken(dave) },
    });
    const resetAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 600_000);
    github.simulateRateLimit({ status: 403, resetAt });
    try {
      const error = await failureOf(client.listRepositories());
      expect(error).toBeInstanceOf(CodeHostRateLimitedError);
      expect((error as CodeHostRateLimitedError).resetAt.toISOString()).toBe(resetAt.toISOString());
      expect(error.message).toContain('API rate limit exceeded for user ID');
    } finally {
      github.simulateRateLimit(undefined);
    }
  });

  it('reports a secondary rate limit (429 with retry-after)', async () => {
    const erin = github.account('erin');
    const client = createGitHubClient({
      integrationId: 'i',
      baseUrl: github.url,
      credentials: { kind: 'token', token: github.issuePersonalToken(erin) },
    });
    github.simulateRateLimit({ status: 429, resetAt: new Date(Date.now() + 120_000) });
    try {
      const before = Date.now();
      const error = await failureOf(client.verify());
      expect(error).toBeInstanceOf(CodeHostRateLimitedError);
      expect(error).toMatchObject({ status: 429 });
      expect((error as CodeHostRateLimitedError).resetAt.getTime()).toBeGreaterThan(before);
    } finally {
      github.simulateRateLimit(undefined);
    }
  });

  it('reports a host that refuses connections or never answers as unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = createGitHubClient({
      integrationId: 'i',
      baseUrl: closedUrl,
      credentials: { kind: 'token', token: 'ghp_neverSentAnywhere123' },
    });
    const refusal = await failureOf(refused.listRepositories());
    expect(refusal).toBeInstanceOf(CodeHostUnreachableError);
    expect(refusal.message).toContain(closedUrl);
    expect(refusal.message).not.toContain('ghp_neverSentAnywhere123');

    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const hanging = createGitHubClient({
        integrationId: 'i',
        baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        credentials: { kind: 'token', token: 'ghp_neverAnswered12345' },
        requestTimeoutMs: 300,
      });
      await expect(hanging.verify()).rejects.toBeInstanceOf(CodeHostUnreachableError);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('GitHub App authentication', () => {
  const keys = gitHubAppKeys();
  let installationId: number;
  let appId: number;

  beforeAll(() => {
    const org = github.account('acme', 'Organization');
    appId = 424242;
    github.registerApp({ id: appId, slug: 'berth-test', owner: org, publicKey: keys.publicKey });
    const granted = github.addRepositories(org, 120, 'app-repo');
    github.addRepositories(org, 5, 'not-granted');
    installationId = github.install(appId, org, granted);
  });

  it('exchanges the App’s JWT for an installation token and lists with that token', async () => {
    const client = createGitHubClient({
      integrationId: 'app-integration',
      baseUrl: github.url,
      credentials: { kind: 'app', appId: String(appId), privateKey: keys.privateKey, installationId },
    });

    const repositories = await client.listRepositories();

    expect(repositories).toHaveLength(120);
    expect(repositories.every((r) => r.owner === 'acme' && r.name.startsWith('app-repo-'))).toBe(true);
    const exchange = github.requests.filter((r) => r.path === `/app/installations/${installationId}/access_tokens`);
    expect(exchange).toEqual([expect.objectContaining({ method: 'POST', scheme: 'jwt', status: 201 })]);
    const listing = github.requests.filter((r) => r.path.startsWith('/installation/repositories'));
    expect(listing).toHaveLength(2);
    const issued = github.installationTokens(installationId);
    expect(issued).toHaveLength(1);
    expect(listing.every((r) => r.scheme === 'token' && r.credential === issued[0])).toBe(true);
  });

  it('verifies the installation and names the account it is installed on', async () => {
    const client = createGitHubClient({
      integrationId: 'app-integration',
      baseUrl: github.url,
      credentials: { kind: 'app', appId: String(appId), privateKey: keys.privateKey, installationId },
    });
    await expect(client.verify()).resolves.toEqual({ login: 'acme', kind: 'installation' });
  });

  it("lists a granted repository's open pull requests across pages, and finds none of a repository it was not given", async () => {
    const client = createGitHubClient({
      integrationId: 'app-integration',
      baseUrl: github.url,
      credentials: { kind: 'app', appId: String(appId), privateKey: keys.privateKey, installationId },
    });
    const [granted] = (await client.listRepositories()).slice(0, 1);
    for (let n = 1; n <= 130; n++)
      github.openPullRequest(granted!.id, {
        headSha: String(n).padStart(40, '0'),
        headRef: `topic-${n}`,
        fromFork: n === 2 ? 'deleted' : n === 3,
      });
    github.closePullRequest(granted!.id, 4);
    const pulls = await client.openPullRequests(`acme/${granted!.name}`);
    expect(pulls).toHaveLength(129);
    expect(pulls[0]).toEqual({ number: 1, headSha: '1'.padStart(40, '0'), headRef: 'topic-1', fromFork: false, labels: [], draft: false });
    expect(pulls.filter((pull) => pull.fromFork).map((pull) => pull.number)).toEqual([2, 3]);
    expect(pulls.some((pull) => pull.number === 4)).toBe(false);
    const refused = await failureOf(client.openPullRequests('acme/not-granted-1'));
    expect(refused).toBeInstanceOf(CodeHostNotFoundError);
  });

  it('is refused when the JWT is signed with another key', async () => {
    const other = gitHubAppKeys();
    const log = recordingLog();
    const client = createGitHubClient({
      integrationId: 'app-integration',
      baseUrl: github.url,
      credentials: { kind: 'app', appId: String(appId), privateKey: other.privateKey, installationId },
      log,
    });
    const error = await failureOf(client.listRepositories());
    expect(error).toBeInstanceOf(CodeHostUnauthorizedError);
    expect(error.message).toBe('GitHub rejected the credentials: A JSON web token could not be decoded');
    const keyBody = other.privateKey.split('\n')[1]!;
    expect(error.message + log.lines.join('\n')).not.toContain(keyBody);
  });
});

describe('the registry', () => {
  function integration(uid: string, secretName: string, baseUrl: string): IntegrationReference {
    return {
      metadata: { uid, namespace: 'org-a', name: 'gh', generation: 1 },
      spec: { provider: 'github', baseUrl, credentialsSecretRef: { name: secretName } },
    };
  }
  function tokenSecret(name: string, token: string, resourceVersion: string): V1Secret {
    return {
      metadata: { name, namespace: 'org-a', uid: `secret-${name}`, resourceVersion },
      data: { token: Buffer.from(token).toString('base64') },
    };
  }

  it('coalesces concurrent listings, serves repeats from cache, and refetches when the Secret changes', async () => {
    const frank = github.account('frank');
    github.addRepositories(frank, 30);
    const first = github.issuePersonalToken(frank);
    let secret = tokenSecret('frank-token', first, '10');
    const registry = new CodeHostRegistry({ origins: [github.url] });
    const subject = integration('11111111-1111-4111-8111-111111111111', 'frank-token', github.url);
    const calls = () => github.requests.filter((r) => r.path.startsWith('/user/repos') && r.credential?.length).length;
    const before = calls();

    const [a, b] = await Promise.all([registry.repositoriesOf(subject, () => secret), registry.repositoriesOf(subject, () => secret)]);
    const again = await registry.repositoriesOf(subject, () => secret);

    expect(a).toHaveLength(30);
    expect(b).toEqual(a);
    expect(again).toEqual(a);
    expect(a[0]!.host_integration_id).toBe('11111111-1111-4111-8111-111111111111');
    expect(calls() - before).toBe(1);

    const second = github.issuePersonalToken(frank);
    github.revokeToken(first);
    secret = tokenSecret('frank-token', second, '11');
    await expect(registry.repositoriesOf(subject, () => secret)).resolves.toHaveLength(30);
    expect(github.requests.at(-1)).toMatchObject({ credential: second, status: 200 });
  });

  it('holds back a rate-limited credential until the announced reset, then asks again', async () => {
    const gina = github.account('gina');
    github.addRepositories(gina, 2);
    const token = github.issuePersonalToken(gina);
    let clock = Date.now();
    const registry = new CodeHostRegistry({ origins: [github.url], now: () => clock });
    const subject = integration('22222222-2222-4222-8222-222222222222', 'gina-token', github.url);
    const secret = tokenSecret('gina-token', token, '1');
    const sent = () => github.requests.filter((r) => r.credential === token).length;
    github.simulateRateLimit({ status: 403, resetAt: new Date(clock + 60_000) });
    try {
      await expect(registry.repositoriesOf(subject, () => secret)).rejects.toBeInstanceOf(CodeHostRateLimitedError);
    } finally {
      github.simulateRateLimit(undefined);
    }
    const afterRefusal = sent();
    await expect(registry.repositoriesOf(subject, () => secret)).rejects.toBeInstanceOf(CodeHostRateLimitedError);
    await expect(registry.verify(subject, () => secret)).rejects.toBeInstanceOf(CodeHostRateLimitedError);
    expect(sent()).toBe(afterRefusal);

    clock += 61_000;
    await expect(registry.repositoriesOf(subject, () => secret)).resolves.toHaveLength(2);
    expect(sent()).toBe(afterRefusal + 1);
  });

  it('keeps no other failure', async () => {
    const hank = github.account('hank');
    github.addRepositories(hank, 2);
    const registry = new CodeHostRegistry({ origins: [github.url] });
    const subject = integration('55555555-5555-4555-8555-555555555555', 'hank-token', github.url);
    let secret: V1Secret = { metadata: { name: 'hank-token', uid: 'h', resourceVersion: '1' }, stringData: { appId: '1' } };
    await expect(registry.repositoriesOf(subject, () => secret)).rejects.toBeInstanceOf(CodeHostCredentialsError);
    secret = tokenSecret('hank-token', github.issuePersonalToken(hank), '2');
    await expect(registry.repositoriesOf(subject, () => secret)).resolves.toHaveLength(2);
  });

  it('mints a fresh installation token after GitHub revoked the one it held', async () => {
    const keys = gitHubAppKeys();
    const org = github.account('reinstalled', 'Organization');
    github.registerApp({ id: 515151, slug: 'reinstalled-app', owner: org, publicKey: keys.publicKey });
    const id = github.install(515151, org, github.addRepositories(org, 4));
    const registry = new CodeHostRegistry({ origins: [github.url] });
    const subject = integration('33333333-3333-4333-8333-333333333333', 'app-keys', github.url);
    const secret: V1Secret = {
      metadata: { name: 'app-keys', namespace: 'org-a', uid: 'secret-app', resourceVersion: '5' },
      stringData: { appId: '515151', privateKey: keys.privateKey, installationId: String(id) },
    };
    await expect(registry.verify(subject, () => secret)).resolves.toEqual({ login: 'reinstalled', kind: 'installation' });

    github.revokeInstallationTokens(id);
    await expect(registry.verify(subject, () => secret)).rejects.toBeInstanceOf(CodeHostUnauthorizedError);
    await expect(registry.verify(subject, () => secret)).resolves.toEqual({ login: 'reinstalled', kind: 'installation' });
    expect(github.installationTokens(id)).toHaveLength(2);
  });

  it('names a missing Secret or key and sends nothing', async () => {
    const registry = new CodeHostRegistry({ origins: [github.url] });
    const subject = integration('44444444-4444-4444-8444-444444444444', 'absent', github.url);
    const count = github.requests.length;
    await expect(registry.verify(subject, () => undefined)).rejects.toThrow(
      new CodeHostCredentialsError(secretNotReadableMessage('absent', 'org-a')),
    );
    const partial: V1Secret = {
      metadata: { name: 'absent', uid: 'x', resourceVersion: '1' },
      stringData: { appId: '1', privateKey: 'sekret-key-material' },
    };
    const error = await failureOf(registry.repositoriesOf(subject, () => partial));
    expect(error).toBeInstanceOf(CodeHostCredentialsError);
    expect(error.message).toBe('Secret "absent" is missing key "installationId" for a GitHub App');
    expect(github.requests.length).toBe(count);
  });
});

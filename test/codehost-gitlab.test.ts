// The GitLab client against a small server speaking GitLab's REST v4 wire format: keyset pagination
// through the Link header, PRIVATE-TOKEN authentication and GitLab's error bodies.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodeHostRateLimitedError,
  CodeHostUnauthorizedError,
  CodeHostCredentialsError,
  CodeHostRegistry,
  createGitLabClient,
} from '../src/codehost/index.ts';

const validToken = 'glpat-validTokenValue0123';
const projects = Array.from({ length: 230 }, (_, index) => ({
  id: 5000 + index,
  name: `Service ${index + 1}`,
  path: `service-${index + 1}`,
  path_with_namespace: `platform/backend/service-${index + 1}`,
  namespace: { id: 77, name: 'backend', path: 'backend', kind: 'group', full_path: 'platform/backend' },
  web_url: `https://gitlab.example.com/platform/backend/service-${index + 1}`,
  http_url_to_repo: `https://gitlab.example.com/platform/backend/service-${index + 1}.git`,
  default_branch: index === 0 ? null : 'main',
}));

/** Merge requests of platform/backend/service-1 (project 5000): 150 open ones, in two offset pages, and a closed one. */
const mergeRequests = [
  ...Array.from({ length: 150 }, (_, index) => ({
    iid: index + 1,
    state: 'opened',
    sha: String(index + 1).padStart(40, '0'),
    source_branch: `topic-${index + 1}`,
    source_project_id: index === 1 ? 6000 : 5000,
    target_project_id: 5000,
    labels: index === 0 ? ['preview'] : [],
    draft: index === 2,
  })),
  {
    iid: 151,
    state: 'closed',
    sha: 'f'.repeat(40),
    source_branch: 'old',
    source_project_id: 5000,
    target_project_id: 5000,
    labels: [],
    draft: false,
  },
];

let baseUrl: string;
let rateLimited = false;
const seen: string[] = [];
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  seen.push(url.pathname + url.search);
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  if (request.headers['private-token'] !== validToken) return send(401, { message: '401 Unauthorized' });
  if (rateLimited) return send(429, { message: 'Retry later' }, { 'ratelimit-reset': '1893456000', 'retry-after': '60' });
  if (url.pathname === '/api/v4/user') return send(200, { id: 1, username: 'gitlab-bot', name: 'Bot', state: 'active' });
  if (
    url.pathname === '/api/v4/projects' &&
    url.searchParams.get('membership') === 'true' &&
    url.searchParams.get('pagination') === 'keyset'
  ) {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 20));
    const after = Number(url.searchParams.get('id_after') ?? 0);
    const page = projects.filter((p) => p.id > after).slice(0, perPage);
    const last = page.at(-1);
    const more = last !== undefined && projects.some((p) => p.id > last.id);
    const next = new URL(`${baseUrl}/projects`);
    for (const [key, value] of url.searchParams) next.searchParams.set(key, value);
    if (last) next.searchParams.set('id_after', String(last.id));
    return send(200, page, more ? { link: `<${next.toString()}>; rel="next"` } : {});
  }
  // The project by its URL-encoded full path, as GitLab takes it in place of the id.
  if (url.pathname === '/api/v4/projects/platform%2Fbackend%2Fservice-1/merge_requests') {
    const state = url.searchParams.get('state');
    const listed = mergeRequests.filter((request) => !state || request.state === state);
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 20));
    const page = Number(url.searchParams.get('page') ?? 1);
    const next = new URL(`${baseUrl}/projects/platform%2Fbackend%2Fservice-1/merge_requests`);
    for (const [key, value] of url.searchParams) next.searchParams.set(key, value);
    next.searchParams.set('page', String(page + 1));
    const more = page * perPage < listed.length;
    return send(200, listed.slice((page - 1) * perPage, page * perPage), more ? { link: `<${next.toString()}>; rel="next"` } : {});
  }
  return send(404, { message: '404 Not Found' });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('GitLab', () => {
  it('lists every project the token is a member of, following keyset pages', async () => {
    const client = createGitLabClient({ integrationId: 'gl', baseUrl, credentials: { kind: 'token', token: validToken } });
    const repositories = await client.listRepositories();
    expect(repositories).toHaveLength(230);
    expect(repositories[0]).toEqual({
      host_integration_id: 'gl',
      id: 5000,
      name: 'service-1',
      owner: 'platform/backend',
      url: 'https://gitlab.example.com/platform/backend/service-1',
      default_branch: 'main',
    });
    expect(repositories[1]!.default_branch).toBe('main');
    expect(seen.filter((path) => path.startsWith('/api/v4/projects'))).toHaveLength(3);
  });

  it("lists a project's open merge requests across offset pages, a fork's and a draft told apart", async () => {
    const client = createGitLabClient({ integrationId: 'gl', baseUrl, credentials: { kind: 'token', token: validToken } });
    const requests = await client.openPullRequests('platform/backend/service-1');
    expect(requests).toHaveLength(150);
    expect(requests[0]).toEqual({
      number: 1,
      headSha: '1'.padStart(40, '0'),
      headRef: 'topic-1',
      fromFork: false,
      labels: ['preview'],
      draft: false,
    });
    expect(requests[1]!.fromFork).toBe(true);
    expect(requests[2]!.draft).toBe(true);
    const refusal = await client.openPullRequests('platform/backend/unknown').catch((error: Error) => error);
    expect((refusal as Error).message).toMatch(/^GitLab found nothing at GET \/projects\/platform%2Fbackend%2Funknown\/merge_requests/);
  });

  it('verifies the token and maps refusals and limits to typed errors without the token', async () => {
    await expect(
      createGitLabClient({ integrationId: 'gl', baseUrl, credentials: { kind: 'token', token: validToken } }).verify(),
    ).resolves.toEqual({
      login: 'gitlab-bot',
      kind: 'user',
    });
    const revoked = createGitLabClient({ integrationId: 'gl', baseUrl, credentials: { kind: 'token', token: 'glpat-revokedToken9876' } });
    const refusal = await revoked.verify().catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(CodeHostUnauthorizedError);
    expect((refusal as Error).message).toBe('GitLab rejected the credentials: 401 Unauthorized');

    rateLimited = true;
    try {
      const limited = await createGitLabClient({ integrationId: 'gl', baseUrl, credentials: { kind: 'token', token: validToken } })
        .listRepositories()
        .catch((error: Error) => error);
      expect(limited).toBeInstanceOf(CodeHostRateLimitedError);
      expect((limited as CodeHostRateLimitedError).resetAt.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    } finally {
      rateLimited = false;
    }
  });

  it('is chosen by the registry for provider gitlab, and refuses GitHub App keys', async () => {
    const registry = new CodeHostRegistry({ origins: [new URL(baseUrl).origin] });
    const integration = {
      metadata: { uid: 'gl-uid', namespace: 'org' },
      spec: { provider: 'gitlab' as const, baseUrl, credentialsSecretRef: { name: 'gl' } },
    };
    const tokenSecret = { metadata: { uid: 's', resourceVersion: '1' }, stringData: { token: validToken } };
    await expect(registry.verify(integration, () => tokenSecret)).resolves.toEqual({ login: 'gitlab-bot', kind: 'user' });
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const appSecret = { metadata: { uid: 's', resourceVersion: '2' }, stringData: { appId: '1', privateKey, installationId: '1' } };
    const refusal = await registry.verify(integration, () => appSecret).catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(CodeHostCredentialsError);
    expect((refusal as Error).message).toBe('GitLab takes an access token (Secret key "token"), not GitHub App keys');
  });
});

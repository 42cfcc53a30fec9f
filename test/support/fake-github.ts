// A stand-in for GitHub's REST API, which a test cannot run: a real HTTP server on loopback that speaks
// GitHub's wire format for the few endpoints Berth calls. Response bodies, status codes, pagination
// `Link` headers and rate-limit headers follow what api.github.com sends, so the client under test runs
// unchanged against it (Octokit with `baseUrl` pointing here, as it would at GitHub Enterprise).
import { isGitPath, type GitServer } from '../../workbench/support/git-server.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHmac, createPublicKey, randomBytes, randomUUID, verify, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';

const documentationUrl = 'https://docs.github.com/rest';
const rateLimitDocumentationUrl = 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api';
const maxPerPage = 100;
const defaultPerPage = 30;
const rateLimit = 5000;

export interface FakeRepositoryInput {
  name: string;
  private?: boolean;
  defaultBranch?: string;
}

export interface FakeAccount {
  login: string;
  id: number;
  type: 'User' | 'Organization';
}

/** What a test can read back: every request the fake answered, with the credential it carried. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** 'token' (a personal or installation token), 'jwt' (an App's JSON Web Token) or 'none'. */
  scheme: 'token' | 'jwt' | 'none';
  credential: string | undefined;
  status: number;
}

interface Repository {
  id: number;
  name: string;
  owner: FakeAccount;
  private: boolean;
  defaultBranch: string;
}

interface TokenGrant {
  /** The user a personal token acts as, or the installation an installation token was issued for. */
  user?: FakeAccount;
  installationId?: number;
  revoked: boolean;
  remaining: number;
}

interface App {
  id: number;
  slug: string;
  name: string;
  owner: FakeAccount;
  publicKey: KeyObject;
}

export interface FakePullRequestInput {
  headSha: string;
  headRef: string;
  /** From a fork: its head repository is another (null: the fork was deleted). */
  fromFork?: boolean | 'deleted';
  labels?: string[];
  draft?: boolean;
}

interface PullRequest extends FakePullRequestInput {
  number: number;
  state: 'open' | 'closed';
}

interface Installation {
  id: number;
  appId: number;
  account: FakeAccount;
  repositoryIds: number[];
  suspended: boolean;
}

type RateLimitSimulation = { status: 403 | 429; resetAt: Date } | undefined;

export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  #htmlBaseUrl: string;
  readonly #repositories = new Map<number, Repository>();
  readonly #reposByOwner = new Map<string, number[]>();
  readonly #tokens = new Map<string, TokenGrant>();
  readonly #apps = new Map<number, App>();
  readonly #installations = new Map<number, Installation>();
  readonly #pulls = new Map<number, PullRequest[]>();
  #nextId = 1000;
  #rateLimited: RateLimitSimulation;
  #url = '';

  private constructor(htmlBaseUrl: string, git: GitServer | undefined) {
    this.#htmlBaseUrl = htmlBaseUrl;
    this.#server = createServer((request, response) => {
      if (git && isGitPath(request.url ?? '/')) return git.handle(request, response);
      this.#handle(request, response).catch((error: unknown) => {
        send(response, 500, { message: `fake GitHub failed: ${String(error)}` });
      });
    });
  }

  /** Starts the server on a random port of `host` (default loopback; a node's address lets pods reach
   * it). `htmlBaseUrl` is the web host repos' html_url points at. As a GitHub Enterprise (`enterprise`,
   * or with `git`, whose repositories it then serves) html_url is on its own origin, as the API is. */
  static async start(options: { htmlBaseUrl?: string; host?: string; git?: GitServer; enterprise?: boolean } = {}): Promise<FakeGitHub> {
    const host = options.host ?? '127.0.0.1';
    const fake = new FakeGitHub(options.htmlBaseUrl ?? 'https://github.com', options.git);
    await new Promise<void>((resolve) => fake.#server.listen(0, host, resolve));
    fake.#url = `http://${host}:${(fake.#server.address() as AddressInfo).port}`;
    if ((options.git || options.enterprise) && !options.htmlBaseUrl) fake.#htmlBaseUrl = fake.#url;
    return fake;
  }

  /** The API base URL, what a client takes as `baseUrl`. */
  get url(): string {
    return this.#url;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  account(login: string, type: FakeAccount['type'] = 'User'): FakeAccount {
    return { login, id: this.#nextId++, type };
  }

  /** Creates `count` repositories named `<prefix>-<n>` owned by `owner` and returns their ids. */
  addRepositories(owner: FakeAccount, count: number, prefix = 'repo'): number[] {
    const width = String(count).length;
    return Array.from({ length: count }, (_, index) =>
      this.addRepository(owner, { name: `${prefix}-${String(index + 1).padStart(width, '0')}`, private: index % 2 === 1 }),
    );
  }

  addRepository(owner: FakeAccount, input: FakeRepositoryInput): number {
    const id = this.#nextId++;
    this.#repositories.set(id, {
      id,
      name: input.name,
      owner,
      private: input.private ?? false,
      defaultBranch: input.defaultBranch ?? 'main',
    });
    const owned = this.#reposByOwner.get(owner.login) ?? [];
    owned.push(id);
    this.#reposByOwner.set(owner.login, owned);
    return id;
  }

  /** Issues a personal access token acting as `user` (who sees the repositories they own). */
  issuePersonalToken(user: FakeAccount): string {
    const token = `ghp_${randomBytes(18).toString('base64url')}`;
    this.#tokens.set(token, { user, revoked: false, remaining: rateLimit });
    return token;
  }

  /** Revokes a token at runtime: every later request carrying it is answered 401 Bad credentials. */
  revokeToken(token: string): void {
    const grant = this.#tokens.get(token);
    if (grant) grant.revoked = true;
  }

  /** Revokes every installation token issued so far (as uninstalling and reinstalling would). */
  revokeInstallationTokens(installationId: number): void {
    for (const grant of this.#tokens.values()) {
      if (grant.installationId === installationId) grant.revoked = true;
    }
  }

  /** Registers a GitHub App by the public half of its key (PEM, or a KeyObject). */
  registerApp(input: { id: number; slug: string; owner: FakeAccount; publicKey: string | KeyObject }): void {
    const publicKey = typeof input.publicKey === 'string' ? createPublicKey(input.publicKey) : input.publicKey;
    this.#apps.set(input.id, { id: input.id, slug: input.slug, name: input.slug, owner: input.owner, publicKey });
  }

  /** Installs the App on `account`, granting it the given repositories; returns the installation id. */
  install(appId: number, account: FakeAccount, repositoryIds: number[]): number {
    const id = this.#nextId++;
    this.#installations.set(id, { id, appId, account, repositoryIds, suspended: false });
    return id;
  }

  /** Opens a pull request on a repository; returns its number (numbered per repository from 1). */
  openPullRequest(repositoryId: number, input: FakePullRequestInput): number {
    const pulls = this.#pulls.get(repositoryId) ?? [];
    const number = pulls.length + 1;
    pulls.push({ ...input, number, state: 'open' });
    this.#pulls.set(repositoryId, pulls);
    return number;
  }

  /** Changes an open pull request: a push to its head, labels, draft. */
  updatePullRequest(repositoryId: number, number: number, change: Partial<FakePullRequestInput>): void {
    const pull = this.#pulls.get(repositoryId)?.find((candidate) => candidate.number === number);
    if (pull) Object.assign(pull, change);
  }

  closePullRequest(repositoryId: number, number: number): void {
    const pull = this.#pulls.get(repositoryId)?.find((candidate) => candidate.number === number);
    if (pull) pull.state = 'closed';
  }

  /** Sends a webhook delivery as GitHub does: the JSON payload, its event and delivery id, and its
   * HMAC-SHA256 signature with `secret` over the exact bytes (X-Hub-Signature-256). */
  async deliverWebhook(url: string, secret: string, event: string, payload: object): Promise<Response> {
    const body = JSON.stringify(payload);
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/berth-test',
        'x-github-event': event,
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
      body,
    });
  }

  /** The web address of a repository, as deliveries name it (`repository.html_url`). */
  htmlUrl(fullName: string): string {
    return `${this.#htmlBaseUrl}/${fullName}`;
  }

  suspendInstallation(installationId: number): void {
    const installation = this.#installations.get(installationId);
    if (installation) installation.suspended = true;
  }

  /** The installation tokens issued so far for an installation. */
  installationTokens(installationId: number): string[] {
    return [...this.#tokens].filter(([, grant]) => grant.installationId === installationId).map(([token]) => token);
  }

  /**
   * Answers every authenticated request as GitHub does when a limit is hit: 403 (primary limit) or
   * 429 (secondary limit), with x-ratelimit-remaining 0 and the reset time. `undefined` lifts it.
   */
  simulateRateLimit(simulation: RateLimitSimulation): void {
    this.#rateLimited = simulation;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    for await (const _ of request) {
      // drain the body; no endpoint here reads it
    }
    const url = new URL(request.url ?? '/', this.#url);
    const method = request.method ?? 'GET';
    const { scheme, credential } = parseAuthorization(request.headers.authorization);
    const record = (status: number) => this.requests.push({ method, path: url.pathname + url.search, scheme, credential, status });
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record(status);
      send(response, status, body, headers);
    };

    if (scheme === 'jwt') {
      const app = this.#appFromJwt(credential ?? '');
      if (typeof app === 'string') return answer(401, { message: app, documentation_url: documentationUrl, status: '401' });
      return this.#routeAsApp(app, method, url, answer);
    }
    if (scheme === 'none') {
      return answer(401, { message: 'Requires authentication', documentation_url: documentationUrl, status: '401' });
    }
    const grant = this.#tokens.get(credential ?? '');
    if (!grant || grant.revoked) {
      return answer(401, { message: 'Bad credentials', documentation_url: documentationUrl, status: '401' });
    }
    const limited = this.#rateLimitAnswer(grant);
    if (limited) return answer(limited.status, limited.body, limited.headers);
    grant.remaining = Math.max(0, grant.remaining - 1);
    const headers = rateLimitHeaders(grant.remaining, this.#resetEpoch());

    if (method === 'GET' && url.pathname === '/user' && grant.user) {
      return answer(200, this.#userJson(grant.user), headers);
    }
    if (method === 'GET' && url.pathname === '/user/repos' && grant.user) {
      const ids = this.#reposByOwner.get(grant.user.login) ?? [];
      return this.#page(url, ids, (items) => items, headers, answer);
    }
    if (method === 'GET' && url.pathname === '/installation/repositories' && grant.installationId !== undefined) {
      const installation = this.#installations.get(grant.installationId);
      const ids = installation?.repositoryIds ?? [];
      return this.#page(
        url,
        ids,
        (items) => ({ total_count: ids.length, repository_selection: 'selected', repositories: items }),
        headers,
        answer,
      );
    }
    const pulls = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(url.pathname);
    if (method === 'GET' && pulls) {
      const repository = this.#reachable(grant, pulls[1]!, pulls[2]!);
      // GitHub hides a repository the credentials cannot reach.
      if (!repository) return answer(404, { message: 'Not Found', documentation_url: documentationUrl, status: '404' }, headers);
      const state = url.searchParams.get('state') ?? 'open';
      const listed = (this.#pulls.get(repository.id) ?? []).filter((pull) => state === 'all' || pull.state === state);
      return this.#pageOf(
        url,
        listed,
        (pull) => this.#pullJson(repository, pull),
        (items) => items,
        headers,
        answer,
      );
    }
    if (grant.installationId !== undefined && (url.pathname === '/user' || url.pathname === '/user/repos')) {
      return answer(
        403,
        { message: 'Resource not accessible by integration', documentation_url: documentationUrl, status: '403' },
        headers,
      );
    }
    return answer(404, { message: 'Not Found', documentation_url: documentationUrl, status: '404' }, headers);
  }

  #routeAsApp(app: App, method: string, url: URL, answer: (status: number, body: unknown, headers?: Record<string, string>) => void): void {
    if (method === 'GET' && url.pathname === '/app') {
      return answer(200, {
        id: app.id,
        slug: app.slug,
        node_id: `A_${app.id}`,
        owner: this.#userJson(app.owner),
        name: app.name,
        description: '',
        external_url: `${this.#htmlBaseUrl}/apps/${app.slug}`,
        html_url: `${this.#htmlBaseUrl}/apps/${app.slug}`,
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T00:00:00Z',
        permissions: { metadata: 'read', contents: 'read' },
        events: [],
      });
    }
    const installationMatch = /^\/app\/installations\/(\d+)(\/access_tokens)?$/.exec(url.pathname);
    const installation = installationMatch ? this.#installations.get(Number(installationMatch[1])) : undefined;
    if (!installationMatch || !installation || installation.appId !== app.id) {
      return answer(404, { message: 'Not Found', documentation_url: documentationUrl, status: '404' });
    }
    if (method === 'GET' && !installationMatch[2]) {
      return answer(200, this.#installationJson(installation, app));
    }
    if (method === 'POST' && installationMatch[2]) {
      if (installation.suspended) {
        return answer(403, { message: 'This installation has been suspended', documentation_url: documentationUrl, status: '403' });
      }
      const token = `ghs_${randomBytes(18).toString('base64url')}`;
      this.#tokens.set(token, { installationId: installation.id, revoked: false, remaining: rateLimit });
      return answer(201, {
        token,
        expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: { metadata: 'read', contents: 'read' },
        repository_selection: 'selected',
      });
    }
    return answer(404, { message: 'Not Found', documentation_url: documentationUrl, status: '404' });
  }

  /** Checks an App JWT as GitHub does: RS256 over header.payload with the App's key, iss, iat and exp. */
  #appFromJwt(jwt: string): App | string {
    const [header, payload, signature] = jwt.split('.');
    if (!header || !payload || signature === undefined) return 'A JSON web token could not be decoded';
    let claims: { iss?: unknown; iat?: unknown; exp?: unknown };
    let alg: unknown;
    try {
      alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return 'A JSON web token could not be decoded';
    }
    if (alg !== 'RS256') return 'A JSON web token could not be decoded';
    const app = this.#apps.get(Number(claims.iss));
    if (!app) return 'Integration not found';
    const valid = verify('sha256', Buffer.from(`${header}.${payload}`), app.publicKey, Buffer.from(signature, 'base64url'));
    if (!valid) return 'A JSON web token could not be decoded';
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.iat !== 'number' || claims.iat > now + 60) {
      return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued.";
    }
    if (typeof claims.exp !== 'number' || claims.exp <= now) {
      return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires.";
    }
    if (claims.exp - now > 600 + 60) return "'Expiration time' claim ('exp') is too far in the future.";
    return app;
  }

  #rateLimitAnswer(grant: TokenGrant): { status: number; body: unknown; headers: Record<string, string> } | undefined {
    const simulation = this.#rateLimited;
    if (!simulation && grant.remaining > 0) return undefined;
    const resetEpoch = Math.floor((simulation?.resetAt.getTime() ?? Date.now() + 3600_000) / 1000);
    const headers = rateLimitHeaders(0, resetEpoch);
    if (simulation?.status === 429) {
      const retryAfter = String(Math.max(1, resetEpoch - Math.floor(Date.now() / 1000)));
      return {
        status: 429,
        headers: { ...headers, 'retry-after': retryAfter },
        body: {
          message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          documentation_url: rateLimitDocumentationUrl,
          status: '429',
        },
      };
    }
    return {
      status: 403,
      headers,
      body: {
        message: `API rate limit exceeded for ${grant.user ? `user ID ${grant.user.id}` : `installation ID ${grant.installationId}`}.`,
        documentation_url: rateLimitDocumentationUrl,
        status: '403',
      },
    };
  }

  #resetEpoch(): number {
    return Math.floor(Date.now() / 1000) + 3600;
  }

  /** The repository `owner/name` if the grant reaches it: its user owns it, or its installation was given it. */
  #reachable(grant: TokenGrant, owner: string, name: string): Repository | undefined {
    const repository = [...this.#repositories.values()].find((candidate) => candidate.owner.login === owner && candidate.name === name);
    if (!repository) return undefined;
    if (grant.user) return repository.owner.login === grant.user.login ? repository : undefined;
    return this.#installations.get(grant.installationId ?? -1)?.repositoryIds.includes(repository.id) ? repository : undefined;
  }

  /** One page of `ids`, with GitHub's `per_page`/`page` semantics and RFC 8288 Link header. */
  #page(
    url: URL,
    ids: number[],
    wrap: (items: unknown[]) => unknown,
    headers: Record<string, string>,
    answer: (status: number, body: unknown, headers?: Record<string, string>) => void,
  ): void {
    this.#pageOf(url, ids, (id) => this.#repositoryJson(this.#repositories.get(id)!), wrap, headers, answer);
  }

  #pageOf<T>(
    url: URL,
    all: T[],
    render: (item: T) => unknown,
    wrap: (items: unknown[]) => unknown,
    headers: Record<string, string>,
    answer: (status: number, body: unknown, headers?: Record<string, string>) => void,
  ): void {
    const perPage = Math.min(maxPerPage, positiveInteger(url.searchParams.get('per_page')) ?? defaultPerPage);
    const page = positiveInteger(url.searchParams.get('page')) ?? 1;
    const lastPage = Math.max(1, Math.ceil(all.length / perPage));
    const items = all.slice((page - 1) * perPage, page * perPage).map(render);
    const link = (target: number, rel: string) => {
      const next = new URL(url);
      next.searchParams.set('per_page', String(perPage));
      next.searchParams.set('page', String(target));
      return `<${next.toString()}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page > 1) links.push(link(Math.min(page - 1, lastPage), 'prev'));
    if (page < lastPage) links.push(link(page + 1, 'next'), link(lastPage, 'last'));
    if (page > 1) links.push(link(1, 'first'));
    answer(200, wrap(items), links.length > 0 ? { ...headers, link: links.join(', ') } : headers);
  }

  #userJson(account: FakeAccount) {
    return {
      login: account.login,
      id: account.id,
      node_id: `U_${account.id}`,
      avatar_url: `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
      url: `${this.#url}/users/${account.login}`,
      html_url: `${this.#htmlBaseUrl}/${account.login}`,
      type: account.type,
      site_admin: false,
    };
  }

  #repositoryJson(repository: Repository) {
    const fullName = `${repository.owner.login}/${repository.name}`;
    const host = new URL(this.#htmlBaseUrl).host;
    return {
      id: repository.id,
      node_id: `R_${repository.id}`,
      name: repository.name,
      full_name: fullName,
      private: repository.private,
      owner: this.#userJson(repository.owner),
      html_url: `${this.#htmlBaseUrl}/${fullName}`,
      description: null,
      fork: false,
      url: `${this.#url}/repos/${fullName}`,
      git_url: `git://${host}/${fullName}.git`,
      ssh_url: `git@${host}:${fullName}.git`,
      clone_url: `${this.#htmlBaseUrl}/${fullName}.git`,
      homepage: null,
      size: 0,
      language: 'TypeScript',
      archived: false,
      disabled: false,
      visibility: repository.private ? 'private' : 'public',
      default_branch: repository.defaultBranch,
      pushed_at: '2026-01-01T00:00:00Z',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      permissions: { admin: true, maintain: true, push: true, triage: true, pull: true },
    };
  }

  /** A pull request as GET /repos/{owner}/{repo}/pulls lists it (the fields a client reads, and more). */
  #pullJson(repository: Repository, pull: PullRequest) {
    const base = this.#repositoryJson(repository);
    const fork =
      pull.fromFork === true ? { ...base, id: repository.id + 100_000, fork: true, full_name: `fork-owner/${repository.name}` } : base;
    return {
      url: `${this.#url}/repos/${base.full_name}/pulls/${pull.number}`,
      id: repository.id * 1000 + pull.number,
      html_url: `${this.#htmlBaseUrl}/${base.full_name}/pull/${pull.number}`,
      number: pull.number,
      state: pull.state,
      locked: false,
      title: `Pull request ${pull.number}`,
      user: this.#userJson(repository.owner),
      body: null,
      labels: (pull.labels ?? []).map((name, index) => ({ id: index + 1, name, color: 'ededed', default: false })),
      draft: pull.draft ?? false,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      head: {
        label: `${pull.fromFork === true ? 'fork-owner' : repository.owner.login}:${pull.headRef}`,
        ref: pull.headRef,
        sha: pull.headSha,
        repo: pull.fromFork === 'deleted' ? null : fork,
      },
      base: {
        label: `${repository.owner.login}:${repository.defaultBranch}`,
        ref: repository.defaultBranch,
        sha: '0'.repeat(40),
        repo: base,
      },
    };
  }

  #installationJson(installation: Installation, app: App) {
    return {
      id: installation.id,
      account: this.#userJson(installation.account),
      repository_selection: 'selected',
      access_tokens_url: `${this.#url}/app/installations/${installation.id}/access_tokens`,
      repositories_url: `${this.#url}/installation/repositories`,
      html_url: `${this.#htmlBaseUrl}/settings/installations/${installation.id}`,
      app_id: app.id,
      app_slug: app.slug,
      target_id: installation.account.id,
      target_type: installation.account.type,
      permissions: { metadata: 'read', contents: 'read' },
      events: [],
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      single_file_name: null,
      suspended_at: installation.suspended ? '2026-01-02T00:00:00Z' : null,
      suspended_by: null,
    };
  }
}

function parseAuthorization(header: string | undefined): { scheme: RecordedRequest['scheme']; credential: string | undefined } {
  const match = /^(token|bearer)\s+(\S+)$/i.exec(header ?? '');
  if (!match) return { scheme: 'none', credential: undefined };
  const credential = match[2]!;
  // GitHub tells a JWT from a token by its shape: three dot-separated base64url parts.
  return { scheme: credential.split('.').length === 3 ? 'jwt' : 'token', credential };
}

function rateLimitHeaders(remaining: number, resetEpoch: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(rateLimit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(resetEpoch),
    'x-ratelimit-used': String(rateLimit - remaining),
    'x-ratelimit-resource': 'core',
  };
}

function positiveInteger(value: string | null): number | undefined {
  const parsed = Number(value);
  return value !== null && Number.isInteger(parsed) && parsed > 0 ? parsed : undefined;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
    'x-github-api-version-selected': '2022-11-28',
    ...headers,
  });
  response.end(payload);
}

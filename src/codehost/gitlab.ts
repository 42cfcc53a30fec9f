// GitLab (gitlab.com or self-managed) over its REST API v4 with plain fetch: a personal, group or
// project access token lists the projects it is a member of (GET /projects?membership=true), page by
// page with keyset pagination (the Link header's rel="next"), which stays fast on large instances.
import { codeHostProviders } from '../api/codehost-providers.ts';
import { sameOriginFetch } from './outbound.ts';
import type { CodeHostCredentials } from './credentials.ts';
import { secretsOf } from './credentials.ts';
import {
  CodeHostCredentialsError,
  CodeHostError,
  CodeHostNotFoundError,
  CodeHostRateLimitedError,
  CodeHostUnauthorizedError,
  CodeHostUnreachableError,
  redactSecrets,
} from './errors.ts';
import type { CodeHostAccount, CodeHostClient, CodeHostLog, Repository } from './repository.ts';
import { silentLog } from './repository.ts';
import { fromGitLabMergeRequest, type GitLabMergeRequest, type PullRequest } from './pull-request.ts';

export const gitLabDefaultBaseUrl = codeHostProviders.gitlab.publicApiBaseUrl;

/** A listing stops here rather than walking an unbounded instance: 100 pages of 100. */
const maxPages = 100;

export interface GitLabClientOptions {
  integrationId: string;
  credentials: CodeHostCredentials;
  /** The REST API root, ending in /api/v4. */
  baseUrl?: string;
  requestTimeoutMs?: number;
  log?: CodeHostLog;
}

interface GitLabProject {
  id: number;
  path: string;
  web_url: string;
  default_branch?: string | null;
  namespace?: { full_path?: string } | null;
}

export function createGitLabClient(options: GitLabClientOptions): CodeHostClient {
  if (options.credentials.kind !== 'token') {
    throw new CodeHostCredentialsError('GitLab takes an access token (Secret key "token"), not GitHub App keys');
  }
  const token = options.credentials.token;
  const secrets = secretsOf(options.credentials);
  const baseUrl = (options.baseUrl ?? gitLabDefaultBaseUrl).replace(/\/+$/, '');
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const log = options.log ?? silentLog;

  // Every request, redirect and page link stays on the API's origin (outbound.ts).
  const guardedFetch = sameOriginFetch(new URL(baseUrl).origin);
  const get = async (url: string): Promise<{ body: unknown; headers: Headers }> => {
    let response: Response;
    try {
      response = await guardedFetch(url, {
        headers: { 'private-token': token, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      throw new CodeHostUnreachableError(redactSecrets(`GitLab at ${baseUrl} is unreachable: ${cause}`, secrets));
    }
    const text = await response.text().catch((error: unknown) => {
      // An error answer's body only adds detail; a good answer cut short must not read as an empty one.
      if (response.ok)
        throw new CodeHostUnreachableError(redactSecrets(`GitLab at ${baseUrl} is unreachable: ${(error as Error).message}`, secrets));
      return '';
    });
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // a proxy's HTML error page: keep the text, gitLabError shortens it
    }
    log.debug(`GET ${pathOf(url, baseUrl)} - ${response.status}`);
    if (!response.ok) throw gitLabError(response.status, response.headers, body, `GET ${pathOf(url, baseUrl)}`, baseUrl, secrets);
    return { body, headers: response.headers };
  };

  return {
    async listRepositories() {
      const repositories: Repository[] = [];
      let next: string | undefined = `${baseUrl}/projects?membership=true&simple=true&pagination=keyset&order_by=id&sort=asc&per_page=100`;
      for (let page = 0; next && page < maxPages; page++) {
        const { body, headers } = await get(next);
        for (const project of body as GitLabProject[]) repositories.push(toRepository(options.integrationId, project));
        next = nextLink(headers.get('link'));
      }
      if (next) log.warn(`GitLab listing stopped after ${maxPages} pages`);
      return repositories;
    },
    async openPullRequests(repositoryPath) {
      const requests: PullRequest[] = [];
      const project = encodeURIComponent(repositoryPath);
      let next: string | undefined = `${baseUrl}/projects/${project}/merge_requests?state=opened&per_page=100`;
      for (let page = 0; next && page < maxPages / 10; page++) {
        const { body, headers } = await get(next);
        for (const request of body as GitLabMergeRequest[]) requests.push(fromGitLabMergeRequest(request));
        next = nextLink(headers.get('link'));
      }
      return requests;
    },
    async verify(): Promise<CodeHostAccount> {
      const { body } = await get(`${baseUrl}/user`);
      return { login: (body as { username: string }).username, kind: 'user' };
    },
  };
}

export function toRepository(integrationId: string, project: GitLabProject): Repository {
  return {
    host_integration_id: integrationId,
    id: project.id,
    name: project.path,
    owner: project.namespace?.full_path ?? '',
    url: project.web_url,
    default_branch: project.default_branch ?? 'main',
  };
}

/** GitLab answers {"message": "401 Unauthorized"} (or {"error": ...}); limits come with RateLimit-Reset / Retry-After. */
function gitLabError(
  status: number,
  headers: Headers,
  body: unknown,
  route: string,
  baseUrl: string,
  secrets: readonly string[],
  now = new Date(),
): CodeHostError {
  const record =
    typeof body === 'object' && body !== null ? (body as { message?: unknown; error?: unknown; error_description?: unknown }) : {};
  const raw = [record.message, record.error_description, record.error].find((value) => typeof value === 'string') as string | undefined;
  const hostMessage = redactSecrets(
    raw ?? (typeof body === 'string' && body.length > 0 && body.length < 200 ? body : `HTTP ${status}`),
    secrets,
  );
  if (status === 429) {
    const retryAfter = Number(headers.get('retry-after'));
    const reset = Number(headers.get('ratelimit-reset'));
    const resetAt =
      Number.isFinite(reset) && reset > 0
        ? new Date(reset * 1000)
        : new Date(now.getTime() + (Number.isFinite(retryAfter) ? retryAfter : 60) * 1000);
    return new CodeHostRateLimitedError(`GitLab rate limit exceeded until ${resetAt.toISOString()}: ${hostMessage}`, status, resetAt);
  }
  if (status === 401) return new CodeHostUnauthorizedError(`GitLab rejected the credentials: ${hostMessage}`, status);
  if (status === 403) return new CodeHostUnauthorizedError(`GitLab refused access to ${route}: ${hostMessage}`, status);
  if (status === 404) return new CodeHostNotFoundError(`GitLab found nothing at ${route}: ${hostMessage}`, status);
  if (status >= 500) return new CodeHostUnreachableError(`GitLab at ${baseUrl} failed with HTTP ${status}: ${hostMessage}`, status);
  return new CodeHostError('Unreachable', `GitLab answered HTTP ${status} to ${route}: ${hostMessage}`, status);
}

function nextLink(link: string | null): string | undefined {
  return link
    ?.split(',')
    .map((part) => /<([^>]+)>\s*;\s*rel="next"/.exec(part)?.[1])
    .find((url) => url !== undefined);
}

function pathOf(url: string, baseUrl: string): string {
  return (url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url).split('?')[0] || '/';
}

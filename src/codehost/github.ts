// GitHub (github.com or GitHub Enterprise Server) through Octokit. A personal token lists what its user
// can reach (GET /user/repos); a GitHub App exchanges a JWT signed with its private key for an
// installation token (@octokit/auth-app, which also caches that token until shortly before it expires)
// and lists what the installation was granted (GET /installation/repositories).
//
// Octokit loads with a client's first call, not with every Berth start: most installations have no
// GitHub integration, and the two packages hold about 1.5 MiB of heap once loaded.
import type { Octokit } from '@octokit/rest';
import { codeHostProviders } from '../api/codehost-providers.ts';
import type { CodeHostCredentials } from './credentials.ts';
import { secretsOf } from './credentials.ts';
import {
  CodeHostError,
  CodeHostNotFoundError,
  CodeHostRateLimitedError,
  CodeHostUnauthorizedError,
  CodeHostUnreachableError,
  redactSecrets,
} from './errors.ts';
import type { CodeHostAccount, CodeHostClient, CodeHostLog, Repository } from './repository.ts';
import { silentLog } from './repository.ts';
import { sameOriginFetch } from './outbound.ts';
import { fromGitHubPull, type GitHubPull, type PullRequest } from './pull-request.ts';

/** A pull request listing stops here: previews are capped far below it. */
const maxPullRequests = 1000;

export const gitHubDefaultBaseUrl = codeHostProviders.github.publicApiBaseUrl;

export interface GitHubClientOptions {
  /** Stamped on every listed repository as `host_integration_id`. */
  integrationId: string;
  credentials: CodeHostCredentials;
  /** The REST API root: https://api.github.com, or https://<host>/api/v3 for GitHub Enterprise Server. */
  baseUrl?: string;
  /** Bounds each HTTP request, so a host that stops answering cannot hold a reconcile or a facade request. */
  requestTimeoutMs?: number;
  /** A listing stops here rather than holding an unbounded account in memory. Default 10,000 (100 pages). */
  maxRepositories?: number;
  log?: CodeHostLog;
}

/** The fields Berth reads from GitHub's repository JSON. */
interface GitHubRepository {
  id: number;
  name: string;
  owner: { login: string } | null;
  html_url: string;
  default_branch?: string;
}

export function createGitHubClient(options: GitHubClientOptions): CodeHostClient {
  const baseUrl = (options.baseUrl ?? gitHubDefaultBaseUrl).replace(/\/+$/, '');
  const secrets = secretsOf(options.credentials);
  const log = options.log ?? silentLog;
  const maxRepositories = options.maxRepositories ?? 10_000;
  let client: Promise<Octokit> | undefined;
  const octokit = () => (client ??= newOctokit(baseUrl, options, log, secrets));
  const credentials = options.credentials;
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw gitHubError(error, baseUrl, secrets);
    }
  };

  return {
    listRepositories: () =>
      call(async () => {
        const github = await octokit();
        const pages =
          credentials.kind === 'token'
            ? github.paginate.iterator('GET /user/repos', { per_page: 100 })
            : github.paginate.iterator('GET /installation/repositories', { per_page: 100 });
        const repositories: Repository[] = [];
        for await (const page of pages) {
          for (const repository of page.data as GitHubRepository[]) repositories.push(toRepository(options.integrationId, repository));
          if (repositories.length >= maxRepositories) {
            log.warn(`GitHub listing stopped at ${maxRepositories} repositories`);
            return repositories.slice(0, maxRepositories);
          }
        }
        return repositories;
      }),
    openPullRequests: (repositoryPath) =>
      call(async () => {
        const github = await octokit();
        const [owner, repo] = repositoryPath.split('/') as [string, string];
        const pulls: PullRequest[] = [];
        const pages = github.paginate.iterator('GET /repos/{owner}/{repo}/pulls', { owner, repo, state: 'open', per_page: 100 });
        for await (const page of pages) {
          for (const pull of page.data as GitHubPull[]) pulls.push(fromGitHubPull(pull));
          if (pulls.length >= maxPullRequests) {
            log.warn(`GitHub pull request listing stopped at ${maxPullRequests}`);
            break;
          }
        }
        return pulls;
      }),
    verify: () =>
      call(async (): Promise<CodeHostAccount> => {
        const github = await octokit();
        if (credentials.kind === 'token') {
          const { data } = await github.request('GET /user');
          return { login: data.login, kind: 'user' };
        }
        // The installation must exist for this App (asked with the App's JWT), and its installation token
        // must be accepted: a cached token of a reinstalled App is revoked although it has not expired.
        const { data } = await github.request('GET /app/installations/{installation_id}', { installation_id: credentials.installationId });
        await github.request('GET /installation/repositories', { per_page: 1 });
        const account = data.account as { login?: string; slug?: string } | null;
        return { login: account?.login ?? account?.slug ?? String(data.id), kind: 'installation' };
      }),
  };
}

async function newOctokit(baseUrl: string, options: GitHubClientOptions, log: CodeHostLog, secrets: string[]): Promise<Octokit> {
  const [{ Octokit }, { createAppAuth }] = await Promise.all([import('@octokit/rest'), import('@octokit/auth-app')]);
  return new Octokit({
    baseUrl,
    userAgent: 'berth',
    // Every request, redirect and page link stays on the API's origin (outbound.ts).
    request: { fetch: sameOriginFetch(new URL(baseUrl).origin, fetchWithTimeout(options.requestTimeoutMs ?? 15_000)) },
    log: {
      debug: (message: string) => log.debug(redactSecrets(message, secrets)),
      info: (message: string) => log.debug(redactSecrets(message, secrets)),
      warn: (message: string) => log.warn(redactSecrets(message, secrets)),
      error: (message: string) => log.warn(redactSecrets(message, secrets)),
    },
    ...(options.credentials.kind === 'token'
      ? { auth: options.credentials.token }
      : {
          authStrategy: createAppAuth,
          auth: {
            appId: options.credentials.appId,
            privateKey: options.credentials.privateKey,
            installationId: options.credentials.installationId,
          },
        }),
  });
}

export function toRepository(integrationId: string, repository: GitHubRepository): Repository {
  return {
    host_integration_id: integrationId,
    id: repository.id,
    name: repository.name,
    owner: repository.owner?.login ?? '',
    url: repository.html_url,
    default_branch: repository.default_branch ?? 'main',
  };
}

/**
 * Turns whatever Octokit threw into a typed CodeHostError. Only GitHub's own `message` and the
 * request's method and path (never its headers or query) reach the text, and the credential values are
 * redacted from it as a last guard.
 */
export function gitHubError(error: unknown, baseUrl: string, secrets: readonly string[], now = new Date()): CodeHostError {
  if (error instanceof CodeHostError) return error;
  const requestError = error as {
    status?: number;
    message?: string;
    response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
    request?: { method?: string; url?: string };
  };
  const redact = (text: string) => redactSecrets(text, secrets);
  const response = requestError.response;
  if (!response || typeof requestError.status !== 'number') {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return new CodeHostUnreachableError(redact(`GitHub at ${baseUrl} is unreachable: ${cause ?? requestError.message ?? String(error)}`));
  }
  const status = requestError.status;
  const headers = response.headers ?? {};
  const hostMessage = redact(gitHubMessage(response.data) ?? `HTTP ${status}`);
  const route = redact(`${requestError.request?.method ?? 'GET'} ${pathOf(requestError.request?.url, baseUrl)}`);

  const rateLimitReset = rateLimitResetOf(status, headers, now);
  if (rateLimitReset) {
    return new CodeHostRateLimitedError(
      `GitHub rate limit exceeded until ${rateLimitReset.toISOString()}: ${hostMessage}`,
      status,
      rateLimitReset,
    );
  }
  if (status === 401) return new CodeHostUnauthorizedError(`GitHub rejected the credentials: ${hostMessage}`, status);
  if (status === 403) return new CodeHostUnauthorizedError(`GitHub refused access to ${route}: ${hostMessage}`, status);
  if (status === 404) return new CodeHostNotFoundError(`GitHub found nothing at ${route}: ${hostMessage}`, status);
  if (status >= 500) return new CodeHostUnreachableError(`GitHub at ${baseUrl} failed with HTTP ${status}: ${hostMessage}`, status);
  return new CodeHostError('Unreachable', `GitHub answered HTTP ${status} to ${route}: ${hostMessage}`, status);
}

/**
 * GitHub signals a primary limit with 403/429 and x-ratelimit-remaining: 0 (reset in x-ratelimit-reset,
 * epoch seconds), and a secondary limit with 403/429 and retry-after (seconds).
 */
function rateLimitResetOf(status: number, headers: Record<string, string | number | undefined>, now: Date): Date | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter)) return new Date(now.getTime() + retryAfter * 1000);
  if (String(headers['x-ratelimit-remaining']) === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    return Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : new Date(now.getTime() + 60_000);
  }
  return status === 429 ? new Date(now.getTime() + 60_000) : undefined;
}

function gitHubMessage(data: unknown): string | undefined {
  if (typeof data === 'object' && data !== null && typeof (data as { message?: unknown }).message === 'string') {
    return (data as { message: string }).message;
  }
  return typeof data === 'string' && data.length > 0 && data.length < 200 ? data : undefined;
}

function pathOf(url: string | undefined, baseUrl: string): string {
  if (!url) return '/';
  const withoutBase = url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url;
  return withoutBase.split('?')[0] || '/';
}

/** Octokit's fetch with a per-request deadline, keeping any signal the caller passed. */
function fetchWithTimeout(timeoutMs: number): typeof fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(input, { ...init, signal });
  };
}

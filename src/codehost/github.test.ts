import { describe, expect, it } from 'vitest';
import {
  CodeHostNotFoundError,
  CodeHostRateLimitedError,
  CodeHostUnauthorizedError,
  CodeHostUnreachableError,
  redactSecrets,
} from './errors.ts';
import { gitHubError } from './github.ts';

const baseUrl = 'https://ghe.example.com/api/v3';
const now = new Date('2026-01-01T00:00:00Z');

function requestError(status: number, data: unknown, headers: Record<string, string> = {}, url = `${baseUrl}/user/repos?per_page=100`) {
  return Object.assign(new Error('ignored'), { status, response: { status, headers, data }, request: { method: 'GET', url } });
}

describe('gitHubError', () => {
  it('maps 401 to Unauthorized with GitHub’s message', () => {
    const error = gitHubError(requestError(401, { message: 'Bad credentials', documentation_url: 'x' }), baseUrl, [], now);
    expect(error).toBeInstanceOf(CodeHostUnauthorizedError);
    expect(error.message).toBe('GitHub rejected the credentials: Bad credentials');
  });

  it('maps 403 with x-ratelimit-remaining 0 to RateLimited at x-ratelimit-reset', () => {
    const error = gitHubError(
      requestError(403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1767229200' }),
      baseUrl,
      [],
      now,
    );
    expect(error).toBeInstanceOf(CodeHostRateLimitedError);
    expect((error as CodeHostRateLimitedError).resetAt.toISOString()).toBe('2026-01-01T01:00:00.000Z');
  });

  it('maps retry-after to RateLimited that many seconds from now', () => {
    const error = gitHubError(requestError(403, { message: 'secondary rate limit' }, { 'retry-after': '30' }), baseUrl, [], now);
    expect((error as CodeHostRateLimitedError).resetAt.toISOString()).toBe('2026-01-01T00:00:30.000Z');
  });

  it('maps a plain 403 to Unauthorized naming the route, never the query', () => {
    const error = gitHubError(requestError(403, { message: 'Resource not accessible by integration' }), baseUrl, [], now);
    expect(error).toBeInstanceOf(CodeHostUnauthorizedError);
    expect(error.message).toBe('GitHub refused access to GET /user/repos: Resource not accessible by integration');
  });

  it('maps 404 to NotFound and 5xx or no answer to Unreachable', () => {
    expect(gitHubError(requestError(404, { message: 'Not Found' }), baseUrl, [], now)).toBeInstanceOf(CodeHostNotFoundError);
    expect(gitHubError(requestError(502, '<html>bad gateway</html>'), baseUrl, [], now)).toBeInstanceOf(CodeHostUnreachableError);
    const offline = gitHubError(
      Object.assign(new Error('fetch failed'), { status: 500, cause: new Error('getaddrinfo ENOTFOUND ghe.example.com') }),
      baseUrl,
      [],
      now,
    );
    expect(offline).toBeInstanceOf(CodeHostUnreachableError);
    expect(offline.message).toBe(`GitHub at ${baseUrl} is unreachable: getaddrinfo ENOTFOUND ghe.example.com`);
  });

  it('redacts a credential a host echoes back', () => {
    const error = gitHubError(requestError(401, { message: 'token ghp_leakedValue123 is invalid' }), baseUrl, ['ghp_leakedValue123'], now);
    expect(error.message).toBe('GitHub rejected the credentials: token [REDACTED] is invalid');
  });
});

describe('redactSecrets', () => {
  it('redacts every line of a multi-line key but not its PEM armour', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAline1\nAnotherLineOfKey\n-----END RSA PRIVATE KEY-----';
    expect(redactSecrets('oops: MIIEowIBAAKCAQEAline1', [key])).toBe('oops: [REDACTED]');
    expect(redactSecrets('-----BEGIN RSA PRIVATE KEY-----', [key])).toBe('-----BEGIN RSA PRIVATE KEY-----');
  });
});

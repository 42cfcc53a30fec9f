import { describe, expect, it } from 'vitest';
import { repositoryOriginOf, repositoryHostRefusal } from './codehost-integration.ts';

describe("an integration's repository host", () => {
  it("is its base URL's origin, or the public service's", () => {
    expect(repositoryOriginOf({ provider: 'github' })).toBe('https://github.com');
    expect(repositoryOriginOf({})).toBe('https://github.com');
    expect(repositoryOriginOf({ provider: 'gitlab' })).toBe('https://gitlab.com');
    expect(repositoryOriginOf({ provider: 'github', baseUrl: 'https://GHE.corp.example/api/v3' })).toBe('https://ghe.corp.example');
    expect(repositoryOriginOf({ provider: 'gitlab', baseUrl: 'https://git.corp.example:8443/api/v4' })).toBe(
      'https://git.corp.example:8443',
    );
  });

  it('is the only host its credentials go to', () => {
    expect(repositoryHostRefusal('https://github.com/acme/app', { provider: 'github' })).toBeUndefined();
    expect(repositoryHostRefusal('https://ghe.corp.example/acme/app.git', { baseUrl: 'https://ghe.corp.example/api/v3' })).toBeUndefined();
    expect(repositoryHostRefusal('https://ghe.corp.example:8443/acme/app', { baseUrl: 'https://ghe.corp.example/api/v3' })).toMatch(
      /host https:\/\/ghe\.corp\.example:/,
    );
    for (const url of [
      'https://github.com.evil.example/acme/app',
      'https://api.github.com/repos/x',
      'http://169.254.169.254/latest',
      'http://github.com/acme/app',
      'https://github.com:8080/acme/app',
      'not a url',
    ]) {
      expect(repositoryHostRefusal(url, { provider: 'github' }), url).toMatch(
        /^repo_url must be on the integration's host https:\/\/github\.com:/,
      );
    }
  });
});

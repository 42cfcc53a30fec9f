import { describe, expect, it } from 'vitest';
import { repositoryHostOf, repositoryHostRefusal } from './codehost-integration.ts';

describe("an integration's repository host", () => {
  it("is its base URL's host, or the public service's", () => {
    expect(repositoryHostOf({ provider: 'github' })).toBe('github.com');
    expect(repositoryHostOf({})).toBe('github.com');
    expect(repositoryHostOf({ provider: 'gitlab' })).toBe('gitlab.com');
    expect(repositoryHostOf({ provider: 'github', baseUrl: 'https://GHE.corp.example/api/v3' })).toBe('ghe.corp.example');
  });

  it('is the only host its credentials go to', () => {
    expect(repositoryHostRefusal('https://github.com/acme/app', { provider: 'github' })).toBeUndefined();
    expect(repositoryHostRefusal('https://ghe.corp.example/acme/app.git', { baseUrl: 'https://ghe.corp.example/api/v3' })).toBeUndefined();
    for (const url of [
      'https://github.com.evil.example/acme/app',
      'https://api.github.com/repos/x',
      'http://169.254.169.254/latest',
      'not a url',
    ]) {
      expect(repositoryHostRefusal(url, { provider: 'github' }), url).toMatch(/^repo_url must be on the integration's host github\.com/);
    }
  });
});

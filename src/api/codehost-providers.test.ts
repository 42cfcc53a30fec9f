import { describe, expect, it } from 'vitest';
import { pullRequestUrl } from './codehost-providers.ts';

describe("a pull request's web page", () => {
  it("is the repository's address and each host's own path", () => {
    expect(pullRequestUrl('github', 'https://github.com/acme/shop', 7)).toBe('https://github.com/acme/shop/pull/7');
    expect(pullRequestUrl(undefined, 'https://git.example.com/acme/shop.git', 7)).toBe('https://git.example.com/acme/shop/pull/7');
    expect(pullRequestUrl('gitlab', 'https://gitlab.com/acme/group/shop/', 12)).toBe(
      'https://gitlab.com/acme/group/shop/-/merge_requests/12',
    );
  });

  it('is none for an address that is not http(s), so that no link runs a script', () => {
    expect(pullRequestUrl('github', 'javascript:alert(1)//', 1)).toBeUndefined();
    expect(pullRequestUrl('github', 'not a url', 1)).toBeUndefined();
  });
});

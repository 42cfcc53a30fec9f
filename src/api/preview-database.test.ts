import { describe, expect, it } from 'vitest';
import { organizationPolicySchema } from './organization-policy.ts';
import { previewCloneRefusal, repositoryPathOf } from './preview-database.ts';

describe('previewCloneRefusal', () => {
  const allowed = ['github.com/acme/shop', 'gitlab.example.com:8443/team/*'];
  it('lets a listed repository, or one under a listed owner, clone; any other is refused with why', () => {
    expect(previewCloneRefusal('https://github.com/acme/shop', allowed)).toBeUndefined();
    expect(previewCloneRefusal('https://github.com/Acme/Shop.git', allowed)).toBeUndefined();
    expect(previewCloneRefusal('https://gitlab.example.com:8443/team/sub/app', allowed)).toBeUndefined();
    expect(previewCloneRefusal('https://github.com/acme/shop-fork', allowed)).toContain('github.com/acme/shop-fork');
    expect(previewCloneRefusal('https://gitlab.example.com/team/app', allowed)).toContain('previewDatabaseClone');
    expect(previewCloneRefusal('https://github.com/acme/shop', undefined)).toContain('lets no preview');
    expect(previewCloneRefusal('not a url', allowed)).toContain('not a url');
  });

  it('takes repository patterns in the policy, and refuses what is not one', () => {
    expect(organizationPolicySchema.safeParse({ previewDatabaseClone: ['github.com/acme/*', 'git.local:3000/a/b'] }).success).toBe(true);
    for (const pattern of ['github.com', 'github.com/*', '*', 'https://github.com/acme/shop'])
      expect(organizationPolicySchema.safeParse({ previewDatabaseClone: [pattern] }).success, pattern).toBe(false);
  });

  it('reads owner/name, and a GitLab group path, from a repository address', () => {
    expect(repositoryPathOf('https://github.com/acme/shop.git')).toBe('acme/shop');
    expect(repositoryPathOf('https://gitlab.com/g/sub/app/')).toBe('g/sub/app');
    expect(repositoryPathOf('https://github.com/acme')).toBeUndefined();
  });
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitServer } from '../../workbench/support/git-server.ts';
import { advertisementUrl, branchHead, parseAdvertisement } from './branch-head.ts';

let git: GitServer;
const token = 'branch-head-token';

beforeAll(async () => {
  git = await GitServer.start();
  await git.createRepository('acme/private', { 'a.txt': 'a\n' }, { token });
  await git.createRepository('acme/public', { 'a.txt': 'a\n' });
  await git.commit('acme/public', { 'b.txt': 'b\n' }, 'on a branch', 'feature/x');
});

afterAll(async () => {
  await git?.stop();
});

describe('branchHead against git http-backend', () => {
  it('reads a branch by name or full ref, with or without .git in the URL', async () => {
    const main = await git.head('acme/public', 'main');
    expect(await branchHead({ repoUrl: `${git.url}/acme/public`, ref: 'main' })).toBe(main);
    expect(await branchHead({ repoUrl: git.cloneUrl('acme/public'), ref: 'refs/heads/main' })).toBe(main);
    expect(await branchHead({ repoUrl: `${git.url}/acme/public/`, ref: 'feature/x' })).toBe(await git.head('acme/public', 'feature/x'));
  });

  it('follows a push', async () => {
    const pushed = await git.commit('acme/public', { 'c.txt': 'c\n' }, 'a push');
    expect(await branchHead({ repoUrl: `${git.url}/acme/public`, ref: 'main' })).toBe(pushed);
  });

  it('reads a private repository with its token, and says why it cannot without it, never quoting the token', async () => {
    expect(await branchHead({ repoUrl: `${git.url}/acme/private`, ref: 'main', token })).toBe(await git.head('acme/private'));
    await expect(branchHead({ repoUrl: `${git.url}/acme/private`, ref: 'main', token: 'wrong' })).rejects.toThrow(/answered 401/);
    const error = await branchHead({ repoUrl: `${git.url}/acme/private`, ref: 'nope', token }).catch((e: Error) => e);
    expect(String(error)).toContain('the repository has no refs/heads/nope');
    expect(String(error)).not.toContain(token);
  });

  it('says when nothing answers', async () => {
    await expect(branchHead({ repoUrl: 'http://127.0.0.1:1/acme/x', ref: 'main' })).rejects.toThrow(/cannot reach http:\/\/127.0.0.1:1/);
  });
});

describe('parseAdvertisement', () => {
  it('reads pkt-lines with capabilities after the first ref, and refuses what is not one', () => {
    const line = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const body = `${line('# service=git-upload-pack\n')}0000${line(`${a} HEAD\0multi_ack side-band-64k\n`)}${line(`${b} refs/heads/main\n`)}0000`;
    expect([...parseAdvertisement(body)]).toEqual([
      ['HEAD', a],
      ['refs/heads/main', b],
    ]);
    expect(() => parseAdvertisement('<html>')).toThrow(/not a git ref advertisement/);
  });

  it('refuses lengths that would not move the reader on, or run past the end', () => {
    const a = 'a'.repeat(40);
    for (const body of ['0004-004', '0003', '0001abc', `0100${a} refs/heads/main`, '00zz', '000']) {
      expect(() => parseAdvertisement(body), body).toThrow(/not a git ref advertisement/);
    }
  });

  it('ends on any input: each packet moves the reader forward', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.array(fc.nat({ max: 0x30 }), { maxLength: 20 }), (text, lengths) => {
        const body = lengths.map((n) => n.toString(16).padStart(4, '0')).join('') + text;
        try {
          parseAdvertisement(body);
        } catch (error) {
          expect(String(error)).toMatch(/not a git ref advertisement/);
        }
      }),
    );
  });

  it('builds the advertisement URL, and only for the repository itself', () => {
    expect(advertisementUrl('https://github.com/acme/shop.git')).toBe('https://github.com/acme/shop.git/info/refs?service=git-upload-pack');
    for (const url of [
      'https://evil.example/x#',
      'https://github.com/acme/shop?x=1',
      'https://user:pw@github.com/acme/shop',
      'file:///etc/passwd',
      'not a url',
    ]) {
      expect(() => advertisementUrl(url), url).toThrow(/repository URL/);
    }
  });

  it('reads no more than its bound of an answer, and follows no redirect', async () => {
    const huge = new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1 << 20).fill(0x30)) }));
    await expect(branchHead({ repoUrl: 'https://example.test/a/b', ref: 'main', fetch: async () => huge })).rejects.toThrow(
      /over 8388608 bytes/,
    );
    const redirect: typeof fetch = async (_url, init) => {
      expect(init?.redirect).toBe('manual');
      return new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } });
    };
    await expect(branchHead({ repoUrl: 'https://example.test/a/b', ref: 'main', token: 't0ken', fetch: redirect })).rejects.toThrow(
      /answered 302/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { createSourceHeads, trackedBranch } from './source-head.ts';

const codehost = (buildOnPush: boolean | undefined, repoRef: string) => ({
  source: 'codehost',
  sourceConfig: { repoUrl: 'https://git.example/acme/shop', ...(buildOnPush === undefined ? {} : { buildOnPush }) },
  sourceRevisionConfig: { repoRef },
});

describe('trackedBranch', () => {
  it.each([
    ['a build-on-push branch', codehost(true, 'main'), { repoUrl: 'https://git.example/acme/shop', ref: 'main' }],
    [
      'a build-on-push full ref',
      codehost(true, 'refs/heads/release'),
      { repoUrl: 'https://git.example/acme/shop', ref: 'refs/heads/release' },
    ],
    ['a commit: nothing moves', codehost(true, 'a'.repeat(40)), undefined],
    ['build_on_push off', codehost(false, 'main'), undefined],
    ['build_on_push unset', codehost(undefined, 'main'), undefined],
    [
      'an image source',
      { source: 'external_docker', sourceConfig: { buildOnPush: true }, sourceRevisionConfig: { repoRef: 'main' } },
      undefined,
    ],
  ])('%s', (_, spec, expected) => {
    expect(trackedBranch(spec)).toEqual(expected);
  });
});

describe('createSourceHeads', () => {
  it('asks once per interval per repository, branch and credential; a failure is asked again', async () => {
    const asked: string[] = [];
    let fail = false;
    const heads = createSourceHeads({
      intervalMs: 60_000,
      resolve: async (input) => {
        asked.push(`${input.ref}:${input.token ?? '-'}`);
        if (fail) throw new Error('unreachable');
        return 'c'.repeat(40);
      },
    });
    const repoUrl = 'https://git.example/acme/shop';
    await heads.head({ repoUrl, ref: 'main', token: 't1' });
    await heads.head({ repoUrl, ref: 'main', token: 't1' });
    await heads.head({ repoUrl, ref: 'main', token: 't2' });
    await heads.head({ repoUrl, ref: 'main' });
    expect(asked).toEqual(['main:t1', 'main:t2', 'main:-']);
    fail = true;
    await expect(heads.head({ repoUrl, ref: 'dev' })).rejects.toThrow('unreachable');
    await expect(heads.head({ repoUrl, ref: 'dev' })).rejects.toThrow('unreachable');
    expect(asked.filter((a) => a.startsWith('dev'))).toHaveLength(2);
  });

  it("asks again within the interval once a code host's delivery marks the Deployment anew", async () => {
    let asked = 0;
    const heads = createSourceHeads({ intervalMs: 60_000, resolve: async () => String(++asked).padStart(40, '0') });
    const repoUrl = 'https://git.example/acme/shop';
    await heads.head({ repoUrl, ref: 'main' });
    await heads.head({ repoUrl, ref: 'main', fresh: 'delivery-1' });
    await heads.head({ repoUrl, ref: 'main', fresh: 'delivery-1' });
    expect(await heads.head({ repoUrl, ref: 'main', fresh: 'delivery-2' })).toBe('3'.padStart(40, '0'));
    expect(asked).toBe(3);
  });
});

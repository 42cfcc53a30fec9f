// The node suite's two slots (test/node/locks.ts): a file that takes turns holds `turns`, or `beside`
// once `turns` is held and `beside` free; a lock left by a holder that died is taken over. No node: the
// locks are directories in a temporary directory.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeLock } from '../test/node/locks.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'berth-node-locks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const held = (name: string) => existsSync(join(dir, `${name}.lock`));

describe("the node suite's locks", () => {
  it('give a file that takes turns the first free slot, and free it on release', async () => {
    const first = await takeLock(dir, ['turns', 'beside'], 'a.test.ts', 5_000);
    expect(first.name).toBe('turns');
    expect([held('turns'), held('beside')]).toEqual([true, false]);
    const second = await takeLock(dir, ['turns', 'beside'], 'b.test.ts', 5_000);
    expect(second.name).toBe('beside');
    expect([held('turns'), held('beside')]).toEqual([true, true]);
    first.release();
    expect([held('turns'), held('beside')]).toEqual([false, true]);
    second.release();
    expect(held('beside')).toBe(false);
  });

  it('keep a third file waiting while both slots are held', async () => {
    const releases = [await takeLock(dir, ['turns'], 'a.test.ts', 5_000), await takeLock(dir, ['beside'], 'b.test.ts', 5_000)];
    await expect(takeLock(dir, ['turns', 'beside'], 'c.test.ts', 1_500)).rejects.toThrow(/turns or beside/);
    releases.forEach((lock) => lock.release());
  });

  it('take over a lock whose holder died', async () => {
    mkdirSync(join(dir, 'turns.lock'));
    writeFileSync(join(dir, 'turns.lock', 'pid'), '999999999');
    const lock = await takeLock(dir, ['turns'], 'a.test.ts', 5_000);
    expect(held('turns')).toBe(true);
    lock.release();
  });
});

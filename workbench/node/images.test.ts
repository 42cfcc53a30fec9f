// An image's cache key is its content: the same in a checkout and in a fresh clone of it.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../cache-dir.ts';
import { contentKey } from './images.ts';

describe('contentKey', () => {
  it("leaves out Python's byte-code caches, which a checkout has and a clone lacks", async () => {
    const before = await contentKey('durable-agent-server', {});
    const cache = join(repoRoot, 'src/agent-server/__pycache__/key-probe');
    mkdirSync(cache, { recursive: true });
    try {
      writeFileSync(join(cache, 'module.cpython-313.pyc'), 'compiled');
      expect(await contentKey('durable-agent-server', {})).toBe(before);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

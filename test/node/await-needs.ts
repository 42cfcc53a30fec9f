// Set up before each file of the node suite (vitest.node.config.ts): before the file's own hooks, waits
// for the node's parts and the builds it needs (./file-needs.ts), then for its locks (./locks.ts), which
// it leaves after its own hooks. A test that fails has the node's state printed beside it. A part that failed fails the file at once with its error.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import { Builds } from '../../workbench/builds.ts';
import { nodeParts } from '../../workbench/node/parts.ts';
import { namedOnlyParts, needsOf, runsBeside } from './file-needs.ts';
import { slotVariable, takeLock, type LockName } from './locks.ts';
import { awaitParts } from '../../workbench/node/part-markers.ts';
import { reportNodeState } from './failure-report.ts';

/** Long enough for the last part of a fresh machine's builds; a warm machine has them in a minute. */
const waitMs = 60 * 60_000;

// A setup file runs again before each test file, in that file's context.
const testFile = expect.getState().testPath ?? '';

/** The locks this file holds, the last taken first. */
const releases: (() => void)[] = [];

beforeAll(async () => {
  const needs = needsOf(testFile) ?? { parts: nodeParts.map((part) => part.name).filter((name) => !namedOnlyParts.includes(name)) };
  await awaitParts(inject('nodePartsDir'), needs.parts, waitMs);
  if (needs.builds?.length) {
    const builds = new Builds({ logDir: join(inject('nodePartsDir'), 'builds') });
    await Promise.all(needs.builds.map((name) => builds.bin(name)));
  }
  // Each entry is one lock to hold, any of its names.
  const locks: LockName[][] = runsBeside(testFile) ? [['beside']] : needs.alone ? [['turns'], ['beside']] : [['turns', 'beside']];
  const held = [];
  for (const names of locks) held.push(await takeLock(inject('nodePartsDir'), names, testFile, waitMs));
  for (const lock of held) releases.unshift(lock.release);
  process.env[slotVariable] = held[0]!.name;
}, 3 * waitMs);

// Registered before the file's own: after hooks run in reverse order, so this one runs last.
afterAll(() => releases.forEach((release) => release()));

// Registered before the file's own: runs after them, while the file's namespaces still stand.
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await reportNodeState(task.name);
});

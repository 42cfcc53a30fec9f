// Set up before each file of the node suite (vitest.node.config.ts): before the file's own hooks, waits
// for the node's parts and the builds it needs (./file-needs.ts). A part that failed fails the file at
// once with its error.
import { join } from 'node:path';
import { beforeAll, expect, inject } from 'vitest';
import { Builds } from '../../workbench/builds.ts';
import { nodeParts } from '../../workbench/node/parts.ts';
import { needsOf } from './file-needs.ts';
import { awaitParts } from '../../workbench/node/part-markers.ts';

/** Long enough for the last part of a fresh machine's builds; a warm machine has them in a minute. */
const waitMs = 60 * 60_000;

// A setup file runs again before each test file, in that file's context.
const testFile = expect.getState().testPath ?? '';

beforeAll(async () => {
  const needs = needsOf(testFile) ?? { parts: nodeParts.map((part) => part.name) };
  await awaitParts(inject('nodePartsDir'), needs.parts, waitMs);
  if (needs.builds?.length) {
    const builds = new Builds({ logDir: join(inject('nodePartsDir'), 'builds') });
    await Promise.all(needs.builds.map((name) => builds.bin(name)));
  }
}, waitMs);

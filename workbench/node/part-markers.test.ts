// The node's parts handed from the process that runs the node to others (./part-markers.ts): with real
// files in a temporary directory, and parts that start or fail when the test says.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { awaitParts, recordParts } from './part-markers.ts';
import type { NodePartName } from './parts.ts';

describe("the node's parts handed to the files", () => {
  let dir: string | undefined;
  afterEach(() => rmSync(dir!, { recursive: true, force: true }));

  it('wait for the parts named, pass once they run, and fail at once with the error of one that failed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-parts-'));
    let startTls!: () => void;
    let failBuilds!: (error: Error) => void;
    const parts = new Map<NodePartName, Promise<void>>([
      ['TLS', new Promise<void>((resolve) => (startTls = resolve))],
      ['builds', new Promise<void>((_, reject) => (failBuilds = reject))],
      ['databases', Promise.resolve()],
    ]);
    recordParts(parts, dir);
    let tlsUp = false;
    const tls = awaitParts(dir, ['databases', 'TLS'], 10_000, 20).then(() => (tlsUp = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tlsUp).toBe(false);
    startTls();
    await tls;

    const builds = awaitParts(dir, ['builds'], 10_000, 20);
    failBuilds(new Error("the node's builds did not start: BuildKit exited"));
    await expect(builds).rejects.toThrow("the node's builds did not start: BuildKit exited");
    await expect(awaitParts(dir, ['resource metrics'], 300, 20)).rejects.toThrow(
      "timed out after 300 ms waiting for the node's resource metrics",
    );
  });
});

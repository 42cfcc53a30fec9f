// The node's parts told from the process that runs the node to others through marker files: the node
// suite's global setup waits for the node's core only and records each part here as it comes up or
// fails; each file waits for the parts it needs (test/node/file-needs.ts) before its own hooks run. On a
// fresh machine the files that need only the core run while the other parts still build.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodePartName } from './parts.ts';
import { eventually, GiveUp } from '../support/poll.ts';

const marker = (dir: string, part: NodePartName, outcome: 'ready' | 'failed') => join(dir, `${part.replaceAll(' ', '-')}.${outcome}`);

/** Writes `<part>.ready` into `dir` as each part runs, `<part>.failed` (its error) as one fails. */
export function recordParts(parts: ReadonlyMap<NodePartName, Promise<void>>, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const [part, running] of parts) {
    running.then(
      () => writeFileSync(marker(dir, part, 'ready'), ''),
      (error: unknown) => writeFileSync(marker(dir, part, 'failed'), (error as Error).message),
    );
  }
}

/** Resolves once every part named runs; rejects at once with the error of one that failed. */
export async function awaitParts(dir: string, parts: readonly NodePartName[], timeoutMs: number, intervalMs = 1000): Promise<void> {
  await eventually(
    () => {
      for (const part of parts) {
        const failed = marker(dir, part, 'failed');
        if (existsSync(failed)) throw new GiveUp(readFileSync(failed, 'utf8'));
      }
      return parts.every((part) => existsSync(marker(dir, part, 'ready')));
    },
    timeoutMs,
    `the node's ${parts.join(', ')}`,
    intervalMs,
  );
}

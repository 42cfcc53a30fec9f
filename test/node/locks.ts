// The node suite runs two files at once (vitest.node.config.ts): the files that run beside the others
// (./file-needs.ts, besideFiles) and the others, which take turns. A file takes its locks before its own
// hooks run and leaves them after (./await-needs.ts): one that takes turns takes `turns`; one that runs
// beside the others takes `beside`; one that needs the node to itself takes both. A lock is a directory
// made atomically in the suite's parts directory; one whose holder died without leaving it (a crash)
// is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../../workbench/node/host.ts';
import { eventually } from '../../workbench/support/poll.ts';

export type LockName = 'turns' | 'beside';

/** Waits until this process holds lock `name` in `dir` (at most `timeoutMs`); resolves with its release. */
export async function takeLock(dir: string, name: LockName, holder: string, timeoutMs: number): Promise<() => void> {
  const lock = join(dir, `${name}.lock`);
  await eventually(() => tryTake(lock, holder), timeoutMs, `the node suite's lock ${name}`, 1000);
  return () => rmSync(lock, { recursive: true, force: true });
}

function tryTake(lock: string, holder: string): boolean {
  try {
    mkdirSync(lock);
  } catch {
    if (abandoned(lock)) rmSync(lock, { recursive: true, force: true });
    return false;
  }
  writeFileSync(join(lock, 'holder'), holder);
  writeFileSync(join(lock, 'pid'), String(process.pid));
  return true;
}

/** Whether the lock's holder is gone; not while it is between making the lock and writing its pid. */
function abandoned(lock: string): boolean {
  try {
    return !processAlive(Number(readFileSync(join(lock, 'pid'), 'utf8')));
  } catch {
    return false;
  }
}

// The node suite runs two files at once (vitest.node.config.ts) in two slots, `beside` and `turns`. The
// files that run beside the others (./file-needs.ts, besideFiles) take `beside`; the others take `turns`,
// or `beside` once no file that runs beside them is left to hold it (its worker then runs one of theirs),
// so that the suite's last files run two at a time; one that needs the node to itself takes both. A file
// takes its lock before its own hooks run and leaves it after (./await-needs.ts). A lock is a directory
// made atomically in the suite's parts directory; one whose holder died without leaving it (a crash)
// is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../../workbench/node/host.ts';
import { eventually } from '../../workbench/support/poll.ts';

export type LockName = 'turns' | 'beside';

export interface HeldLock {
  name: LockName;
  release(): void;
}

/** Waits until this process holds one of the locks `names` in `dir`, the first free in that order (at most
 * `timeoutMs`); resolves with the one it holds. */
export async function takeLock(dir: string, names: readonly LockName[], holder: string, timeoutMs: number): Promise<HeldLock> {
  const name = await eventually(
    () => names.find((candidate) => tryTake(join(dir, `${candidate}.lock`), holder)),
    timeoutMs,
    `the node suite's lock ${names.join(' or ')}`,
    1000,
  );
  return { name, release: () => rmSync(join(dir, `${name}.lock`), { recursive: true, force: true }) };
}

/** Where the running file's setup records the slot it holds (`beside` or `turns`; `turns` for a file
 * that holds both): what it may use that the other slot's file uses too has one of each slot's
 * (the registries for pushed images, ./support.ts). */
export const slotVariable = 'BERTH_NODE_SUITE_SLOT';

/** The slot the running file holds. */
export function heldSlot(): LockName {
  return process.env[slotVariable] === 'beside' ? 'beside' : 'turns';
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

// The stop of a berth process: every step undone, last first, on SIGINT, SIGTERM and SIGHUP, the last
// with its terminal gone (npm start in a terminal window that closes).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'berth-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A process that logs to stdout all the time and records each step of its stop in `record`. */
const script = (record: string) => `
  import { appendFileSync } from 'node:fs';
  import { stopOnSignals } from ${JSON.stringify(join(import.meta.dirname, 'process-lifecycle.ts'))};
  import { createLogger } from ${JSON.stringify(join(import.meta.dirname, '../runtime/logger.ts'))};
  const logger = createLogger({ level: 'info' });
  const stopping = stopOnSignals(logger);
  for (const name of ['first', 'second']) stopping.add(async () => {
    logger.info({ name }, 'undoing');
    appendFileSync(${JSON.stringify(record)}, name + '\\n');
  });
  setInterval(() => logger.info('working'), 50);
  console.log('ready');
`;

describe('stopOnSignals', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('undoes every step, last first, on %s', async (signal) => {
    const record = join(dir, `${signal}.txt`);
    const child = spawn(process.execPath, ['--input-type=module', '-e', script(record)], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((ready) => child.stdout.once('data', () => ready()));
    // A closed terminal: nobody reads the process's output any more.
    if (signal === 'SIGHUP') {
      child.stdout.destroy();
      child.stderr.destroy();
    }
    child.kill(signal);
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(readFileSync(record, 'utf8')).toBe('second\nfirst\n');
  });
});

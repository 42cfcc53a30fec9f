// The reference's deploy client, langgraph-cli, as a user installs it: from PyPI, at a pinned version,
// in a virtual environment kept in Berth's cache (made once per version, then reused).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { berthCacheDir } from '../../src/dev/cache-dir.ts';

const run = promisify(execFile);

/** The client version the suite drives. */
export const langgraphCliVersion = '0.4.40';

/** The `langgraph` command, installing it first when this version is not in the cache. */
export async function langgraphCli(): Promise<string> {
  const dir = join(berthCacheDir(), 'langgraph-cli', langgraphCliVersion);
  const command = join(dir, 'bin', 'langgraph');
  if (existsSync(join(dir, '.complete'))) return command;
  // A virtual environment names its own path in its scripts: it is made where it stays, and marked
  // complete last, so an interrupted install is made again.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(berthCacheDir(), 'langgraph-cli'), { recursive: true });
  await run('python3', ['-m', 'venv', dir]);
  await run(join(dir, 'bin', 'pip'), ['install', '--quiet', `langgraph-cli==${langgraphCliVersion}`], { maxBuffer: 16 << 20 });
  writeFileSync(join(dir, '.complete'), '');
  return command;
}

// The reference's deploy client, langgraph-cli, as a user installs it: from PyPI, at a pinned version,
// in a virtual environment kept in Berth's cache (made once per version, then reused).
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { berthCacheDir } from '../cache-dir.ts';

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

/** A copy of the agent project the suites and benchmarks deploy (a `langgraph.json` and one graph), made
 * in `parent`: its path. */
export function copyAgentProject(parent: string): string {
  const project = join(parent, 'agent-project');
  cpSync(join(import.meta.dirname, 'agent-project'), project, { recursive: true });
  return project;
}

/** What a user of the client sets: the control plane's address (Berth's API under /api-host), the API
 * key and the organization; HOME is the user's own, so no setting of this machine's user leaks in. */
export interface ClientUser {
  api: string;
  key: string;
  organization: string;
  home: string;
}

function clientEnv(user: ClientUser): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: user.home,
    LANGGRAPH_HOST_URL: user.api,
    LANGGRAPH_HOST_API_KEY: user.key,
    LANGSMITH_TENANT_ID: user.organization,
    // The client reports each use to a third party unless told not to: the suites send nothing off this machine.
    LANGGRAPH_CLI_NO_ANALYTICS: '1',
  };
}

/** The reference client, run in `project` as a user runs it: its output, or its failure with the output. */
export async function runLanggraph(user: ClientUser, project: string, args: string[]): Promise<string> {
  const env = clientEnv(user);
  const { stdout, stderr } = await run(await langgraphCli(), args, { cwd: project, env, timeout: 900_000, maxBuffer: 16 << 20 }).catch(
    (error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`langgraph ${args.join(' ')} failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    },
  );
  return `${stdout}${stderr}`;
}

/** A client command that runs until stopped (`deploy logs --follow`): what it printed so far, and a stop
 * as a user's Ctrl-C. */
export async function startLanggraph(
  user: ClientUser,
  project: string,
  args: string[],
): Promise<{ output(): string; stop(): Promise<void> }> {
  const child = spawn(await langgraphCli(), args, { cwd: project, env: clientEnv(user), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => output,
    async stop() {
      child.kill('SIGINT');
      await exited;
    },
  };
}

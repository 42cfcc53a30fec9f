// The processes that build binaries and images for the local cluster, and their end. Each runs in a
// process group of its own under a shell that, on SIGTERM, passes it to the whole group: the compiles,
// debootstrap and chroots under a script stop with it, and the scripts' EXIT traps undo their mounts.
// The group gets that SIGTERM when stopBuildProcesses() is called, and when this process ends in any
// way, SIGKILL included (the kernel's parent-death signal, set by util-linux's setpriv): a build never
// outlives the Berth that asked for it.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';

export interface BuildProcessOptions {
  /** Runs under `nice 10`: beside the control plane's build, it takes what that one leaves idle. */
  lowPriority?: boolean;
  /** Where its stderr goes; without one, the error of a failed build ends with its last lines. */
  logFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** The shell around a build: it runs the command in the background so that a SIGTERM is handled at
 * once (its trap), not after the command, and sends the signal to the whole group. It ignores TERM
 * itself before it sends it: no second signal can end it half-way, before the group has its own. */
const groupShell = 'trap "trap \'\' TERM; kill -TERM 0; exit 143" TERM; "$@" & wait $!';

const running = new Map<number, Promise<unknown>>();

/** Runs a build command and resolves with its stdout; rejects when it fails or is stopped. */
export function runBuildProcess(command: readonly string[], options: BuildProcessOptions = {}): Promise<string> {
  const argv = [...(options.lowPriority ? ['nice', '-n', '10'] : []), ...command];
  const child = spawn('setpriv', ['--pdeathsig', 'TERM', '--', 'sh', '-c', groupShell, 'build', ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: options.env ?? process.env,
  });
  let stdout = '';
  let stderrTail = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  if (log) child.stderr.pipe(log);
  else child.stderr.on('data', (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4096)));
  // 'close', not 'exit': the process may exit before its last line has been read from the pipe.
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const done = ended.then(async ({ code, signal }) => {
    // Its log is whole before anyone is told to read it.
    if (log) await finished(log);
    if (code === 0) return stdout;
    const how = signal === 'SIGTERM' || code === 143 ? 'stopped' : (signal ?? `exit code ${code}`);
    const tail = stderrTail.trim().split('\n').slice(-10).join('\n');
    throw new Error(`${command.join(' ')} failed (${how})${options.logFile ? `: see ${options.logFile}` : tail ? `:\n${tail}` : ''}`);
  });
  const pid = child.pid;
  if (pid !== undefined)
    running.set(
      pid,
      done.catch(() => {}).finally(() => running.delete(pid)),
    );
  return done;
}

/** Stops every build under way and resolves once each has ended (its clean-up done). The signal goes
 * to the shell around each build alone, which passes it to its group: every process there gets one
 * SIGTERM. A second one would end a script in the middle of its EXIT trap, its mounts still there. */
export async function stopBuildProcesses(): Promise<void> {
  for (const pid of running.keys()) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  await Promise.all(running.values());
}

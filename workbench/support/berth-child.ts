// Berth in a child process, as users run it (`node <Berth's flags> main run ...`): the one way the suites
// and benchmarks start it. Each caller adds what it keeps of the process (the suites its parsed log
// lines, the benchmarks a log file, a memory cgroup and its metrics).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { nodeFlags, processEnvironment } from '../../src/cli/node-flags.ts';

export interface BerthChildOptions {
  /** The entry: `src/main.ts` (the sources) or `dist/main.js` (what the image runs). */
  script: string;
  args: string[];
  /** Settings on top of this process's environment and Berth's own process settings. */
  env?: Record<string, string>;
  /** More Node or V8 flags, after Berth's own. */
  nodeFlags?: string[];
  /** Wraps the command line, e.g. to run it in a cgroup. */
  wrap?: (argv: string[]) => string[];
  /** Every line of stdout and of stderr, as it was written. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
}

export interface BerthChild {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly pid: number;
  /** Resolves with the exit code (null after a signal). */
  readonly exited: Promise<number | null>;
  running(): boolean;
  /** Sends the signal unless the process is gone, then waits for its exit. */
  end(signal: 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
}

/** Where a run's addresses come from: the OS (port 0, read from the log) or the caller. */
export interface RunArgsOptions {
  operatorNamespace: string;
  watchNamespaces: string[];
  leaderElect?: boolean;
  components?: string;
  facadeAddress?: string;
  probeAddress?: string;
}

/** The arguments of `berth run` on loopback, scoped to a set of namespaces. */
export function runArgs(options: RunArgsOptions): string[] {
  return [
    'run',
    '--namespace',
    options.operatorNamespace,
    '--facade-address',
    options.facadeAddress ?? '127.0.0.1:0',
    '--probe-address',
    options.probeAddress ?? '127.0.0.1:0',
    '--leader-elect',
    String(options.leaderElect ?? false),
    '--watch-namespaces',
    options.watchNamespaces.join(','),
    ...(options.components ? ['--components', options.components] : []),
  ];
}

export function startBerthChild(options: BerthChildOptions): BerthChild {
  const argv = [process.execPath, ...nodeFlags, ...(options.nodeFlags ?? []), options.script, ...options.args];
  const [command, ...rest] = options.wrap ? options.wrap(argv) : argv;
  const child = spawn(command!, rest, {
    env: { ...process.env, ...processEnvironment, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stdout }).on('line', (line) => options.onLine?.(line, 'stdout'));
  createInterface({ input: child.stderr }).on('line', (line) => options.onLine?.(line, 'stderr'));
  // A suite or benchmark that dies or is interrupted takes its Berth processes with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.removeListener('exit', killOnExit);
      resolve(code);
    }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    pid: child.pid ?? -1,
    exited,
    running,
    async end(signal) {
      if (running()) child.kill(signal);
      return exited;
    },
  };
}

// Berth as users run it: `node src/main.ts run ...` in a child process against a kubeconfig, its JSON
// log lines collected, its ports read from those lines, stopped with SIGTERM or killed with SIGKILL.
// The reliability suite kills and restarts these processes; every one still running when the test
// file ends is killed, so no Berth outlives its suite.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { eventually } from './cluster.ts';
import { nodeFlags, processEnvironment } from '../../src/cli/node-flags.ts';

const main = join(import.meta.dirname, '../../src/main.ts');
const probeLine = 'serving /healthz, /readyz and /metrics';
const facadeLine = 'serving the HTTP API';

export interface BerthProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly pid: number;
  /** Every stdout line, parsed as JSON when it is JSON ({ text } otherwise). */
  readonly lines: Array<Record<string, unknown>>;
  /** Every stdout and stderr line as it was written: what a log collector would keep. */
  readonly rawOutput: string[];
  readonly exited: Promise<number | null>;
  /** Resolves with the probe port once the process has logged it. */
  probePort(timeoutMs?: number): Promise<number>;
  /** Resolves with the facade port once the process has logged it. */
  facadePort(timeoutMs?: number): Promise<number>;
  /** Waits for a log line with this `msg`. */
  logged(message: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILL: no drain, no lease release, nothing flushed. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<BerthProcess>();
// Registered when a test file imports this module (collection time), so the hook belongs to the file;
// the exit handler is the backstop for a worker that ends without running hooks.
afterAll(async () => {
  await Promise.all([...running].map((berth) => berth.kill()));
});
process.once('exit', () => {
  for (const berth of running) berth.child.kill('SIGKILL');
});

/** Every line any Berth process of this test file wrote, including those already gone. */
export const allBerthOutput: string[] = [];

export function spawnBerth(kubeconfigPath: string, args: string[], env: Record<string, string> = {}): BerthProcess {
  const child = spawn(process.execPath, [...nodeFlags, main, ...args], {
    // At Berth's default level, whatever the test process logs at (vitest.config.ts quiets that one).
    env: { ...process.env, ...processEnvironment, BERTH_LOG_LEVEL: 'info', KUBECONFIG: kubeconfigPath, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const rawOutput: string[] = [];
  const keep = (line: string) => {
    rawOutput.push(line);
    allBerthOutput.push(line);
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    keep(line);
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ text: line });
    }
  });
  createInterface({ input: child.stderr }).on('line', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const logged = (message: string, timeoutMs = 60_000) =>
    eventually(async () => lines.find((line) => line.msg === message), timeoutMs, `"${message}" in the log of Berth ${child.pid}`);
  const portOf = async (message: string, timeoutMs?: number) => (await logged(message, timeoutMs)).port as number;

  const berth: BerthProcess = {
    child,
    pid: child.pid ?? -1,
    lines,
    rawOutput,
    exited,
    probePort: (timeoutMs) => portOf(probeLine, timeoutMs),
    facadePort: (timeoutMs) => portOf(facadeLine, timeoutMs),
    logged,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      running.delete(berth);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      running.delete(berth);
      return code;
    },
  };
  running.add(berth);
  void exited.then(() => running.delete(berth));
  return berth;
}

/** The arguments of `berth run` for a test: loopback ports chosen by the OS, a scoped set of namespaces. */
export function runArgs(options: {
  operatorNamespace: string;
  watchNamespaces: string[];
  leaderElect?: boolean;
  components?: string;
}): string[] {
  return [
    'run',
    '--namespace',
    options.operatorNamespace,
    '--facade-address',
    '127.0.0.1:0',
    '--probe-address',
    '127.0.0.1:0',
    '--leader-elect',
    String(options.leaderElect ?? false),
    '--watch-namespaces',
    options.watchNamespaces.join(','),
    ...(options.components ? ['--components', options.components] : []),
  ];
}

/** True once /readyz answers 200. */
export async function waitReady(berth: BerthProcess, timeoutMs = 60_000): Promise<number> {
  const port = await berth.probePort(timeoutMs);
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
    timeoutMs,
    `/readyz of Berth ${berth.pid}`,
  );
  return port;
}

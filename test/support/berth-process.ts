// Berth as users run it: `node src/main.ts run ...` in a child process against a kubeconfig, its JSON
// log lines collected, its ports read from those lines, stopped with SIGTERM or killed with SIGKILL.
// The reliability suite kills and restarts these processes; every one still running when the test
// file ends is killed, so no Berth outlives its suite.
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { startBerthChild, type BerthChild } from '../../workbench/support/berth-child.ts';
import { eventually } from '../../workbench/support/poll.ts';

export { runArgs } from '../../workbench/support/berth-child.ts';

const main = join(import.meta.dirname, '../../src/main.ts');
const probeLine = 'serving /healthz, /readyz and /metrics';
const facadeLine = 'serving the HTTP API';

export interface BerthProcess {
  readonly child: BerthChild['child'];
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
// Registered when a test file imports this module (collection time), so the hook belongs to the file.
afterAll(async () => {
  await Promise.all([...running].map((berth) => berth.kill()));
});

/** Every line any Berth process of this test file wrote, including those already gone. */
export const allBerthOutput: string[] = [];

export function spawnBerth(kubeconfigPath: string, args: string[], env: Record<string, string> = {}): BerthProcess {
  const lines: Array<Record<string, unknown>> = [];
  const rawOutput: string[] = [];
  const berthChild = startBerthChild({
    script: main,
    args,
    // At Berth's default level, whatever the test process logs at (vitest.config.ts quiets that one).
    env: { BERTH_LOG_LEVEL: 'info', KUBECONFIG: kubeconfigPath, ...env },
    onLine(line, stream) {
      rawOutput.push(line);
      allBerthOutput.push(line);
      if (stream === 'stderr') return;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ text: line });
      }
    },
  });
  const { child, exited } = berthChild;

  const logged = (message: string, timeoutMs = 60_000) =>
    eventually(async () => lines.find((line) => line.msg === message), timeoutMs, `"${message}" in the log of Berth ${child.pid}`);
  const portOf = async (message: string, timeoutMs?: number) => (await logged(message, timeoutMs)).port as number;

  const berth: BerthProcess = {
    child,
    pid: berthChild.pid,
    lines,
    rawOutput,
    exited,
    probePort: (timeoutMs) => portOf(probeLine, timeoutMs),
    facadePort: (timeoutMs) => portOf(facadeLine, timeoutMs),
    logged,
    async kill() {
      await berthChild.end('SIGKILL');
      running.delete(berth);
    },
    async stop() {
      const code = await berthChild.end('SIGTERM');
      running.delete(berth);
      return code;
    },
  };
  running.add(berth);
  void exited.then(() => running.delete(berth));
  return berth;
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

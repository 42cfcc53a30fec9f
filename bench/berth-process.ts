// Berth as users run it: `node --optimize-for-size dist/main.js run` in its own process against the
// benchmark's cluster, so its memory, CPU and API traffic are its own. Ports are read from its JSON log lines.
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { freePort } from '../workbench/controlplane.ts';
import { runArgs, startBerthChild } from '../workbench/support/berth-child.ts';
import { eventually, GiveUp } from '../workbench/support/poll.ts';
import { createMemoryCgroup } from './memory-cgroup.ts';
import { parseMetrics, type Sample } from '../workbench/support/berth-metrics.ts';

export interface BerthProcessOptions {
  kubeconfigPath: string;
  operatorNamespace: string;
  watchNamespaces: string[];
  components: Array<'controller' | 'facade'>;
  /** Where its log lines go. */
  logFile: string;
  /** Directory for `node --cpu-prof` output; no profile when absent. */
  cpuProfileDir?: string;
  /** Runs bench/tuned-controller.ts with this many parallel reconciles instead of `berth run`. */
  reconcileConcurrency?: number;
  /** More settings, as the BERTH_* variables every flag has. */
  env?: Record<string, string>;
  /** Runs the process in a memory cgroup of this limit (bench/memory-cgroup.ts), as a pod's limit would. */
  memoryLimitBytes?: number;
  /** More Node or V8 flags, after Berth's own and BENCH_BERTH_NODE_FLAGS. */
  nodeFlags?: string[];
}

export interface BerthProcess {
  pid: number;
  metricsUrl: string;
  /** The memory limit the process runs under; undefined when it could not be set (no root, no controller). */
  memoryLimitBytes?: number;
  facadeUrl?: string;
  metrics(): Promise<Sample[]>;
  /** Resident set size now and at its peak, in bytes (Linux /proc). */
  memory(): { rss: number; peakRss: number };
  /** SIGTERM, then wait for the exit (a graceful stop writes the CPU profile). */
  stop(): Promise<number | null>;
}

// The JavaScript the image runs (`npm run build`, which bench/run.ts runs first), not the sources.
const mainScript = resolve(import.meta.dirname, '../dist/main.js');
const tunedScript = resolve(import.meta.dirname, 'tuned-controller.ts');

export async function startBerthProcess(options: BerthProcessOptions): Promise<BerthProcess> {
  // Ports chosen here rather than read from log lines, which a quieter BERTH_LOG_LEVEL would hide.
  const probePort = await freePort();
  const facadePort = await freePort();
  // BENCH_BERTH_NODE_FLAGS: more V8 or Node flags for Berth's process alone, e.g. --trace-gc (its lines go to the log file).
  const extraFlags = (process.env.BENCH_BERTH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const cgroup = options.memoryLimitBytes
    ? createMemoryCgroup(`berth-bench-${process.pid}-${probePort}`, options.memoryLimitBytes)
    : undefined;
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile);
  const berth = startBerthChild({
    script: options.reconcileConcurrency ? tunedScript : mainScript,
    args: options.reconcileConcurrency
      ? [options.watchNamespaces.join(',')]
      : runArgs({
          operatorNamespace: options.operatorNamespace,
          watchNamespaces: options.watchNamespaces,
          components: options.components.join(','),
          facadeAddress: `127.0.0.1:${facadePort}`,
          probeAddress: `127.0.0.1:${probePort}`,
        }),
    env: {
      KUBECONFIG: options.kubeconfigPath,
      ...options.env,
      ...(options.reconcileConcurrency
        ? { BENCH_RECONCILE_CONCURRENCY: String(options.reconcileConcurrency), BENCH_PROBE_PORT: String(probePort) }
        : {}),
    },
    nodeFlags: [
      ...extraFlags,
      ...(options.nodeFlags ?? []),
      ...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
    ],
    ...(cgroup ? { wrap: cgroup.wrap } : {}),
    onLine: (line) => log.write(`${line}\n`),
  });
  void berth.exited.then(() => cgroup?.remove());
  const wantsFacade = options.components.includes('facade');
  const answers = async (url: string) => {
    if (!berth.running()) throw new GiveUp(`berth exited with ${await berth.exited} before serving; see ${options.logFile}`);
    return (await fetch(url).catch(() => undefined))?.ok;
  };
  // Loading and type-stripping every module takes seconds, minutes on a starved machine.
  await eventually(() => answers(`http://127.0.0.1:${probePort}/readyz`), 300_000, 'berth /readyz', 200);
  if (wantsFacade) await eventually(() => answers(`http://127.0.0.1:${facadePort}/openapi.json`), 300_000, 'the HTTP API', 200);
  const metricsUrl = `http://127.0.0.1:${probePort}/metrics`;
  return {
    pid: berth.pid,
    metricsUrl,
    ...(cgroup ? { memoryLimitBytes: options.memoryLimitBytes } : {}),
    ...(wantsFacade ? { facadeUrl: `http://127.0.0.1:${facadePort}` } : {}),
    async metrics() {
      return parseMetrics(await (await fetch(metricsUrl)).text());
    },
    memory() {
      const status = readFileSync(`/proc/${berth.pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
      return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
    },
    async stop() {
      const code = await berth.end('SIGTERM');
      await new Promise<void>((done) => log.end(done));
      return code;
    },
  };
}

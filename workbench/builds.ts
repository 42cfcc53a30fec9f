// The local cluster's builds, run without blocking so that each part comes up as soon as its build is
// done. Each is a script (scripts/build-<name>.sh) whose result is cached by content
// (scripts/lib/cached-build.sh): a cached build answers at once, so a warm start waits for none. At
// most two run at a time, in the order asked for; the control plane's runs at normal priority and every
// other at a lower one (nice 10), so that on two cores they take what the control plane's compile
// leaves idle (its downloads and links) rather than slowing it. A build's output goes to its own log
// file; its progress is its state and its time against what the same build took from nothing.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runBuildProcess, stopBuildProcesses } from './build-process.ts';
import { buildScript, type BuildName } from './cache-dir.ts';

export type { BuildName };

/** What each build took from nothing on 2 cores, in minutes, beside the others of a cold start
 * (BENCHMARKS.md, "Cold start"): the yardstick of a progress line. */
export const coldBuildMinutes: Record<BuildName, number> = {
  controlplane: 15,
  node: 5,
  gateway: 10,
  'network-policy': 3,
  'metrics-server': 4,
  'cert-manager': 4,
  keda: 6,
  'victoria-metrics': 1,
  'http-add-on': 3,
  buildkit: 3,
  tools: 4,
  flux: 5,
  versitygw: 1,
  cnpg: 3,
  'local-path': 1,
  'barman-cloud': 2,
};

export type BuildState =
  | { name: BuildName; state: 'waiting' }
  | { name: BuildName; state: 'building'; startedAt: number }
  | { name: BuildName; state: 'built'; bin: string; seconds: number }
  | { name: BuildName; state: 'failed'; error: string };

export interface BuildsOptions {
  /** Where each build's output goes (build-<name>.log). */
  logDir: string;
  /** How many run at once (default 2). */
  concurrency?: number;
}

export class Builds {
  private readonly states = new Map<BuildName, BuildState>();
  private readonly results = new Map<BuildName, Promise<string>>();
  private readonly queue: Array<() => void> = [];
  private running = 0;
  private cancelled = false;

  private readonly options: BuildsOptions;

  constructor(options: BuildsOptions) {
    this.options = options;
    mkdirSync(options.logDir, { recursive: true });
  }

  /** The bin directory of a build, which starts (or queues) on the first ask. */
  bin(name: BuildName): Promise<string> {
    let result = this.results.get(name);
    if (!result) {
      result = this.schedule(name);
      this.results.set(name, result);
    }
    return result;
  }

  /** Every build asked for so far, in the order asked. */
  list(): BuildState[] {
    return [...this.states.values()];
  }

  private schedule(name: BuildName): Promise<string> {
    const override = name === 'controlplane' ? process.env.BERTH_CONTROLPLANE_BIN : undefined;
    if (override) {
      this.set({ name, state: 'built', bin: override, seconds: 0 });
      return Promise.resolve(override);
    }
    this.set({ name, state: 'waiting' });
    return new Promise<void>((started) => {
      this.queue.push(started);
      this.next();
    }).then(() => this.run(name));
  }

  private next(): void {
    while (this.running < (this.options.concurrency ?? 2) && this.queue.length > 0) {
      this.running++;
      this.queue.shift()!();
    }
  }

  private async run(name: BuildName): Promise<string> {
    if (this.cancelled) throw new Error(`the build of ${name} was cancelled`);
    const startedAt = Date.now();
    this.set({ name, state: 'building', startedAt });
    try {
      const bin = await runBuildScript(name, join(this.options.logDir, `build-${name}.log`));
      this.set({ name, state: 'built', bin, seconds: Math.round((Date.now() - startedAt) / 1000) });
      return bin;
    } catch (error) {
      this.set({ name, state: 'failed', error: (error as Error).message });
      throw error;
    } finally {
      this.running--;
      this.next();
    }
  }

  /** Stops the builds under way and those queued (each of their bin() rejects); resolves once every
   * build process of this one has ended (./build-process.ts), the image builds of the node's parts too. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    for (const start of this.queue.splice(0)) start();
    await stopBuildProcesses();
  }

  private set(state: BuildState): void {
    this.states.set(state.name, state);
  }
}

/** Runs scripts/build-<name>.sh (its stderr to logFile) and resolves with the bin directory it prints last. */
async function runBuildScript(name: BuildName, logFile: string): Promise<string> {
  const out = await runBuildProcess(['bash', buildScript(name)], { lowPriority: name !== 'controlplane', logFile });
  const bin = out.trim().split('\n').pop();
  if (!bin) throw new Error(`scripts/build-${name}.sh printed no bin directory: see ${logFile}`);
  return bin;
}

// The tables BENCHMARKS.md holds, rendered from the results. Pure: results in, Markdown out.
import type { AtRestResult } from './scenarios/at-rest.ts';
import type { ConvergenceResult } from './scenarios/convergence.ts';
import type { LatencyResult } from './scenarios/latency.ts';
import type { MemoryResult, StartMemory } from './scenarios/memory.ts';
import type { ReadResult } from './scenarios/reads.ts';
import { fixed, growthExponent } from './stats.ts';

export interface BenchResults {
  startedAt: string;
  machine: { cpus: number; memoryGiB: number; node: string };
  options: Record<string, unknown>;
  convergence?: ConvergenceResult[];
  atRest?: AtRestResult;
  latency?: LatencyResult;
  reads?: ReadResult[];
  memory?: MemoryResult;
  durationMs?: number;
  errors: Array<{ scenario: string; message: string }>;
}

const mib = (bytes: number) => fixed(bytes / 1024 / 1024, 0);
const seconds = (ms: number) => fixed(ms / 1000, 1);
const verdict = (ok: boolean) => (ok ? 'met' : 'missed');

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function convergenceTable(results: readonly ConvergenceResult[]): string {
  return table(
    [
      'N',
      'floor (s)',
      'Berth (s)',
      'Berth / floor',
      'target <= 1.3',
      'writes per Deployment (floor / Berth)',
      'Berth RSS (MiB)',
      'load 1m (before / after)',
    ],
    results.map((r) => [
      String(r.size),
      seconds(r.floorMs),
      seconds(r.berthMs),
      fixed(r.ratio),
      verdict(r.ratio <= 1.3),
      `${fixed(r.floorWritesPerDeployment, 1)} / ${fixed(r.berthWritesPerDeployment, 1)}`,
      mib(r.berthRssBytes),
      `${fixed(r.loadBefore, 1)} / ${fixed(r.loadAfter, 1)}`,
    ]),
  );
}

export function scalingTable(results: readonly ConvergenceResult[]): string {
  const sizes = results.map((r) => r.size);
  const rows = results.map((r) => [
    String(r.size),
    seconds(r.berthMs),
    fixed(r.berthMs / r.size, 1),
    fixed(r.floorMs / r.size, 1),
    fixed(r.ratio),
  ]);
  const exponent = growthExponent(
    sizes,
    results.map((r) => r.berthMs),
  );
  const floorExponent = growthExponent(
    sizes,
    results.map((r) => r.floorMs),
  );
  return `${table(['N', 'Berth (s)', 'Berth ms per Deployment', 'floor ms per Deployment', 'Berth / floor'], rows)}\n\nGrowth exponent (log time / log N, smallest to largest N; 1 = linear): Berth ${fixed(exponent)}, floor ${fixed(floorExponent)}.`;
}

export function atRestTable(r: AtRestResult): string {
  const mix =
    Object.entries(r.writeMix)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ') || 'none';
  return table(
    ['N', 'API writes after restart', 'target 0', 'reconciles', 'restart to idle (s)', 'writes', 'load 1m'],
    [[String(r.size), String(r.writes), verdict(r.writes === 0), String(r.reconciles), seconds(r.msUntilIdle), mix, fixed(r.load, 1)]],
  );
}

export function latencyTable(r: LatencyResult): string {
  return table(
    [
      'among N',
      'patches',
      'Berth p50 / p99 (ms)',
      'ConfigMap watch p50 / p99 (ms)',
      'ratio p50',
      'ratio p99',
      'target p99 <= 2',
      'relay p50 / p99 (ms)',
      'Berth / relay p99',
      'load 1m',
    ],
    [
      [
        String(r.size),
        String(r.patches),
        `${fixed(r.berthP50Ms, 1)} / ${fixed(r.berthP99Ms, 1)}`,
        `${fixed(r.configMapP50Ms, 1)} / ${fixed(r.configMapP99Ms, 1)}`,
        fixed(r.p50Ratio),
        fixed(r.p99Ratio),
        verdict(r.p99Ratio <= 2),
        `${fixed(r.relayP50Ms, 1)} / ${fixed(r.relayP99Ms, 1)}`,
        fixed(r.relayP99Ratio),
        fixed(r.load, 1),
      ],
    ],
  );
}

export function readsTable(results: readonly ReadResult[]): string {
  return table(
    [
      'object',
      'Berth req/s',
      'Berth p99 (ms)',
      'API server req/s',
      'API server p99 (ms)',
      'Berth / API server',
      'target >= 3',
      'failed requests (Berth / API server)',
      'load 1m',
    ],
    results.map((r) => [
      r.object,
      fixed(r.berth.requestsPerSecond, 0),
      fixed(r.berth.p99Ms, 0),
      fixed(r.apiServer.requestsPerSecond, 0),
      fixed(r.apiServer.p99Ms, 0),
      fixed(r.ratio),
      verdict(r.ratio >= 3),
      `${r.berth.failures} / ${r.apiServer.failures}`,
      fixed(r.load, 1),
    ]),
  );
}

export function memoryTable(r: MemoryResult): string {
  const settled = r.settledRssBytes ?? r.rssBytes;
  const peak = Math.max(r.peakRssBytes, r.restart?.peakRssBytes ?? 0);
  const row = (start: string, m: StartMemory) => [
    start,
    mib(m.settledRssBytes ?? m.rssBytes),
    mib(m.rssBytes),
    mib(m.peakRssBytes),
    seconds(m.msUntilIdle),
  ];
  const main = table(
    ['Deployments', 'Revisions', 'empty RSS (MiB)', 'per 1000 Deployments, settled (MiB)', 'target: peak <= 200 MiB', 'load 1m'],
    [
      [
        String(r.deployments),
        String(r.revisions),
        mib(r.emptyRssBytes),
        mib(((settled - r.emptyRssBytes) / r.deployments) * 1000),
        `${verdict(peak <= 200 * 1024 * 1024)} (${mib(peak)})`,
        fixed(r.load, 1),
      ],
    ],
  );
  const starts = table(
    ['start', `RSS settled, ${seconds(r.settleMs ?? 0)} s after idle (MiB)`, 'RSS when idle (MiB)', 'peak RSS (MiB)', 'start to idle (s)'],
    [row('first, every status to write', r), ...(r.restart ? [row('again, over the converged objects', r.restart)] : [])],
  );
  const limit = r.memoryLimitBytes
    ? `Berth ran in a memory cgroup of the chart's limit, ${mib(r.memoryLimitBytes)} MiB, as in its pod.`
    : 'Berth ran without a memory limit (no cgroup could be made: not root, or no memory controller).';
  const peaks = [['first', r] as const, ...(r.restart ? [['again', r.restart] as const] : [])].filter(([, m]) => m.atPeak);
  if (peaks.length === 0) return `${main}\n\n${starts}\n\n${limit}`;
  const breakdown = table(
    [
      'at the highest RSS sampled',
      'after start (s)',
      'reconciles done',
      'RSS (MiB)',
      'V8 heap total (MiB)',
      'V8 heap used (MiB)',
      'external (MiB)',
      'RSS outside the V8 heap (MiB)',
      'peak (VmHWM) reached after (s)',
    ],
    peaks.map(([start, m]) => {
      const p = m.atPeak!;
      return [
        start,
        seconds(p.msSinceStart),
        String(p.reconciles),
        mib(p.rssBytes),
        mib(p.heapTotalBytes),
        mib(p.heapUsedBytes),
        mib(p.externalBytes),
        mib(p.rssBytes - p.heapTotalBytes),
        m.msToPeak === undefined ? '' : seconds(m.msToPeak),
      ];
    }),
  );
  return `${main}\n\n${starts}\n\n${breakdown}\n\n${limit}`;
}

export function renderReport(results: BenchResults): string {
  const parts = [
    `Run ${results.startedAt} on ${results.machine.cpus} CPUs, ${fixed(results.machine.memoryGiB, 1)} GiB, Node ${results.machine.node}; options ${JSON.stringify(results.options)}; took ${seconds(results.durationMs ?? 0)} s.`,
  ];
  if (results.convergence?.length)
    parts.push(
      `### 1. Convergence\n\n${convergenceTable(results.convergence)}`,
      `### 6. Scaling curve\n\n${scalingTable(results.convergence)}`,
    );
  if (results.latency) parts.push(`### 2. Spec-change latency\n\n${latencyTable(results.latency)}`);
  if (results.atRest) parts.push(`### 3. Writes at rest\n\n${atRestTable(results.atRest)}`);
  if (results.reads?.length) parts.push(`### 4. Facade reads\n\n${readsTable(results.reads)}`);
  if (results.memory) parts.push(`### 5. Memory\n\n${memoryTable(results.memory)}`);
  for (const e of results.errors) parts.push(`**${e.scenario} failed:** ${e.message}`);
  return `${parts.join('\n\n')}\n`;
}

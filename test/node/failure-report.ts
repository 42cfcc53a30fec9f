// What the node looked like when a node test failed: its load, the pods not yet ready, and the last
// warnings, printed beside the failure so a timeout says where it waited.
import { loadavg } from 'node:os';
import { kubectl } from '../support/cluster.ts';

const lastWarnings = 25;

/** Prints the node's state to stderr; never throws, so a report cannot hide the failure it reports. */
export async function reportNodeState(testName: string): Promise<void> {
  const sections = await Promise.all([
    section('pods not ready', ['get', 'pods', '-A', '-o', 'wide', '--field-selector=status.phase!=Succeeded'], notReadyLines),
    section('node resources', ['describe', 'nodes'], allocatedLines),
    section('last warnings', ['get', 'events', '-A', '--field-selector=type=Warning', '--sort-by=.lastTimestamp'], (out) =>
      out.trim().split('\n').slice(-lastWarnings),
    ),
  ]);
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.error([`[node state when "${testName}" failed] load ${load}`, ...sections].join('\n'));
}

async function section(title: string, args: string[], pick: (out: string) => string[]): Promise<string> {
  const result = await kubectl(args).catch((error: Error) => ({ code: 1, stdout: '', stderr: error.message }));
  const lines = result.code === 0 ? pick(result.stdout) : [result.stderr.trim()];
  return [`-- ${title}`, ...lines].join('\n');
}

/** The header and the pods whose READY count is short of its total, or that are not Running. */
function notReadyLines(out: string): string[] {
  const [header = '', ...rows] = out.trim().split('\n');
  return [header, ...rows.filter((row) => !/\s(\d+)\/\1\s+Running\s/.test(row))];
}

/** `kubectl describe nodes`' conditions and allocated resources. */
function allocatedLines(out: string): string[] {
  const lines = out.split('\n');
  const from = lines.findIndex((line) => line.startsWith('Allocated resources:'));
  return from < 0 ? lines.slice(0, 40) : lines.slice(from, from + 10);
}

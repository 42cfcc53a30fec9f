// Where the controller's time goes: reads `.cpuprofile` files (node --cpu-prof, `npm run bench --
// --cpu-prof`) and prints self time by function and by package or source folder, the largest first.
// usage: node bench/profile-summary.ts <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** node_modules/<package> or src/<folder>, or what the URL says for Node's own code. */
export function ownerOf(url: string): string {
  if (!url) return '(native / idle / gc)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  const source = /\/(src\/[^/]+|bench)\//.exec(url);
  if (source) return source[1]!;
  return url.startsWith('node:') ? url : url.replace(/^file:\/\//, '');
}

export function selfTimes(profile: CpuProfile): { byFunction: Map<string, number>; byOwner: Map<string, number>; totalMs: number } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = nodes.get(id);
    if (!node) return;
    totalMs += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    const name =
      `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const owner = ownerOf(url);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
  });
  return { byFunction, byOwner, totalMs };
}

function top(map: Map<string, number>, count: number, totalMs: number): string {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => `${ms.toFixed(0).padStart(8)} ms ${((ms / totalMs) * 100).toFixed(1).padStart(5)}%  ${name}`)
    .join('\n');
}

if (import.meta.main) {
  const [file, count = '25'] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const { byFunction, byOwner, totalMs } = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  process.stdout.write(
    `total ${totalMs.toFixed(0)} ms sampled\n\nself time by package / source folder:\n${top(byOwner, Number(count), totalMs)}\n\nself time by function:\n${top(byFunction, Number(count), totalMs)}\n`,
  );
}

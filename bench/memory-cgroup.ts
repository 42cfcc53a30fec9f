// Berth under the memory limit the chart gives its pod: a memory cgroup of that limit, which the
// process enters before Node starts, so Node sizes its heap from the limit as it does in the pod
// (uv_get_constrained_memory). Needs root and a cgroup memory controller (v1 or v2); without them the
// process runs unconstrained and the report says so.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const units: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, K: 1e3, M: 1e6, G: 1e9, '': 1 };

interface ChartValues {
  components?: Array<'controller' | 'facade'>;
  resources?: { limits?: { memory?: string } };
}

function chartValues(valuesPath = resolve(import.meta.dirname, '../charts/berth/values.yaml')): ChartValues {
  return parse(readFileSync(valuesPath, 'utf8')) as ChartValues;
}

/** What each of the chart's pods runs (its `components` value): the memory scenario runs the same. */
export function chartComponents(valuesPath?: string): Array<'controller' | 'facade'> {
  const { components } = chartValues(valuesPath);
  if (!components?.length) throw new Error('the chart sets no components');
  return components;
}

/** `resources.limits.memory` of the chart's values, in bytes. */
export function chartMemoryLimit(valuesPath?: string): number {
  const quantity = String(chartValues(valuesPath).resources?.limits?.memory ?? '');
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G|)$/.exec(quantity);
  if (!match) throw new Error(`the chart's resources.limits.memory is not a quantity: "${quantity}"`);
  return Number(match[1]) * units[match[2]!]!;
}

export interface MemoryCgroup {
  /** The command that runs `argv` inside the cgroup. */
  wrap(argv: string[]): string[];
  remove(): void;
}

/** A new memory cgroup limited to `limitBytes`, or undefined where none can be made. */
export function createMemoryCgroup(name: string, limitBytes: number): MemoryCgroup | undefined {
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const path = v2 ? join('/sys/fs/cgroup', name) : join('/sys/fs/cgroup/memory', name);
  const remove = () => {
    try {
      rmdirSync(path);
    } catch {
      // Not made, or still has a process (a kill in flight): the kernel keeps it until the process is gone.
    }
  };
  try {
    mkdirSync(path);
    writeFileSync(join(path, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(limitBytes));
  } catch {
    remove();
    return undefined;
  }
  return { wrap: (argv) => ['/bin/sh', '-c', `echo $$ > ${join(path, 'cgroup.procs')} && exec "$@"`, 'sh', ...argv], remove };
}

// CPU time the machine's processes have spent, by command name (/proc/<pid>/stat): two readings'
// difference is what each part of the cluster, and Berth, worked during one round of a benchmark.
import { readdirSync, readFileSync } from 'node:fs';

const ticksPerSecond = 100;

/** CPU milliseconds (user + system) of every process now, summed by command; `names` maps pids to a name of their own. */
export function cpuByCommand(names: Map<number, string> = new Map()): Map<string, number> {
  const totals = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces, so fields are counted after its closing parenthesis.
    const close = stat.lastIndexOf(')');
    const command = names.get(pid) ?? stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
    totals.set(command, (totals.get(command) ?? 0) + ms);
  }
  return totals;
}

// What each side's rounds of a comparison cost beyond their time: the CPU every process spent (Berth's
// own, and what its work costs the API server, etcd, the controllers and the node), the requests the
// API server served, and Berth's passes and API requests. Read before a round's clock starts and after
// it stops, so reading them is not part of the measured time.
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { kubeText } from '../src/runtime/kube-request.ts';
import type { BerthProcess } from './berth-process.ts';
import { apiRequests, difference, parseMetrics, sumOf, sumsBy, type Sample } from '../workbench/support/berth-metrics.ts';
import { cpuByCommand } from './process-cpu.ts';

interface Reading {
  cpu: Map<string, number>;
  served: Map<string, number>;
  berth: Sample[];
}

interface SideTotals {
  rounds: number;
  cpu: Map<string, number>;
  served: Map<string, number>;
  berthRequests: Map<string, number>;
  passes: number;
}

export interface RoundCosts {
  /** Reads every counter: before the round's clock starts. */
  begin(): Promise<Reading>;
  /** Reads them again, after the round's clock stopped, and adds the difference to `side`. */
  end(side: string, from: Reading): Promise<void>;
  /** Per side, the averages per round, one line each. */
  report(log: (line: string) => void): void;
}

export function roundCosts(kc: KubeConfig, berth: BerthProcess): RoundCosts {
  const names = new Map([
    [berth.pid, 'berth'],
    [process.pid, 'bench'],
  ]);
  const sides = new Map<string, SideTotals>();
  const counters = async () => ({ served: await apiServerRequests(kc), berth: await berth.metrics() });
  // CPU is read nearest the clock, so that fetching the other counters is not counted in it.
  return {
    begin: async () => ({ ...(await counters()), cpu: cpuByCommand(names) }),
    async end(side, from) {
      const cpu = cpuByCommand(names);
      const now = { ...(await counters()), cpu };
      const totals = sides.get(side) ?? { rounds: 0, cpu: new Map(), served: new Map(), berthRequests: new Map(), passes: 0 };
      totals.rounds++;
      // A command whose processes exited between the readings can come out negative: it is left out.
      for (const [command, ms] of difference(now.cpu, from.cpu)) if (ms > 0) add(totals.cpu, command, ms);
      for (const [request, count] of difference(now.served, from.served)) add(totals.served, request, count);
      for (const [request, count] of difference(apiRequests(now.berth), apiRequests(from.berth))) add(totals.berthRequests, request, count);
      totals.passes += passes(now.berth) - passes(from.berth);
      sides.set(side, totals);
    },
    report(log) {
      for (const [side, totals] of sides) {
        const perRound = (entries: Iterable<[string, number]>, minimum: number, unit = '') =>
          [...entries]
            .map(([key, value]): [string, number] => [key, value / totals.rounds])
            .filter(([, value]) => value >= minimum)
            .sort((a, b) => b[1] - a[1])
            .map(([key, value]) => `${key} ${value < 10 ? value.toFixed(1) : Math.round(value)}${unit}`)
            .join(', ');
        // Kernel workers are left out: their command names change with the work they take.
        const cpu = [...totals.cpu].filter(([command]) => !command.startsWith('kworker/'));
        log(`${side} side, per round: CPU ${perRound(cpu, 10, ' ms')}`);
        log(`${side} side, per round: API server requests ${perRound(totals.served, 0.5)}`);
        log(
          `${side} side, per round: Berth ${(totals.passes / totals.rounds).toFixed(1)} passes, requests ${perRound(totals.berthRequests, 0.1) || 'none'}`,
        );
      }
    },
  };
}

function add(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

function passes(samples: Sample[]): number {
  return sumOf(samples, 'berth_reconcile_total', { controller: 'deployment' });
}

/** Requests the API server has served, by verb and resource (its own metrics). */
async function apiServerRequests(kc: KubeConfig): Promise<Map<string, number>> {
  const samples = parseMetrics(await kubeText(kc, { method: 'GET', path: '/metrics' }));
  return sumsBy(
    samples,
    'apiserver_request_total',
    ({ verb, resource, subresource }) => `${verb} ${resource}${subresource ? `/${subresource}` : ''}`,
  );
}

// A client that sends a steady, bounded stream of GETs to one URL (loopback only: the node's Gateway)
// and keeps every answer, so a test can count what failed and how slow it was in any window. An
// https:// URL is read trusting only the CA it is given.
import { Agent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { loopbackLookup } from './loopback.ts';

export interface Sample {
  /** When the request was sent (ms since the epoch) and how long it took. */
  at: number;
  ms: number;
  ok: boolean;
  /** The status, or the error when there was none. */
  outcome: string;
}

export interface WindowStats {
  requests: number;
  failed: number;
  p50: number;
  p99: number;
  /** The distinct failures, e.g. `502`, `ECONNRESET`. */
  failures: string[];
}

function get(url: string, agent: Agent, accept: (status: number, body: string) => boolean): Promise<Sample> {
  const at = Date.now();
  const send = (agent instanceof HttpsAgent ? httpsRequest : request) as typeof request;
  return new Promise((resolve) => {
    const done = (ok: boolean, outcome: string) => resolve({ at, ms: Date.now() - at, ok, outcome });
    const req = send(url, { agent, lookup: loopbackLookup, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done(accept(res.statusCode ?? 0, body), String(res.statusCode)));
      res.on('error', (error: NodeJS.ErrnoException) => done(false, error.code ?? error.message));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => done(false, error.code ?? error.message));
    req.end();
  });
}

/** `concurrency` loops, each sending a GET, then waiting `intervalMs`: at most concurrency * 1000 / intervalMs per second. */
export function steadyClient(
  url: string,
  options: { concurrency: number; intervalMs: number; accept: (status: number, body: string) => boolean; ca?: string },
): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  const pool = { keepAlive: true, maxSockets: options.concurrency };
  const agent = url.startsWith('https:') ? new HttpsAgent({ ...pool, ...(options.ca ? { ca: options.ca } : {}) }) : new Agent(pool);
  let running = true;
  const loop = async () => {
    while (running) {
      samples.push(await get(url, agent, options.accept));
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
  };
  const loops = Array.from({ length: options.concurrency }, loop);
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** What the samples sent between `from` and `to` saw. Pure. */
export function windowStats(samples: readonly Sample[], from: number, to: number): WindowStats {
  const inWindow = samples.filter((sample) => sample.at >= from && sample.at <= to);
  const times = inWindow.map((sample) => sample.ms).sort((a, b) => a - b);
  const failed = inWindow.filter((sample) => !sample.ok);
  return {
    requests: inWindow.length,
    failed: failed.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    failures: [...new Set(failed.map((sample) => sample.outcome))],
  };
}

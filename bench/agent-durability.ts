// The cost of durability: a run on a thread, on the durable agent server (threads, runs and checkpoints in
// the deployment's Postgres) against the same project on the in-memory runtime (the node's stand-in for
// the reference's image, named by the project's own base_image), both built by the reference client's
// remote build and served by Berth. Runs alternate between the two servers, one at a time, so both see
// the same machine; the ratio is the durable server's median and p90 over the in-memory one's.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from './stats.ts';

/** The project again, built on the in-memory server: a base_image of its own keeps Berth's away. */
export function inMemoryProject(project: string, into: string): string {
  cpSync(project, into, { recursive: true });
  const config = join(into, 'langgraph.json');
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), base_image: 'langchain/langgraph-api' }));
  return into;
}

async function post(url: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** One thread on the server at `url`, and the time of each run on it (POST /threads/{id}/runs/wait). */
async function runsOnOneThread(url: string): Promise<() => Promise<number>> {
  const thread = (await post(`${url}/threads`, {})).thread_id as string;
  return async () => {
    const began = performance.now();
    const answer = await post(`${url}/threads/${thread}/runs/wait`, { assistant_id: 'agent', input: { text: 'x' } });
    if (typeof answer.text !== 'string') throw new Error(`no answer from the graph: ${JSON.stringify(answer)}`);
    return performance.now() - began;
  };
}

export interface DurabilityCost {
  runs: number;
  durableMs: { median: number; p90: number };
  inMemoryMs: { median: number; p90: number };
  ratioMedian: number;
  ratioP90: number;
}

/** `runs` runs on each server after `warmup` untimed ones, alternating. */
export async function durabilityCost(durableUrl: string, inMemoryUrl: string, runs = 40, warmup = 5): Promise<DurabilityCost> {
  const durable = await runsOnOneThread(durableUrl);
  const inMemory = await runsOnOneThread(inMemoryUrl);
  for (let i = 0; i < warmup; i++) await Promise.all([durable(), inMemory()]);
  const times = { durable: [] as number[], inMemory: [] as number[] };
  for (let i = 0; i < runs; i++) {
    times.durable.push(await durable());
    times.inMemory.push(await inMemory());
  }
  const summary = (xs: number[]) => ({ median: percentile(xs, 50), p90: percentile(xs, 90) });
  const durableMs = summary(times.durable);
  const inMemoryMs = summary(times.inMemory);
  return {
    runs,
    durableMs,
    inMemoryMs,
    ratioMedian: durableMs.median / inMemoryMs.median,
    ratioP90: durableMs.p90 / inMemoryMs.p90,
  };
}

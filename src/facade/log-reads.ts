// Bounds on the logs routes, so that no request, and no number of them, can run a replica out of
// memory: a request reads at most `maxReads` containers (the newest pods first), each at most its
// share of `requestBytes` (between `minReadBytes` and `maxReadBytes`), `concurrentReads` at a time; at
// most `concurrentRequests` requests read at once across the replica, `queuedRequests` more wait for a
// turn (at most `queuedPerOrganization` of one organization's, and turns go round the organizations that
// wait, so one team's burst cannot hold the others' reads), and any beyond are answered 503 with
// Retry-After. In the worst case a replica holds about concurrentRequests x requestBytes of log text.
// Pure but for the limiter's queue.
import { HttpError } from './errors.ts';

export const logReadLimits = {
  requestBytes: 16 * 1024 * 1024,
  maxReads: 256,
  minReadBytes: 64 * 1024,
  maxReadBytes: 4 * 1024 * 1024,
  concurrentReads: 4,
  concurrentRequests: 4,
  queuedRequests: 32,
  queuedPerOrganization: 8,
} as const;

/** The bytes each of `reads` container reads may take of one request's budget. */
export function perReadBytes(reads: number, limits = logReadLimits): number {
  const share = Math.floor(limits.requestBytes / Math.max(reads, 1));
  return Math.min(limits.maxReadBytes, Math.max(limits.minReadBytes, share));
}

/**
 * Runs at most `concurrency` tasks at once; `queue` more wait, at most `queuePerKey` of one key's; a task
 * beyond those is refused at once. A freed slot goes to the key that has waited longest for a turn, each
 * key's own tasks in their order: every key that waits gets a turn before one key gets a second.
 */
export class Limiter {
  readonly #concurrency: number;
  readonly #queue: number;
  readonly #queuePerKey: number;
  #running = 0;
  #queued = 0;
  /** Waiting tasks by key, the keys in the order of their next turn. */
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(concurrency: number, queue: number, queuePerKey = queue) {
    this.#concurrency = concurrency;
    this.#queue = queue;
    this.#queuePerKey = queuePerKey;
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#concurrency) {
      const waiting = this.#waiting.get(key) ?? [];
      if (this.#queued >= this.#queue || waiting.length >= this.#queuePerKey) throw new LimiterFullError();
      this.#waiting.set(key, waiting);
      this.#queued += 1;
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      this.#running += 1;
    }
    try {
      return await work();
    } finally {
      this.#handOver();
    }
  }

  /** A finished task hands its slot to the next key's first waiting task (that key goes last), or frees it. */
  #handOver(): void {
    const first = this.#waiting.entries().next();
    if (first.done) {
      this.#running -= 1;
      return;
    }
    const [key, waiting] = first.value;
    const next = waiting.shift()!;
    this.#waiting.delete(key);
    if (waiting.length > 0) this.#waiting.set(key, waiting);
    this.#queued -= 1;
    next();
  }
}

export class LimiterFullError extends HttpError {
  constructor() {
    super(503, 'Too many log reads at once on this replica; try again in a second.');
  }
}

/** Runs `works` at most `concurrency` at a time, results in their order. */
export async function inTurns<T>(works: readonly (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results: T[] = new Array<T>(works.length);
  let next = 0;
  const worker = async () => {
    while (next < works.length) {
      const index = next++;
      results[index] = await works[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, works.length) }, worker));
  return results;
}

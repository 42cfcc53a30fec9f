// Bounds on the logs routes, so that no request, and no number of them, can run a replica out of
// memory: a request reads at most `maxReads` containers (the newest pods first), each at most its
// share of `requestBytes` (between `minReadBytes` and `maxReadBytes`), `concurrentReads` at a time; at
// most `concurrentRequests` requests read at once across the replica, `queuedRequests` more wait for a
// turn, and any beyond are answered 503 with Retry-After. In the worst case a replica holds about
// concurrentRequests x requestBytes of log text. Pure but for the limiter's queue.
import { HttpError } from './errors.ts';

export const logReadLimits = {
  requestBytes: 16 * 1024 * 1024,
  maxReads: 256,
  minReadBytes: 64 * 1024,
  maxReadBytes: 4 * 1024 * 1024,
  concurrentReads: 4,
  concurrentRequests: 4,
  queuedRequests: 32,
} as const;

/** The bytes each of `reads` container reads may take of one request's budget. */
export function perReadBytes(reads: number, limits = logReadLimits): number {
  const share = Math.floor(limits.requestBytes / Math.max(reads, 1));
  return Math.min(limits.maxReadBytes, Math.max(limits.minReadBytes, share));
}

/** Runs at most `concurrency` tasks at once; `queue` more wait; a task beyond those is refused at once. */
export class Limiter {
  readonly #concurrency: number;
  readonly #queue: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(concurrency: number, queue: number) {
    this.#concurrency = concurrency;
    this.#queue = queue;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#concurrency) {
      if (this.#waiting.length >= this.#queue) throw new LimiterFullError();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running += 1;
    }
    try {
      return await work();
    } finally {
      // A finished task hands its slot to the next waiting one, or frees it.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
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

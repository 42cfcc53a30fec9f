// A queue of keys with the guarantees reconcilers rely on: a key waits at most once (dedup), one key
// never runs twice at once (a key added while it runs runs once more afterwards), up to
// `concurrency` different keys run in parallel, failures retry with per-key exponential backoff that
// resets on success, and shutdown lets in-flight work finish within a bound.
import { backoffDelay, type BackoffPolicy } from './backoff.ts';

export interface ProcessResult {
  /** Run this key again after this many milliseconds (without counting a failure). */
  requeueAfter?: number;
}

export type ProcessKey = (key: string, signal: AbortSignal) => Promise<ProcessResult | void>;

export interface WorkQueueOptions {
  process: ProcessKey;
  /** Keys run in parallel. Default 1. */
  concurrency?: number;
  /** Retry delays. Default 5 ms doubling to 5 minutes. */
  backoff?: BackoffPolicy;
  /** Told of every change in the number of waiting keys (for a depth gauge). */
  onDepth?: (depth: number) => void;
  /** Told of every failure that schedules a retry. */
  onRetry?: (key: string, error: unknown, delayMs: number) => void;
}

const defaultQueueBackoff: BackoffPolicy = { initialMs: 5, maxMs: 5 * 60_000 };

export class WorkQueue {
  readonly #options: WorkQueueOptions;
  readonly #concurrency: number;
  /** Waiting keys in FIFO order; `#waiting` says whether a key is in it. */
  #order: string[] = [];
  #head = 0;
  readonly #waiting = new Set<string>();
  readonly #running = new Set<string>();
  /** Keys added while they ran: they run again once the current run ends. */
  readonly #dirty = new Set<string>();
  readonly #delayed = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  readonly #failures = new Map<string, number>();
  readonly #idleWaiters = new Set<() => void>();
  readonly #abort = new AbortController();
  #shuttingDown = false;
  #pumpScheduled = false;

  constructor(options: WorkQueueOptions) {
    this.#options = options;
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
  }

  get depth(): number {
    return this.#waiting.size;
  }

  get inFlight(): number {
    return this.#running.size;
  }

  get isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Failures of a key since its last success. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  add(key: string): void {
    if (this.#shuttingDown) return;
    this.#cancelDelayed(key);
    if (this.#running.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#waiting.has(key)) return;
    this.#waiting.add(key);
    this.#order.push(key);
    this.#options.onDepth?.(this.#waiting.size);
    this.#pump();
  }

  /** Adds the key after a delay; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const due = Date.now() + delayMs;
    const pending = this.#delayed.get(key);
    if (pending && pending.due <= due) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.#delayed.set(key, { timer, due });
  }

  /**
   * Stops intake (waiting and delayed keys are dropped), then waits up to `drainTimeoutMs` for the
   * runs in flight. Their abort signal fires at once with `abortInFlight`, else when the bound is
   * reached. Resolves true when everything in flight finished.
   */
  async shutdown(options: { drainTimeoutMs?: number; abortInFlight?: boolean } = {}): Promise<boolean> {
    this.#shuttingDown = true;
    for (const { timer } of this.#delayed.values()) clearTimeout(timer);
    this.#delayed.clear();
    this.#waiting.clear();
    this.#order = [];
    this.#head = 0;
    this.#dirty.clear();
    this.#options.onDepth?.(0);
    if (options.abortInFlight) this.#abort.abort();
    if (this.#running.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => this.#idleWaiters.add(() => resolve(true))),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.drainTimeoutMs ?? 30_000))),
    ]);
    clearTimeout(timer);
    this.#abort.abort();
    return drained;
  }

  #cancelDelayed(key: string): void {
    const pending = this.#delayed.get(key);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#delayed.delete(key);
  }

  #pump(): void {
    while (!this.#shuttingDown && this.#running.size < this.#concurrency && this.#waiting.size > 0) {
      // An array with a moving head, not the Set's own order: taking the first of a Set whose
      // front was deleted from costs a scan of the deleted slots, quadratic over a long queue.
      const key = this.#order[this.#head++]!;
      if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
        this.#order = this.#order.slice(this.#head);
        this.#head = 0;
      }
      this.#waiting.delete(key);
      this.#options.onDepth?.(this.#waiting.size);
      void this.#run(key);
    }
  }

  async #run(key: string): Promise<void> {
    this.#running.add(key);
    try {
      const result = await this.#options.process(key, this.#abort.signal);
      this.#failures.delete(key);
      if (result?.requeueAfter !== undefined) this.addAfter(key, result.requeueAfter);
    } catch (error) {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      if (!this.#shuttingDown) {
        const delay = backoffDelay(this.#options.backoff ?? defaultQueueBackoff, failures);
        this.#options.onRetry?.(key, error, delay);
        this.addAfter(key, delay);
      }
    } finally {
      this.#running.delete(key);
      if (this.#dirty.delete(key)) this.add(key);
      if (this.#running.size === 0) {
        for (const waiter of this.#idleWaiters) waiter();
        this.#idleWaiters.clear();
      }
      this.#pumpSoon();
    }
  }

  /**
   * The next keys start on a later turn of the event loop, not on this run's microtask: passes that
   * change nothing never wait on I/O, and a queue of thousands (every key after a start) would run as
   * one task of seconds, starving probes, watches and V8's garbage collection tasks meanwhile.
   */
  #pumpSoon(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }
}

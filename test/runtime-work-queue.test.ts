// The work queue's guarantees, observed through the calls it makes to its process function.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';

/** A promise with its resolve function, to hold a run open until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('WorkQueue', () => {
  it('runs a key added many times while waiting only once', async () => {
    const runs: string[] = [];
    const blocker = gate();
    const queue = new WorkQueue({
      concurrency: 1,
      process: async (key) => {
        runs.push(key);
        if (key === 'blocker') await blocker.promise;
      },
    });
    queue.add('blocker');
    for (let i = 0; i < 5; i++) queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.depth).toBe(2);
    blocker.open();
    await eventually(async () => runs.length === 3, 5_000, 'three runs');
    await eventually(async () => queue.inFlight === 0, 5_000, 'idle');
    expect(runs).toEqual(['blocker', 'a', 'b']);
  });

  it('lets the event loop turn between keys whose runs never wait on I/O', async () => {
    const runs: string[] = [];
    const queue = new WorkQueue({ concurrency: 2, process: async (key) => void runs.push(key) });
    let runsWhenTheLoopTurned: number | undefined;
    setImmediate(() => (runsWhenTheLoopTurned = runs.length));
    for (let i = 0; i < 1000; i++) queue.add(`key-${i}`);
    await eventually(async () => runs.length === 1000, 5_000, 'every key');
    expect(runsWhenTheLoopTurned).toBeLessThan(10);
  });

  it('never runs one key twice at once, and runs it once more when added while running', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const first = gate();
    const queue = new WorkQueue({
      concurrency: 4,
      process: async () => {
        runs += 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        if (runs === 1) await first.promise;
        running -= 1;
      },
    });
    queue.add('a');
    await eventually(async () => runs === 1, 5_000, 'the first run');
    queue.add('a');
    queue.add('a');
    queue.add('a');
    expect(runs).toBe(1);
    first.open();
    await eventually(async () => runs === 2 && running === 0, 5_000, 'the second run');
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('runs up to `concurrency` different keys in parallel', async () => {
    let running = 0;
    let maxRunning = 0;
    const release = gate();
    const queue = new WorkQueue({
      concurrency: 3,
      process: async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await release.promise;
        running -= 1;
      },
    });
    for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
    await eventually(async () => running === 3, 5_000, 'three keys running');
    expect(queue.depth).toBe(2);
    release.open();
    await eventually(async () => queue.inFlight === 0 && queue.depth === 0, 5_000, 'all five done');
    expect(maxRunning).toBe(3);
  });

  it('retries a failing key with doubling delays and resets them after a success', async () => {
    const delays: number[] = [];
    let attempts = 0;
    let failUntil = 4;
    const queue = new WorkQueue({
      backoff: { initialMs: 1, maxMs: 6 },
      process: async () => {
        attempts += 1;
        if (attempts <= failUntil) throw new Error(`attempt ${attempts} fails`);
      },
      onRetry: (_key, _error, delayMs) => delays.push(delayMs),
    });
    queue.add('a');
    await eventually(async () => attempts === 5 && queue.inFlight === 0, 5_000, 'five attempts');
    expect(delays).toEqual([1, 2, 4, 6]);
    expect(queue.failures('a')).toBe(0);

    failUntil = 7;
    queue.add('a');
    await eventually(async () => attempts === 8 && queue.inFlight === 0, 5_000, 'three more attempts');
    expect(delays).toEqual([1, 2, 4, 6, 1, 2]);
    expect(queue.failures('a')).toBe(0);
  });

  it('runs a key again after requeueAfter without counting a failure', async () => {
    let runs = 0;
    const retries: number[] = [];
    const queue = new WorkQueue({
      process: async () => {
        runs += 1;
        return runs < 3 ? { requeueAfter: 5 } : undefined;
      },
      onRetry: (_key, _error, delay) => retries.push(delay),
    });
    queue.add('a');
    await eventually(async () => runs === 3, 5_000, 'three runs');
    expect(retries).toEqual([]);
  });

  it('on shutdown, finishes runs in flight, starts nothing new and ignores new keys', async () => {
    const started: string[] = [];
    const finished: string[] = [];
    const release = gate();
    const queue = new WorkQueue({
      concurrency: 1,
      process: async (key) => {
        started.push(key);
        await release.promise;
        finished.push(key);
      },
    });
    queue.add('a');
    queue.add('b');
    queue.addAfter('c', 1);
    await eventually(async () => started.length === 1, 5_000, 'the first run');
    const drained = queue.shutdown({ drainTimeoutMs: 10_000 });
    queue.add('d');
    release.open();
    expect(await drained).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toEqual(['a']);
    expect(finished).toEqual(['a']);
  });

  it('bounds the drain: a run that never ends is abandoned and its signal aborted', async () => {
    let aborted = false;
    const queue = new WorkQueue({
      process: (_key, signal) =>
        new Promise<void>(() => {
          signal.addEventListener('abort', () => (aborted = true));
        }),
    });
    queue.add('stuck');
    await eventually(async () => queue.inFlight === 1, 5_000, 'the run to start');
    expect(await queue.shutdown({ drainTimeoutMs: 50 })).toBe(false);
    expect(aborted).toBe(true);
  });
});

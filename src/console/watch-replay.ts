// A list read at each `ready` of the watch, with the watch's events applied to it. Events that come
// while the read is under way wait for its answer and then apply in order: applied to the state
// before, they would be lost under the answer, which may have been read before them (a deployment
// deleted while the list was read stayed listed until the next reconnect). Each change the answer
// holds has its own event, so replaying them in order ends at the newest state. Pure but for `read`.
import type { WatchEvent } from './api.ts';

export type Loaded<T> = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'loaded'; value: T };

export interface Replay<T> {
  /** Reads the state afresh. */
  read: () => Promise<T>;
  /** One event applied to the state. */
  step: (now: T, event: WatchEvent) => T;
  /** Where the state goes. */
  set: (update: (now: Loaded<T>) => Loaded<T>) => void;
  /** A read that failed. */
  fail: (error: unknown) => void;
}

/** The handler of a watch's events: at `ready`, a read, then the events since, in order. */
export function replayingReads<T>({ read, step, set, fail }: Replay<T>): (event: WatchEvent) => void {
  let waiting: WatchEvent[] | undefined;
  return (event) => {
    if (event.type === 'ready') {
      const queued: WatchEvent[] = [];
      waiting = queued;
      read().then(
        (value) => {
          // A later `ready` read again: this answer is older than its.
          if (waiting !== queued) return;
          waiting = undefined;
          set(() => ({ state: 'loaded', value: queued.reduce(step, value) }));
        },
        (error: unknown) => {
          if (waiting === queued) waiting = undefined;
          fail(error);
        },
      );
      return;
    }
    if (waiting) waiting.push(event);
    else set((now) => (now.state === 'loaded' ? { state: 'loaded', value: step(now.value, event) } : now));
  };
}

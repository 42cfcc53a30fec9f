import { describe, expect, it } from 'vitest';
import type { WatchEvent } from './api.ts';
import { replayingReads, type Loaded } from './watch-replay.ts';

type Names = string[];

/** A watch's handler over a list of names, with reads answered when the test says. */
function harness() {
  let state: Loaded<Names> = { state: 'loading' };
  const reads: { resolve: (value: Names) => void; reject: (error: unknown) => void }[] = [];
  const failures: unknown[] = [];
  const handle = replayingReads<Names>({
    read: () => new Promise<Names>((resolve, reject) => reads.push({ resolve, reject })),
    step: (now, event) =>
      event.type === 'deployment_deleted'
        ? now.filter((name) => name !== event.id)
        : event.type === 'deployment'
          ? [...now.filter((name) => name !== event.deployment.name), event.deployment.name]
          : now,
    set: (update) => (state = update(state)),
    fail: (error) => failures.push(error),
  });
  const settle = () => new Promise((resume) => setTimeout(resume, 0));
  return { handle, reads, failures, settle, state: () => state };
}

const deleted = (id: string): WatchEvent => ({ type: 'deployment_deleted', id });
const changed = (name: string): WatchEvent => ({ type: 'deployment', deployment: { name } as never });

describe("a console list kept by the watch's events", () => {
  it('applies what comes while the list is read once its answer is in, in order: a deletion is not lost under it', async () => {
    const { handle, reads, settle, state } = harness();
    handle({ type: 'ready' });
    handle(deleted('other'));
    handle(changed('new'));
    reads[0]!.resolve(['site', 'other']);
    await settle();
    expect(state()).toEqual({ state: 'loaded', value: ['site', 'new'] });
    // Once read, events apply as they come.
    handle(deleted('site'));
    expect(state()).toEqual({ state: 'loaded', value: ['new'] });
  });

  it("keeps the newest read's answer when a reconnect reads again before the first answer is in", async () => {
    const { handle, reads, settle, state } = harness();
    handle({ type: 'ready' });
    handle({ type: 'ready' });
    reads[1]!.resolve(['site']);
    await settle();
    reads[0]!.resolve(['site', 'other']);
    await settle();
    expect(state()).toEqual({ state: 'loaded', value: ['site'] });
  });

  it('says a read failed, and applies events as they come after it', async () => {
    const { handle, reads, failures, settle, state } = harness();
    handle({ type: 'ready' });
    reads[0]!.reject(new Error('refused'));
    await settle();
    expect(failures).toHaveLength(1);
    handle(changed('site'));
    expect(state()).toEqual({ state: 'loading' });
  });
});

// Lists kept current: a list read once, then the watch's events applied to it (watch-replay.ts); when
// the watch ends (after 10 minutes, or a dropped connection) it is opened again and the list read again.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, type Client, type Deployment, type Revision, type WatchEvent } from './api.ts';
import { replayingReads, type Loaded } from './watch-replay.ts';

export type { Loaded };

/** Runs `watch` until the component goes, waiting a little longer after each failure (at most 30 s). */
function keepWatching(watch: (signal: AbortSignal) => Promise<void>, onFailure: (message: string) => void): () => void {
  const abort = new AbortController();
  void (async () => {
    let pause = 1_000;
    while (!abort.signal.aborted) {
      try {
        await watch(abort.signal);
        pause = 1_000;
      } catch (error) {
        if (abort.signal.aborted) return;
        onFailure(messageOf(error));
        await new Promise((resume) => setTimeout(resume, pause));
        pause = Math.min(pause * 2, 30_000);
      }
    }
  })();
  return () => abort.abort();
}

/** The organization's deployments, as they change. */
export function useDeployments(client: Client): Loaded<Deployment[]> {
  const [loaded, setLoaded] = useState<Loaded<Deployment[]>>({ state: 'loading' });
  useEffect(() => {
    const fail = (message: string) => setLoaded((now) => (now.state === 'loaded' ? now : { state: 'failed', message }));
    const apply = replayingReads<Deployment[]>({
      read: () => client.deployments(),
      step: listed,
      set: setLoaded,
      fail: (error) => fail(messageOf(error)),
    });
    return keepWatching((signal) => client.watch(apply, signal), fail);
  }, [client]);
  return loaded;
}

/** One deployment and its revisions (newest first), as they change. */
export function useDeployment(client: Client, id: string): Loaded<{ deployment: Deployment; revisions: Revision[] } | 'gone'> {
  const [loaded, setLoaded] = useState<Loaded<{ deployment: Deployment; revisions: Revision[] } | 'gone'>>({ state: 'loading' });
  useEffect(() => {
    // A watch that drops once the page is shown keeps it as it is (and what a person is typing in it)
    // while it reconnects; its first read failing says so.
    const fail = (message: string) => setLoaded((now) => (now.state === 'loaded' ? now : { state: 'failed', message }));
    const replay = replayingReads<{ deployment: Deployment; revisions: Revision[] } | 'gone'>({
      read: async () => {
        const [deployment, revisions] = await Promise.all([client.deployment(id), client.revisions(id)]);
        return { deployment, revisions };
      },
      step: (now, event) => (event.type === 'deployment_deleted' ? 'gone' : now === 'gone' ? now : applied(now, event)),
      set: setLoaded,
      fail: (error) => fail(messageOf(error)),
    });
    // Deleted while its page loads: gone now, and once a read under way answers.
    const apply = (event: WatchEvent) => {
      if (event.type === 'deployment_deleted') setLoaded({ state: 'loaded', value: 'gone' });
      replay(event);
    };
    return keepWatching((signal) => client.watch(apply, signal, id), fail);
  }, [client, id]);
  return loaded;
}

/** The list with one event applied: a deployment changed or made, or one gone. */
function listed(now: Deployment[], event: WatchEvent): Deployment[] {
  if (event.type === 'deployment_deleted') return now.filter((d) => d.id !== event.id);
  if (event.type !== 'deployment') return now;
  const known = now.some((d) => d.id === event.deployment.id);
  return known ? now.map((d) => (d.id === event.deployment.id ? event.deployment : d)) : [event.deployment, ...now];
}

function applied(now: { deployment: Deployment; revisions: Revision[] }, event: WatchEvent) {
  if (event.type === 'deployment') return { ...now, deployment: event.deployment };
  if (event.type !== 'revision') return now;
  const known = now.revisions.some((r) => r.id === event.revision.id);
  const revisions = known
    ? now.revisions.map((r) => (r.id === event.revision.id ? event.revision : r))
    : [event.revision, ...now.revisions];
  return { ...now, revisions };
}

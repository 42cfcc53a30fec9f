// Lists kept current: a list read once, then the watch's events applied to it; when the watch ends
// (after 10 minutes, or a dropped connection) it is opened again and the list read again.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, type Client, type Deployment, type Revision, type WatchEvent } from './api.ts';

export type Loaded<T> = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'loaded'; value: T };

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
    const apply = (event: WatchEvent) => {
      if (event.type === 'ready') void client.deployments().then((value) => setLoaded({ state: 'loaded', value }), fail);
      if (event.type === 'deployment') setLoaded((now) => withDeployment(now, event.deployment));
      if (event.type === 'deployment_deleted')
        setLoaded((now) => (now.state === 'loaded' ? { state: 'loaded', value: now.value.filter((d) => d.id !== event.id) } : now));
    };
    const fail = (message: string) => setLoaded((now) => (now.state === 'loaded' ? now : { state: 'failed', message }));
    return keepWatching((signal) => client.watch(apply, signal), fail);
  }, [client]);
  return loaded;
}

/** One deployment and its revisions (newest first), as they change. */
export function useDeployment(client: Client, id: string): Loaded<{ deployment: Deployment; revisions: Revision[] } | 'gone'> {
  const [loaded, setLoaded] = useState<Loaded<{ deployment: Deployment; revisions: Revision[] } | 'gone'>>({ state: 'loading' });
  useEffect(() => {
    const apply = (event: WatchEvent) => {
      if (event.type === 'ready')
        void Promise.all([client.deployment(id), client.revisions(id)]).then(
          ([deployment, revisions]) => setLoaded({ state: 'loaded', value: { deployment, revisions } }),
          (error: unknown) => fail(messageOf(error)),
        );
      if (event.type === 'deployment_deleted') setLoaded({ state: 'loaded', value: 'gone' });
      setLoaded((now) => (now.state === 'loaded' && now.value !== 'gone' ? { state: 'loaded', value: applied(now.value, event) } : now));
    };
    // A watch that drops once the page is shown keeps it as it is (and what a person is typing in it)
    // while it reconnects; its first read failing says so.
    const fail = (message: string) => setLoaded((now) => (now.state === 'loaded' ? now : { state: 'failed', message }));
    return keepWatching((signal) => client.watch(apply, signal, id), fail);
  }, [client, id]);
  return loaded;
}

function withDeployment(now: Loaded<Deployment[]>, deployment: Deployment): Loaded<Deployment[]> {
  if (now.state !== 'loaded') return now;
  const known = now.value.some((d) => d.id === deployment.id);
  return { state: 'loaded', value: known ? now.value.map((d) => (d.id === deployment.id ? deployment : d)) : [deployment, ...now.value] };
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

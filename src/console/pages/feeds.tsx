// What was said about a deployment: its events (Berth's and Kubernetes', newest first) and a revision's
// logs, followed as they come, with a level filter and a search.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, type Client, type DeploymentEvent, type LogPage, type LogType, type Revision } from '../api.ts';
import { Alert, when } from '../parts.tsx';

const eventsRefreshMs = 10_000;
const followMs = 2_000;

export function Events({ client, id }: { client: Client; id: string }) {
  const [events, setEvents] = useState<DeploymentEvent[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let stopped = false;
    const read = () =>
      client.events(id).then(
        (found) => !stopped && (setEvents(found), setError(undefined)),
        (failure: unknown) => !stopped && setError(messageOf(failure)),
      );
    void read();
    const timer = setInterval(read, eventsRefreshMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [client, id]);
  return (
    <>
      <h2>Events</h2>
      <Alert text={error} before="The events could not be read: " />
      {events === undefined && !error ? <p class="hint">Loading events…</p> : null}
      {events?.length === 0 ? (
        <p class="empty">Nothing was said about this deployment lately (Kubernetes keeps events for an hour).</p>
      ) : null}
      {events && events.length > 0 ? (
        <table class="events">
          <tbody>
            {events.map((event) => (
              <tr data-event={event.reason} class={event.type === 'Warning' ? 'bad' : undefined}>
                <td class="hint">{when(event.last_seen)}</td>
                <td>{event.reason}</td>
                <td>
                  {event.object.kind} {event.object.name}
                </td>
                <td class="message">
                  {event.message}
                  {event.count > 1 ? <span class="hint"> (×{event.count})</span> : null}
                </td>
                <td class="hint">{event.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

type Lines = LogPage['logs'];

/** A revision's build or deploy log: read, then followed from where it ended. */
function useLog(client: Client, id: string, revision: string | undefined, filter: { type: LogType; level: string; query: string }) {
  const [lines, setLines] = useState<Lines>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    setLines([]);
    setError(undefined);
    if (!revision) return;
    let stopped = false;
    let offset: string | undefined;
    const read = async () => {
      try {
        const page = await client.logs(id, revision, { ...filter, ...(offset ? { offset } : {}) });
        if (stopped) return;
        offset = page.next_offset ?? offset;
        if (page.logs.length > 0) setLines((now) => [...now, ...page.logs].slice(-2000));
        setError(undefined);
      } catch (failure) {
        if (!stopped) setError(messageOf(failure));
      }
    };
    void read();
    const timer = setInterval(() => void read(), followMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [client, id, revision, filter.type, filter.level, filter.query]);
  return { lines, error };
}

export function Logs({ client, id, revisions, active }: { client: Client; id: string; revisions: Revision[]; active: string | null }) {
  const [revision, setRevision] = useState<string | undefined>(active ?? revisions[0]?.id);
  const [type, setType] = useState<LogType>('deploy');
  const [level, setLevel] = useState('');
  const [query, setQuery] = useState('');
  const chosen = revision ?? active ?? revisions[0]?.id;
  const { lines, error } = useLog(client, id, chosen, { type, level, query });
  return (
    <>
      <h2>Logs</h2>
      <div class="filters">
        <select name="log-revision" aria-label="Revision" value={chosen} onChange={(e) => setRevision(e.currentTarget.value)}>
          {revisions.map((r) => (
            <option value={r.id}>{r.name}</option>
          ))}
        </select>
        <select name="log-type" aria-label="Log" value={type} onChange={(e) => setType(e.currentTarget.value as LogType)}>
          <option value="deploy">deploy (its pods)</option>
          <option value="build">build</option>
        </select>
        <select name="log-level" aria-label="Level" value={level} onChange={(e) => setLevel(e.currentTarget.value)}>
          <option value="">any level</option>
          {['debug', 'info', 'warning', 'error', 'critical'].map((name) => (
            <option value={name}>{name}</option>
          ))}
        </select>
        <input
          name="log-query"
          type="search"
          aria-label="Search the log"
          placeholder="Search the lines"
          value={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
        />
      </div>
      <Alert text={error} before="The log could not be read: " />
      {!chosen ? <p class="empty">No revision yet, so no log.</p> : null}
      {chosen && lines.length === 0 && !error ? <p class="empty">No line yet; new ones appear as they are written.</p> : null}
      {lines.length > 0 ? (
        <pre class="log">
          {lines.map((line) => (
            <div class={`line ${line.level}`} key={line.id}>
              <span class="hint">{line.timestamp.slice(11, 19)} </span>
              {line.message}
            </div>
          ))}
        </pre>
      ) : null}
    </>
  );
}

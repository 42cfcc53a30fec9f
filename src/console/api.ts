// The console's client of Berth's public HTTP API: the same routes, keys and organizations as any
// client's. The only place server code enters the console, and only as types (`import type`): a field
// renamed in the API's zod schemas fails the console's type check.
import type {
  DeploymentCreate,
  DeploymentEvent,
  DeploymentMetricsRange,
  DeploymentPatch,
  DeploymentResponse,
  RevisionResponse,
} from '../facade/wire-schemas.ts';
import type { LogPage, LogType } from '../facade/logs.ts';
import type { Session } from './session.ts';

export type Deployment = DeploymentResponse;
export type Revision = RevisionResponse;
export type { DeploymentEvent, DeploymentMetricsRange, DeploymentPatch, LogPage, LogType };
/** What a log read asks for: the filters of the logs route. */
export interface LogRequest {
  type: LogType;
  level?: string;
  query?: string;
  /** The next_offset of the page before: only the lines after it. */
  offset?: string;
}
export type DeploymentDraft = Pick<DeploymentCreate, 'name' | 'source'> & { source_revision_config: { image_uri: string } };

/** What the API said went wrong, as a sentence a person reads. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** What went wrong, as a person reads it: an error's message. */
export function messageOf(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}

type Problem = { detail?: string | { loc: (string | number)[]; msg: string }[] };

function problemText(status: number, body: Problem | undefined): string {
  const detail = body?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((entry) => `${entry.loc.slice(1).join('.')}: ${entry.msg}`).join('; ');
  return `The API answered ${status}.`;
}

/** A client for one key; `refused` hears the API's words when it refuses the key (401). */
export function createClient(session: Session, refused: (message: string) => void) {
  const headers = (extra: Record<string, string> = {}) => ({
    'x-api-key': session.apiKey,
    ...(session.tenantId ? { 'x-tenant-id': session.tenantId } : {}),
    ...extra,
  });

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      credentials: 'omit',
      cache: 'no-store',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (response.ok) return parsed as T;
    const message = problemText(response.status, parsed as Problem | undefined);
    if (response.status === 401) refused(message);
    throw new ApiError(response.status, message);
  }

  return {
    deployments: async () => (await call<{ resources: Deployment[] }>('GET', '/v2/deployments?limit=100')).resources,
    deployment: (id: string) => call<Deployment>('GET', `/v2/deployments/${encodeURIComponent(id)}`),
    revisions: async (id: string) =>
      (await call<{ resources: Revision[] }>('GET', `/v2/deployments/${encodeURIComponent(id)}/revisions?limit=50`)).resources,
    events: async (id: string) =>
      (await call<{ resources: DeploymentEvent[] }>('GET', `/v2/deployments/${encodeURIComponent(id)}/events?limit=50`)).resources,
    logs: (id: string, revision: string, request: LogRequest) =>
      call<LogPage>('GET', `/v2/deployments/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revision)}/logs?${logQuery(request)}`),
    metricsRange: (id: string, range: { start: Date; end: Date; stepSeconds: number }) =>
      call<DeploymentMetricsRange>(
        'GET',
        `/v2/deployments/${encodeURIComponent(id)}/metrics?${new URLSearchParams({
          start: range.start.toISOString(),
          end: range.end.toISOString(),
          step: String(range.stepSeconds),
        })}`,
      ),
    create: (draft: DeploymentDraft) => call<Deployment>('POST', '/v2/deployments', draft),
    patch: (id: string, changes: DeploymentPatch) => call<Deployment>('PATCH', `/v2/deployments/${encodeURIComponent(id)}`, changes),
    remove: (id: string) => call<void>('DELETE', `/v2/deployments/${encodeURIComponent(id)}`),
    redeploy: (id: string, revision: string) =>
      call<unknown>('POST', `/v2/deployments/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revision)}/redeploy`),
    interrupt: (id: string, revision: string) =>
      call<unknown>('POST', `/v2/deployments/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revision)}/interrupt`),
    watch: async (onEvent: (event: WatchEvent) => void, signal: AbortSignal, deploymentId?: string) => {
      try {
        await watchStream(headers(), onEvent, signal, deploymentId);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) refused(error.message);
        throw error;
      }
    },
  };
}

export type Client = ReturnType<typeof createClient>;

/** A log read's query: oldest first, so that a page read after another follows on from it. */
function logQuery(request: LogRequest): string {
  const query = new URLSearchParams({ type: request.type, order: 'asc', limit: '1000' });
  if (request.level) query.set('level', request.level);
  if (request.query) query.set('query', request.query);
  if (request.offset) query.set('offset', request.offset);
  return query.toString();
}

export type WatchEvent =
  | { type: 'ready' }
  | { type: 'deployment'; deployment: Deployment }
  | { type: 'deployment_deleted'; id: string }
  | { type: 'revision'; revision: Revision };

/**
 * Server-sent events from GET /v2/deployments/watch, read with fetch (EventSource cannot send the key).
 * Resolves when the stream ends (the server ends it after 10 minutes); the caller reconnects.
 */
async function watchStream(
  headers: Record<string, string>,
  onEvent: (event: WatchEvent) => void,
  signal: AbortSignal,
  deploymentId?: string,
): Promise<void> {
  const query = deploymentId ? `?deployment_id=${encodeURIComponent(deploymentId)}` : '';
  const response = await fetch(`/v2/deployments/watch${query}`, { headers, credentials: 'omit', cache: 'no-store', signal });
  if (!response.ok || !response.body) {
    // An error answer need not be JSON (a proxy's page): problemText then names the status.
    const problem = (await response.json().catch(() => undefined)) as Problem | undefined;
    throw new ApiError(response.status, problemText(response.status, problem));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = parseEvent(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      if (event) onEvent(event);
    }
  }
}

/** One server-sent event (`event:` and `data:` lines); comments and unknown events are skipped. */
export function parseEvent(block: string): WatchEvent | undefined {
  let name = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  const payload = data.length > 0 ? (JSON.parse(data.join('\n')) as unknown) : undefined;
  if (name === 'ready') return { type: 'ready' };
  if (name === 'deployment') return { type: 'deployment', deployment: payload as Deployment };
  if (name === 'deployment_deleted') return { type: 'deployment_deleted', id: (payload as { id: string }).id };
  if (name === 'revision') return { type: 'revision', revision: payload as Revision };
  return undefined;
}

// Berth's HTTP API as the node and helm suites call it: JSON in and out over a real socket, every request
// bounded in time, with the headers a client sends (an API key, a tenant).
import { eventually } from '../../workbench/support/poll.ts';
export interface Api {
  url: string;
  // Response bodies are checked member by member.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** call, failing on any status from 300 up with the method, path, status and body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ok(method: string, path: string, body?: unknown): Promise<any>;
}

/** Berth's HTTP API at `url` (a prefix such as /api-host included), sending `headers` with every request. */
export function httpApi(url: string, headers: Record<string, string>): Api {
  const call: Api['call'] = async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  return {
    url,
    call,
    async ok(method, path, body) {
      const response = await call(method, path, body);
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    },
  };
}

/**
 * Polls a revision through the API until its status is one of `statuses`; `seen` collects every status
 * it passed through (for checks of the order of phases).
 */
export function revisionReaches(
  api: Api,
  deploymentId: string,
  revisionId: string,
  statuses: string[],
  options: { seen?: string[]; timeoutMs?: number } = {},
) {
  const seen = options.seen ?? [];
  return eventually(
    async () => {
      const revision = await api.ok('GET', `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
      if (seen.at(-1) !== revision.status) seen.push(revision.status);
      return statuses.includes(revision.status) ? revision : undefined;
    },
    options.timeoutMs ?? 120_000,
    `revision ${revisionId} ${statuses.join(' or ')}`,
  );
}

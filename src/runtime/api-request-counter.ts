// Counts every request this process makes to a Kubernetes API server, whichever client makes it:
// the runtime's own requests report here directly, and client-node's generated clients (undici) are
// seen through undici's diagnostics channels. Sinks filter by the API server's origin, so a counter
// only sees the traffic of the cluster it belongs to.
import { subscribe } from 'node:diagnostics_channel';

export interface KubeApiRequestRecord {
  origin: string;
  method: string;
  /** Path and query string. */
  path: string;
  /** HTTP status, 0 when no response arrived. */
  status: number;
}

export interface KubeApiRequestLabels {
  verb: string;
  resource: string;
  code: string;
}

type Sink = (record: KubeApiRequestRecord) => void;
const sinks = new Set<Sink>();

export function recordKubeApiRequest(record: KubeApiRequestRecord): void {
  for (const sink of sinks) sink(record);
}

/**
 * Calls `sink` for every API request to `server` (a kubeconfig's cluster URL, which may carry a path
 * prefix when the API server sits behind a proxy); returns the function that stops it.
 */
export function onKubeApiRequest(server: string, sink: (labels: KubeApiRequestLabels) => void): () => void {
  listenToUndici();
  const url = new URL(server);
  const wanted = url.origin;
  const prefix = url.pathname.replace(/\/$/, '');
  const filtered: Sink = (record) => {
    if (normalizeOrigin(record.origin) !== wanted || (prefix && !record.path.startsWith(`${prefix}/`))) return;
    sink(describeKubeApiRequest({ ...record, path: record.path.slice(prefix.length) }));
  };
  sinks.add(filtered);
  return () => sinks.delete(filtered);
}

const normalizedOrigins = new Map<string, string>();

/** `https://host:443` and `https://host` are one origin; clients spell it either way. */
function normalizeOrigin(origin: string): string {
  let normalized = normalizedOrigins.get(origin);
  if (normalized === undefined) {
    try {
      normalized = new URL(origin).origin;
    } catch {
      // An origin that does not parse is compared as spelled: it is not the cluster's, and matches nothing.
      normalized = origin;
    }
    if (normalizedOrigins.size < 1000) normalizedOrigins.set(origin, normalized);
  }
  return normalized;
}

let listening = false;
function listenToUndici(): void {
  if (listening) return;
  listening = true;
  interface UndiciRequest {
    origin?: string | URL;
    method?: string;
    path?: string;
  }
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: UndiciRequest; response: { statusCode: number } };
    recordKubeApiRequest({
      origin: String(request.origin ?? ''),
      method: request.method ?? '',
      path: request.path ?? '',
      status: response.statusCode,
    });
  });
  subscribe('undici:request:error', (message) => {
    const { request } = message as { request: UndiciRequest };
    recordKubeApiRequest({ origin: String(request.origin ?? ''), method: request.method ?? '', path: request.path ?? '', status: 0 });
  });
}

/**
 * Names a request the way the API server's own audit log does: verb (get, list, watch, create,
 * update, patch, delete, deletecollection) and resource as `plural[.group][/subresource]`.
 */
export function describeKubeApiRequest(record: Pick<KubeApiRequestRecord, 'method' | 'path' | 'status'>): KubeApiRequestLabels {
  const [pathname = '', search = ''] = record.path.split('?');
  const query = new URLSearchParams(search);
  const parts = pathname.split('/').filter(Boolean);
  let group = '';
  let rest: string[];
  if (parts[0] === 'api') {
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    group = parts[1] ?? '';
    rest = parts.slice(3);
  } else {
    return { verb: record.method.toLowerCase(), resource: 'nonresource', code: String(record.status) };
  }
  // `/namespaces/<ns>/<plural>...` scopes a resource; `/namespaces/<ns>/status` is the namespace's own.
  if (rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  const [plural, name, subresource] = rest;
  if (!plural) {
    return { verb: record.method.toLowerCase(), resource: 'discovery', code: String(record.status) };
  }
  const resource = `${plural}${group ? `.${group}` : ''}${subresource ? `/${subresource}` : ''}`;
  const watch = query.get('watch');
  const verb = (() => {
    switch (record.method.toUpperCase()) {
      case 'GET':
        if (watch === 'true' || watch === '1') return 'watch';
        return name ? 'get' : 'list';
      case 'POST':
        return 'create';
      case 'PUT':
        return 'update';
      case 'PATCH':
        return 'patch';
      case 'DELETE':
        return name ? 'delete' : 'deletecollection';
      default:
        return record.method.toLowerCase();
    }
  })();
  return { verb, resource, code: String(record.status) };
}

// Requests to the Kubernetes API server over node:https with one keep-alive agent per KubeConfig.
//
// Why not the generated clients or client-node's Watch for the runtime's own traffic: client-node
// 2.0.x builds a new undici Agent (a new TLS handshake) for every request, and its Watch owns the
// stream's lifetime (a fixed 30 s inactivity abort, no bookmarks asked for). The informer needs a
// stream it controls (server-side timeoutSeconds plus its own inactivity timer), so list, watch and
// apply go through here. Every request is reported to the API request counter.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { recordKubeApiRequest } from './api-request-counter.ts';

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the server URL, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  /** Aborts the whole request. Default 30 s; watches use their own inactivity timer instead. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A non-2xx answer from the API server, carrying its Status code and reason. */
/** One field the API server refused, and why (a Status's details.causes entry). */
export interface KubeStatusCause {
  reason?: string;
  message?: string;
  /** The field's path, e.g. spec.sourceConfig.resourceSpec.minScale or spec.secrets[0].name. */
  field?: string;
}

export class KubeApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly causes: KubeStatusCause[];
  constructor(code: number, reason: string, message: string, causes: KubeStatusCause[] = []) {
    super(message);
    this.name = 'KubeApiError';
    this.code = code;
    this.reason = reason;
    this.causes = causes;
  }
}

export function isKubeApiError(error: unknown, code?: number): error is KubeApiError {
  return error instanceof KubeApiError && (code === undefined || error.code === code);
}

const agents = new WeakMap<KubeConfig, HttpAgent>();

function agentFor(kc: KubeConfig, secure: boolean): HttpAgent {
  let agent = agents.get(kc);
  if (!agent) {
    agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    agents.set(kc, agent);
  }
  return agent;
}

/** Closes the pooled connections of a KubeConfig (on shutdown, so the process can exit). */
export function closeKubeConnections(kc: KubeConfig): void {
  agents.get(kc)?.destroy();
  agents.delete(kc);
}

function kubeUrl(kc: KubeConfig, path: string, query: KubeRequest['query'] = {}): URL {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

/** Opens a request and resolves with the response head; the caller consumes the body. */
export async function openKubeRequest(
  kc: KubeConfig,
  req: KubeRequest,
): Promise<{ request: ClientRequest; response: IncomingMessage; url: URL }> {
  const url = kubeUrl(kc, req.path, req.query);
  const secure = url.protocol === 'https:';
  const options: RequestOptions = {};
  // Re-applied per request: exec and OIDC credentials refresh, certificates do not change.
  await kc.applyToHTTPSOptions(options);
  const headers: Record<string, string> = { accept: 'application/json', ...(options.headers as Record<string, string> | undefined) };
  let payload: string | undefined;
  if (req.body !== undefined) {
    payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    headers['content-type'] = req.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = send(url, { ...options, method: req.method, headers, agent: agentFor(kc, secure), signal: req.signal }, (response) => {
      answered = true;
      recordKubeApiRequest({ origin: url.origin, method: req.method, path: url.pathname + url.search, status: response.statusCode ?? 0 });
      resolve({ request, response, url });
    });
    // Errors after the answer arrived surface on the response stream, where the caller reads it.
    request.on('error', (error) => {
      if (answered) return;
      answered = true;
      recordKubeApiRequest({ origin: url.origin, method: req.method, path: url.pathname + url.search, status: 0 });
      reject(error);
    });
    if (req.timeoutMs !== 0) {
      request.setTimeout(req.timeoutMs ?? 30_000, () => request.destroy(new Error(`${req.method} ${url.pathname} timed out`)));
    }
    request.end(payload);
  });
}

/** A response's whole body as text (an error's Status, a small answer). */
export async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends one request and returns the parsed JSON answer; non-2xx answers throw KubeApiError. */
export async function kubeRequest<T = unknown>(kc: KubeConfig, req: KubeRequest): Promise<T> {
  const text = await kubeText(kc, req);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Sends one request and returns the answer as text (pod logs); non-2xx answers throw KubeApiError. */
export async function kubeText(kc: KubeConfig, req: KubeRequest): Promise<string> {
  return readBody(await openSuccessful(kc, req));
}

/** Sends one request and answers its response, unread; a non-2xx answer is read and thrown as KubeApiError. */
async function openSuccessful(kc: KubeConfig, req: KubeRequest): Promise<IncomingMessage> {
  const { response } = await openKubeRequest(kc, req);
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) throw errorFromStatus(status, await readBody(response));
  return response;
}

export function errorFromStatus(code: number, text: string): KubeApiError {
  try {
    const status = JSON.parse(text) as { reason?: string; message?: string; code?: number; details?: { causes?: KubeStatusCause[] } };
    return new KubeApiError(status.code ?? code, status.reason ?? '', status.message ?? `HTTP ${code}`, status.details?.causes ?? []);
  } catch {
    // Not a Status (a proxy's error page, say): the body's start is the message.
    return new KubeApiError(code, '', `HTTP ${code}: ${text.slice(0, 200)}`);
  }
}

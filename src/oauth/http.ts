// The one way Berth talks to an OAuth peer: Node's fetch bounded in time and in size, JSON in and out,
// and failures turned into OAuthPeerError messages that name the peer and quote its OAuth error, but
// never a request body, a query string or userinfo (where credentials would travel).

import { isLoopbackHost, privateAddressProblem, publicNetworkFetch } from './public-network.ts';

export interface PeerRequestOptions {
  /** Whole exchange, headers and body included. */
  timeoutMs?: number;
  /** Largest response body read; metadata documents are a few KiB. */
  maxBytes?: number;
  /** Plain HTTP off loopback, for redirects too (see insecureUrlProblem). */
  allowHttp?: boolean;
  /** Loopback, private and link-local addresses too (./public-network.ts): local development, a peer
   * inside the cluster. Default: public addresses only. */
  privateNetworks?: boolean;
  /** Abandons the request (the reconcile was cancelled); rethrown as is, not as a peer failure. */
  signal?: AbortSignal;
}

const defaultPeerRequestOptions = { timeoutMs: 10_000, maxBytes: 256 * 1024 } as const;

export type PeerErrorKind = 'unreachable' | 'timeout' | 'too_large' | 'http_status' | 'invalid_response' | 'rejected';

export class OAuthPeerError extends Error {
  readonly kind: PeerErrorKind;
  readonly status: number | undefined;

  constructor(kind: PeerErrorKind, message: string, status?: number) {
    super(message);
    this.name = 'OAuthPeerError';
    this.kind = kind;
    this.status = status;
  }
}

export interface PeerResponse {
  status: number;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  body: unknown;
}

/** The URL as it may appear in a message: origin and path only. */
export function describeUrl(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    // Not quoted: text that is no URL may still carry userinfo or a query.
    return '(invalid URL)';
  }
}

/** A peer-supplied string made safe for one line of a status message. */
function quotePeerText(text: unknown, max = 200): string | undefined {
  if (typeof text !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (!flat) return undefined;
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

/** `invalid_client_metadata: redirect_uris must ...` from an RFC 6749 / RFC 7591 error body. */
export function describeOAuthErrorBody(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { error, error_description: description } = body as Record<string, unknown>;
  const code = quotePeerText(error, 80);
  const detail = quotePeerText(description);
  if (code && detail) return `${code}: ${detail}`;
  return code ?? detail;
}

function networkCause(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return quotePeerText(cause.message) ?? 'network error';
  return quotePeerText((error as Error).message) ?? 'network error';
}

async function readBounded(response: Response, maxBytes: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new OAuthPeerError('too_large', `${what}: response larger than ${maxBytes} bytes`, response.status);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      // Leaving the loop early cancels the stream, so the rest is never downloaded.
      throw new OAuthPeerError('too_large', `${what}: response larger than ${maxBytes} bytes`, response.status);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const maxRedirects = 3;

/**
 * Sends one request and answers the status and the parsed JSON body, whatever the status: callers
 * decide what a 404 means. Throws OAuthPeerError for network failures, timeouts and oversized bodies.
 * A GET follows a few redirects, each checked like the first URL, so a redirect cannot take Berth to
 * plain HTTP; a POST follows none, since it could carry credentials to a host nobody configured.
 */
export async function requestJson(
  method: 'GET' | 'POST',
  url: string,
  init: { json?: unknown; headers?: Record<string, string> } & PeerRequestOptions = {},
): Promise<PeerResponse> {
  const timeoutMs = init.timeoutMs ?? defaultPeerRequestOptions.timeoutMs;
  const maxBytes = init.maxBytes ?? defaultPeerRequestOptions.maxBytes;
  const what = `${method} ${describeUrl(url)}`;
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  try {
    let target = url;
    for (let hop = 0; ; hop++) {
      const privateTarget = init.privateNetworks ? undefined : privateAddressProblem(target);
      if (privateTarget) throw new OAuthPeerError('rejected', `${what}: ${privateTarget}`);
      const request = {
        method,
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
        signal,
        redirect: 'manual' as const,
      };
      const send = init.privateNetworks ? fetch : await publicNetworkFetch();
      const response = await send(target, request);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        const next = new URL(location, target).toString();
        if (method !== 'GET' || hop >= maxRedirects) {
          throw new OAuthPeerError(
            'http_status',
            `${what}: answered ${response.status}, a redirect Berth does not follow`,
            response.status,
          );
        }
        const problem = insecureUrlProblem(next, init.allowHttp);
        if (problem) throw new OAuthPeerError('rejected', `${what}: redirected to ${problem}`, response.status);
        target = next;
        continue;
      }
      const text = await readBounded(response, maxBytes, what);
      return { status: response.status, body: parseJson(text) };
    }
  } catch (error) {
    if (error instanceof OAuthPeerError || init.signal?.aborted) throw error;
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new OAuthPeerError('timeout', `${what}: no complete answer within ${timeoutMs} ms`);
    }
    throw new OAuthPeerError('unreachable', `${what}: ${networkCause(error)}`);
  }
}

/**
 * Why `url` may not be used for OAuth traffic, or undefined when it may: credentials and tokens
 * travel only over HTTPS, except on loopback (local development and tests) or when the operator
 * explicitly allows plain HTTP (an in-cluster provider behind a service mesh).
 */
export function insecureUrlProblem(url: string, allowHttp = false): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a valid URL`;
  }
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && (allowHttp || isLoopbackHost(parsed.hostname))) return undefined;
  return `${describeUrl(parsed)} must use https`;
}

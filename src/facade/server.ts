// The Fastify instance every route is mounted on, with the parts that make bad input harmless: one
// JSON parser (strict, size-limited), one error handler (a 4xx with a detail for anything a client
// caused, a bare 500 for the rest, never a stack trace), one not-found answer.
import Fastify, { LogController, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { HttpError } from './errors.ts';
import { clientErrorFromKube } from './kube-errors.ts';

export interface ServerOptions {
  logger: Logger;
  /** Largest request body accepted, in bytes; larger ones answer 413. */
  bodyLimit?: number;
  /** Longest a request may take to arrive whole, headers and body; then 408 and the connection closes. */
  requestTimeoutMs?: number;
  /** Longest a connection may stay silent (no byte either way); then it is closed. */
  idleTimeoutMs?: number;
}

const defaultBodyLimit = 1024 * 1024;
/** The reference's deploy client gives an archive upload 300 s: a request gets a little more. */
const defaultRequestTimeoutMs = 330_000;
const defaultIdleTimeoutMs = 60_000;

/** The reference control plane's self-hosted installations serve every route under this prefix too. */
export const selfHostedPrefix = '/api-host';

export type FacadeServer = FastifyInstance;

export function createServer(options: ServerOptions): FacadeServer {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimit ?? defaultBodyLimit,
    // The API key travels in a header and must never reach a log line: requests are logged by method,
    // URL, status and time only, and the facade's own lines name no header. Fastify's own two lines per
    // request cost a fifth of the facade's CPU under load (bench/): one line at debug level instead.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    // A provider_id may be 253 characters, more once percent-encoded; Fastify's default is 100.
    routerOptions: { maxParamLength: 1024 },
    forceCloseConnections: 'idle',
    // A client that sends slowly, or stops, holds a connection and its buffers: each request has a
    // deadline (Fastify has none by default) and a silent connection is closed.
    requestTimeout: options.requestTimeoutMs ?? defaultRequestTimeoutMs,
    connectionTimeout: options.idleTimeoutMs ?? defaultIdleTimeoutMs,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseStrictJson(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.setErrorHandler((error: FastifyError | HttpError | Error, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).send({ detail: error.detail });
    }
    const fromKube = kubeRefusal(error);
    if (fromKube) return reply.code(fromKube.statusCode).send({ detail: fromKube.detail });
    const status = (error as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send({ detail: clientMessage(error as FastifyError) });
    }
    request.log.error({ err: { message: error.message, name: error.name, stack: error.stack } }, 'request failed');
    return reply.code(500).send({ detail: 'Internal server error.' });
  });

  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
  // The pino logger's type is wider than Fastify's default logger type; routes need neither.
  return app as unknown as FacadeServer;
}

/**
 * JSON.parse, refusing what JSON.parse would quietly accept but no client means: `__proto__` or
 * `constructor.prototype` members (prototype poisoning). A syntax error answers 422 json_invalid,
 * with the position of the problem, as the reference control plane's clients expect.
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message)?.[1] ?? (/end of JSON input/.test(message) ? String(text.length) : undefined);
    throw new HttpError(422, [
      { loc: ['body', ...(position ? [Number(position)] : [])], msg: `JSON decode error: ${message}`, type: 'json_invalid' },
    ]);
  }
  const poisoned = findPoisonedKey(value, []);
  if (poisoned) {
    throw new HttpError(422, [{ loc: ['body', ...poisoned], msg: 'Forbidden member name', type: 'json_invalid' }]);
  }
  return value;
}

function findPoisonedKey(value: unknown, path: (string | number)[]): (string | number)[] | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findPoisonedKey(item, [...path, index]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (key === '__proto__') return [...path, key];
      if (key === 'constructor' && member !== null && typeof member === 'object' && 'prototype' in member) return [...path, key];
      const found = findPoisonedKey(member, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported media type: send application/json.';
    default:
      return error.message;
  }
}

/** An API server refusal that reached the handler unmapped, as the client's error; undefined for anything else. */
function kubeRefusal(error: unknown): HttpError | undefined {
  try {
    clientErrorFromKube(error);
  } catch (mapped) {
    if (mapped instanceof HttpError) return mapped;
  }
  return undefined;
}

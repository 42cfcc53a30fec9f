// node:http as an ES module, without the exports that load Node's bundled undici (WebSocket,
// CloseEvent, MessageEvent): read through require, which leaves http's lazy getters unread.
// without-http-websocket.ts says why and points every ES import of node:http here.
import type * as Http from 'node:http';
import { createRequire } from 'node:module';

const http = createRequire(import.meta.url)('node:http') as typeof Http;

export default http;
export const {
  _connectionListener,
  METHODS,
  STATUS_CODES,
  Agent,
  ClientRequest,
  IncomingMessage,
  OutgoingMessage,
  Server,
  ServerResponse,
  createServer,
  validateHeaderName,
  validateHeaderValue,
  get,
  request,
  setMaxIdleHTTPParsers,
  setGlobalProxyFromEnv,
  maxHeaderSize,
  globalAgent,
} = http as typeof http & { _connectionListener: unknown; setGlobalProxyFromEnv: unknown };

// A client that stops sending: the facade's server ends the request and the connection, over a real socket.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../runtime/logger.ts';
import { createServer, type FacadeServer } from './server.ts';

let app: FacadeServer;
let port: number;

beforeAll(async () => {
  app = createServer({ logger: createLogger({ level: 'silent' }), requestTimeoutMs: 1_000, idleTimeoutMs: 1_500 });
  app.post('/echo', async (request) => request.body ?? {});
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});

afterAll(() => app?.close());

/** Opens a connection, writes `text`, and resolves with what came back when the server closed it. */
function sendAndWait(text: string, boundMs = 20_000): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const bound = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, boundMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => {
      clearTimeout(bound);
      resolve({ answer, closed: true });
    });
    socket.on('error', () => {});
    socket.write(text);
  });
}

describe('the facade server with a client that stops sending', () => {
  it('closes a request whose body stops arriving, without an answer', async () => {
    const request = 'POST /echo HTTP/1.1\r\nHost: berth\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial": ';
    expect(await sendAndWait(request)).toEqual({ answer: '', closed: true });
  });

  it('closes a connection that says nothing', async () => {
    expect(await sendAndWait('')).toEqual({ answer: '', closed: true });
  });

  it('still serves a request that arrives in time', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      body: '{"whole": true}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(await response.json()).toEqual({ whole: true });
  });
});

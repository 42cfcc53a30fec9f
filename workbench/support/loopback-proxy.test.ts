import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackTarget, startLoopbackProxy } from './loopback-proxy.ts';

/** A CONNECT through the proxy to `authority`, then a GET of / through the tunnel: its status and body. */
function throughProxy(proxy: string, authority: string): Promise<{ connect: number; body?: string }> {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const asked = request({ host: hostname, port, method: 'CONNECT', path: authority });
    asked.on('connect', (answer, socket) => {
      if (answer.statusCode !== 200) {
        socket.destroy();
        resolve({ connect: answer.statusCode ?? 0 });
        return;
      }
      socket.write(`GET / HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve({ connect: 200, body: text.split('\r\n\r\n')[1] }));
    });
    asked.on('error', reject);
    asked.end();
  });
}

describe('the loopback proxy', () => {
  let app: Server;
  let port: number;
  let proxy: string;

  beforeAll(async () => {
    app = createServer((_, response) => response.end('from loopback'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    port = (app.address() as AddressInfo).port;
    proxy = await startLoopbackProxy();
  });

  afterAll(() => new Promise<void>((resolve) => app.close(() => resolve())));

  it('tunnels a name under localhost to loopback', async () => {
    expect(await throughProxy(proxy, `app.org.localhost:${port}`)).toEqual({ connect: 200, body: 'from loopback' });
  });

  it('refuses every other destination', async () => {
    for (const authority of [`example.com:${port}`, `127.0.0.1:${port}`, `10.96.0.1:443`, 'localhost.example.com:443']) {
      expect((await throughProxy(proxy, authority)).connect, authority).toBe(403);
    }
    expect(loopbackTarget('a.localhost')).toBeUndefined();
    expect(loopbackTarget('a.localhost:8443')).toEqual({ host: 'a.localhost', port: 8443 });
  });
});

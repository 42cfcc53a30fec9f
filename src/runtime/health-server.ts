// /healthz, /readyz and /metrics on one small HTTP server (no framework: three fixed routes).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  /** The reasons the process is not ready; empty when ready. */
  notReadyReasons: () => string[];
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (code: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'method not allowed\n');
    if (path === '/healthz' || path === '/livez') return reply(200, 'ok\n');
    if (path === '/readyz') {
      const reasons = options.notReadyReasons();
      return reasons.length === 0 ? reply(200, 'ok\n') : reply(503, `not ready:\n${reasons.map((r) => `- ${r}\n`).join('')}`);
    }
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => reply(200, text, options.registry.contentType),
        () => reply(503, 'metrics unavailable\n'),
      );
      return;
    }
    reply(404, 'not found\n');
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

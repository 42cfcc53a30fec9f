// Requests served by the facade, by route pattern (never the concrete path: ids would explode the
// label set), method and status code, on the manager's /metrics.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { FacadeServer } from './server.ts';

export function instrumentFacade(app: FacadeServer, registry: Registry): void {
  const requests = new Counter({
    name: 'berth_http_requests_total',
    help: 'HTTP API requests answered, by route, method and status code.',
    labelNames: ['route', 'method', 'code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'berth_http_request_duration_seconds',
    help: 'Time to answer an HTTP API request, by route and method.',
    labelNames: ['route', 'method'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ route, method: request.method, code: String(reply.statusCode) });
    duration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
  });
}

// The facade as a Fastify instance: the server's error model plus every route. No I/O of its own
// beyond what its dependencies do, so a test can build one over any cache and writer.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openApiDocument } from './openapi.ts';
import type { FacadeDependencies } from './ports.ts';
import { specOf, type RouteSpec } from './route-spec.ts';
import { registerDeploymentRoutes } from './routes/deployments.ts';
import { registerListenerRoutes } from './routes/listeners.ts';
import { registerLogRoutes } from './routes/logs.ts';
import { registerProviderRoutes } from './routes/providers.ts';
import { registerRepositoryRoutes } from './routes/repositories.ts';
import { registerRegistryRoutes } from './routes/registry.ts';
import { registerRevisionRoutes } from './routes/revisions.ts';
import { registerBackupRoutes } from './routes/backups.ts';
import { registerRestoreRoutes } from './routes/restores.ts';
import { registerMetricsRoutes } from './routes/metrics.ts';
import { registerEventRoutes } from './routes/events.ts';
import { registerWatchRoutes } from './routes/watch.ts';
import { registerUploadRoutes } from './routes/uploads.ts';
import { registerWebhookRoutes } from './routes/webhooks.ts';
import { createServer, selfHostedPrefix, type FacadeServer } from './server.ts';
import { registerConsole, type ConsoleAssets } from './console.ts';

export interface FacadeAppOptions {
  logger: Logger;
  bodyLimit?: number;
  /** The web console at /console/ (console.ts), at the root only and outside the API's document. */
  console?: { assets: ConsoleAssets | undefined };
}

export function buildFacadeApp(deps: FacadeDependencies, options: FacadeAppOptions): FacadeServer {
  const app = createServer(options);
  // The document says what the served routes declare: collected as they are registered, made once.
  const declared: RouteSpec[] = [];
  app.addHook('onRoute', (route) => {
    const spec = specOf(route.config);
    // Fastify adds a HEAD route beside each GET, with its config: the GET stands for both.
    if (spec && route.method !== 'HEAD' && !route.url.startsWith(`${selfHostedPrefix}/`)) declared.push(spec);
  });
  let document = '';
  app.addHook('onReady', async () => {
    document = JSON.stringify(openApiDocument(declared));
  });
  // One route table, mounted at the root and under the self-hosted prefix.
  const routes = async (scope: FastifyInstance) => {
    scope.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(document));
    registerProviderRoutes(scope, deps);
    registerDeploymentRoutes(scope, deps);
    registerRevisionRoutes(scope, deps);
    registerBackupRoutes(scope, deps);
    registerRestoreRoutes(scope, deps);
    registerMetricsRoutes(scope, deps);
    registerEventRoutes(scope, deps);
    registerWatchRoutes(scope, deps);
    registerLogRoutes(scope, deps);
    registerRepositoryRoutes(scope, deps);
    registerListenerRoutes(scope, deps);
    registerRegistryRoutes(scope, deps);
    registerUploadRoutes(scope, deps);
    registerWebhookRoutes(scope, deps);
  };
  void app.register(routes);
  void app.register(routes, { prefix: selfHostedPrefix });
  if (options.console) registerConsole(app, options.console.assets);
  return app;
}

// The OpenAPI document against the routes the app really registers: every route is documented with
// its method, every documented operation exists, and the self-hosted prefix serves the same table.
// No API server: the routes are registered over dependencies that are never called.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildFacadeApp } from './app.ts';
import { openApiDocument } from './openapi.ts';
import type { FacadeDependencies } from './ports.ts';
import { selfHostedPrefix } from './server.ts';

const documentedMethods = ['get', 'post', 'put', 'patch', 'delete'];

/** Stands for any dependency: registering a route reads members of its dependencies but calls none. */
const unused: unknown = new Proxy(() => unused, { get: () => unused });

async function registeredOperations(): Promise<string[]> {
  const app = buildFacadeApp(unused as FacadeDependencies, { logger: pino({ level: 'silent' }) });
  const operations: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      operations.push(`${method.toLowerCase()} ${route.url.replace(/:([a-z_]+)/g, '{$1}')}`);
    }
  });
  await app.ready();
  await app.close();
  return operations;
}

describe('the OpenAPI document', () => {
  it('documents exactly the operations the app registers, under both prefixes', async () => {
    const registered = await registeredOperations();
    const root = registered.filter((op) => !op.includes(` ${selfHostedPrefix}/`) && !op.endsWith('/openapi.json'));
    const prefixed = registered.filter((op) => op.includes(` ${selfHostedPrefix}/`) && !op.endsWith('/openapi.json'));
    const documented = Object.entries(openApiDocument().paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).filter((key) => documentedMethods.includes(key)).map((method) => `${method} ${path}`),
    );
    expect(root.sort()).toEqual([...documented].sort());
    expect(prefixed.map((op) => op.replace(` ${selfHostedPrefix}/`, ' /')).sort()).toEqual([...documented].sort());
  });
});

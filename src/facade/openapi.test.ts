// The OpenAPI document against the routes the app really registers: it is made from their declarations,
// so every route is documented with its method (one served without a declaration is missing from it),
// every documented operation exists, and the self-hosted prefix serves the same table.
// No API server: the routes are registered over dependencies that are never called.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildFacadeApp } from './app.ts';
import type { FacadeDependencies } from './ports.ts';
import { selfHostedPrefix } from './server.ts';

const documentedMethods = ['get', 'post', 'put', 'patch', 'delete'];

/** Stands for any dependency: registering a route reads members of its dependencies but calls none. */
const unused: unknown = new Proxy(() => unused, { get: () => unused });

/** The operations the app registers, and the document it serves. */
async function servedApp(): Promise<{ operations: string[]; document: { paths: Record<string, Record<string, unknown>> } }> {
  const app = buildFacadeApp(unused as FacadeDependencies, { logger: pino({ level: 'silent' }) });
  const operations: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      operations.push(`${method.toLowerCase()} ${route.url.replace(/:([a-z_]+)/g, '{$1}')}`);
    }
  });
  await app.ready();
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  await app.close();
  return { operations, document };
}

describe('the OpenAPI document', () => {
  it('documents exactly the operations the app registers, under both prefixes', async () => {
    const { operations: registered, document } = await servedApp();
    const root = registered.filter((op) => !op.includes(` ${selfHostedPrefix}/`) && !op.endsWith('/openapi.json'));
    const prefixed = registered.filter((op) => op.includes(` ${selfHostedPrefix}/`) && !op.endsWith('/openapi.json'));
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => documentedMethods.includes(key))
        .map((method) => `${method} ${path}`),
    );
    expect(root.sort()).toEqual([...documented].sort());
    expect(prefixed.map((op) => op.replace(` ${selfHostedPrefix}/`, ' /')).sort()).toEqual([...documented].sort());
  });
});

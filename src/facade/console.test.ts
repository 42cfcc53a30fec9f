import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleCsp, loadConsole, registerConsole } from './console.ts';

const dir = mkdtempSync(join(tmpdir(), 'berth-console-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(
  join(dir, 'index.html'),
  '<!doctype html><div id="app"></div><script type="module" src="/console/assets/index-1.js"></script>',
);
writeFileSync(join(dir, 'assets', 'index-1.js'), 'console.log("berth")');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function appWith(assets: ReturnType<typeof loadConsole>) {
  const app = Fastify();
  registerConsole(app, assets);
  await app.ready();
  return app;
}

describe('the console from memory', () => {
  it('serves its page with a strict CSP, revalidated, and its hashed files for good, compressed as asked', async () => {
    const app = await appWith(loadConsole(dir));
    const page = await app.inject({ url: '/console/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toBe(consoleCsp);
    expect(consoleCsp).toContain("script-src 'self'");
    expect(consoleCsp).toContain("form-action 'none'");
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<div id="app">');
    const script = await app.inject({ url: '/console/assets/index-1.js', headers: { 'accept-encoding': 'gzip' } });
    expect(script.headers['cache-control']).toContain('immutable');
    expect(script.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(script.rawPayload).toString()).toBe('console.log("berth")');
    expect(
      (await app.inject({ url: '/console/assets/index-1.js', headers: { 'accept-encoding': 'br, gzip' } })).headers['content-encoding'],
    ).toBe('br');
    const again = await app.inject({ url: '/console/assets/index-1.js', headers: { 'if-none-match': String(script.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect((await app.inject({ url: '/console' })).headers.location).toBe('/console/');
  });

  it('answers a deep link with its page, and a missing file or a path out of it with 404', async () => {
    const app = await appWith(loadConsole(dir));
    expect((await app.inject({ url: '/console/deployments/0b6f6a4e-0000-4000-8000-000000000001' })).body).toContain('<div id="app">');
    for (const url of ['/console/assets/missing.js', '/console/../package.json', '/console/%2e%2e/package.json', '/console/x.json']) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.body).not.toContain('"dependencies"');
    }
  });

  it('says how to build it where it is not built', async () => {
    const app = await appWith(loadConsole(join(dir, 'nowhere')));
    const answer = await app.inject({ url: '/console/' });
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual({ detail: expect.stringContaining('npm run build:console') });
  });
});

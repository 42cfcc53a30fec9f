// The web console: dist/console (vite.console.config.ts) served from memory at /console/, with a strict
// CSP. Its files are read once at start, so no request path ever reaches the filesystem. The console
// calls the public API like any client: nothing here reads a key.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Only the console's own files, no inline script or style, no framing, and a form never navigates. */
export const consoleCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

const securityHeaders = {
  'content-security-policy': consoleCsp,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  body: Buffer;
  br: Buffer;
  gzip: Buffer;
  type: string;
  etag: string;
  /** Named by their content's hash (assets/): cached for good. */
  immutable: boolean;
}

/** The console's files by their path below /console/ (`index.html`, `assets/index-<hash>.js`). */
export type ConsoleAssets = ReadonlyMap<string, Asset>;

/** dist/console beside the running code: from dist/facade in the image, from src/facade in a checkout. */
export const defaultConsoleDir = (): string => join(import.meta.dirname, '..', '..', 'dist', 'console');

/** The built console, or undefined when it is not built here. Text is compressed once, now. */
export function loadConsole(dir: string): ConsoleAssets | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const key = relative(dir, path).split(sep).join('/');
    const body = readFileSync(path);
    assets.set(key, {
      body,
      br: brotliCompressSync(body),
      gzip: gzipSync(body, { level: 9 }),
      type: types[extname(key)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      immutable: key.startsWith('assets/'),
    });
  }
  return assets;
}

/** A path the console answers: a file it has, or any other page of the app (deep links), its index. */
export function consoleAsset(assets: ConsoleAssets, path: string): Asset | undefined {
  return assets.get(path) ?? (path.startsWith('assets/') || extname(path) ? undefined : assets.get('index.html'));
}

export function registerConsole(app: FastifyInstance, assets: ConsoleAssets | undefined): void {
  app.get('/console', (_request, reply) => reply.redirect('/console/', 308));
  app.get('/console/*', async (request: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply) => {
    reply.headers(securityHeaders);
    if (!assets) return reply.code(404).send({ detail: 'The console is not built here: npm run build:console makes dist/console.' });
    const asset = consoleAsset(assets, request.params['*']);
    if (!asset) return reply.code(404).send({ detail: 'Not Found' });
    reply
      .header('vary', 'accept-encoding')
      .header('etag', asset.etag)
      .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    const accepts = String(request.headers['accept-encoding'] ?? '');
    const [body, encoding] = /\bbr\b/.test(accepts) ? [asset.br, 'br'] : /\bgzip\b/.test(accepts) ? [asset.gzip, 'gzip'] : [asset.body];
    if (encoding) reply.header('content-encoding', encoding);
    return reply.type(asset.type).send(body);
  });
}

// How the berth process is set up before its modules load (src/main.ts): the Node flags it runs with,
// the same wherever it is started, and client-node's KubeConfig loaded without the API clients.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFlags, processEnvironment } from './node-flags.ts';
import { configModule, standIns } from './without-api-clients.ts';

const root = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('the Node flags and environment', () => {
  it('are the same in the entry points, npm start and the image', () => {
    const flags = nodeFlags.join(' ');
    expect(read('src/main.ts').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
    expect(read('workbench/main.ts').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
    expect(JSON.parse(read('package.json')).scripts.start).toBe(`node ${flags} workbench/main.ts`);
    const entrypoint = /^ENTRYPOINT (.*)$/m.exec(read('Dockerfile'))?.[1];
    expect(JSON.parse(entrypoint ?? '[]')).toEqual(['node', ...nodeFlags, 'dist/main.js', 'run']);
  });

  it('come with the environment the image sets', () => {
    const dockerfile = read('Dockerfile');
    for (const [name, value] of Object.entries(processEnvironment)) expect(dockerfile).toMatch(new RegExp(`^ENV ${name}=${value}$`, 'm'));
  });
});

describe('KubeConfig without the API clients', () => {
  // In a process of its own, as src/main.ts sets it up: the hook must be in place before client-node loads.
  const script = `
    import { registerHooks } from 'node:module';
    import { loadKubeConfigWithoutApiClients } from ${JSON.stringify(join(root, 'src/cli/without-api-clients.ts'))};
    loadKubeConfigWithoutApiClients();
    const resolved = [];
    registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); resolved.push(r.url); return r; } });
    const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
    const kc = new KubeConfig();
    kc.loadFromString(JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
      clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:6443', 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 'secret-token' } }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    }));
    const options = {};
    await kc.applyToHTTPSOptions(options);
    let refused = '';
    try { kc.makeApiClient(class {}); } catch (error) { refused = error.message; }
    console.log(JSON.stringify({ server: kc.getCurrentCluster().server, authorization: options.headers?.Authorization, refused, resolved }));
  `;

  it('reads the configuration and applies its credentials, with stand-ins for the API clients and undici', () => {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as {
      server: string;
      authorization: string;
      refused: string;
      resolved: string[];
    };
    expect(result.server).toBe('https://127.0.0.1:6443');
    expect(result.authorization).toBe('Bearer secret-token');
    expect(result.refused).toMatch(/not loaded in the berth process/);
    expect(result.resolved.filter((url) => url.includes('stand-in')).sort()).toEqual([
      expect.stringMatching(/api-clients-stand-in\.ts$/),
      expect.stringMatching(/undici-stand-in\.ts$/),
    ]);
    expect(result.resolved.filter((url) => /client-node\/dist\/gen\/index\.js$|\/undici\//.test(url))).toEqual([]);
  });

  it('names imports that client-node still makes: an upgrade that moves them fails here, not in production memory', () => {
    const config = read(`node_modules${configModule}`);
    for (const specifier of Object.keys(standIns)) expect(config).toContain(`from '${specifier}'`);
  });
});

describe('what berth run loads', () => {
  // The entry point itself, run against a cluster that refuses connections: every module a start
  // imports is loaded by the time its informers retry. A preload reports what was loaded.
  const report = `
    import { registerHooks } from 'node:module';
    const loaded = new Set();
    registerHooks({ load: (url, context, next) => { loaded.add(url); return next(url, context); } });
    process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify({ modules: [...loaded] }) + '\\n'));
  `;

  it("leaves out the local cluster's modules, the certificate library and undici", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-loads-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(
        kubeconfig,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'c',
          clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:1' } }],
          users: [{ name: 'u', user: { token: 't' } }],
          contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
        }),
      );
      const preload = join(dir, 'report.mjs');
      writeFileSync(preload, report);
      const child = spawn(
        process.execPath,
        ['--import', preload, join(root, 'src/main.ts'), 'run', '--probe-address', '127.0.0.1:0', '--facade-address', '127.0.0.1:0'],
        {
          env: { ...process.env, BERTH_LOG_LEVEL: 'info', KUBECONFIG: kubeconfig },
        },
      );
      let stdout = '';
      let stderr = '';
      let interrupted = false;
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      // Stopped once a cache has tried to list, so the start has imported all it imports.
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        // Once: a second SIGINT would end it before its exit handlers run.
        if (stdout.includes('list/watch failed') && !interrupted) interrupted = child.kill('SIGINT');
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await once(child, 'close');
      clearTimeout(timer);
      const line = stderr.split('\n').find((l) => l.startsWith('LOADED '));
      expect(line, stderr.slice(-2000) + stdout.slice(-2000)).toBeDefined();
      const { modules } = JSON.parse(line!.slice('LOADED '.length)) as { modules: string[] };
      // It did start: the controllers' and the facade's modules are there.
      expect(modules.some((url) => url.endsWith('/src/reconcilers/deployment/index.ts'))).toBe(true);
      expect(modules.some((url) => url.includes('/node_modules/fastify/'))).toBe(true);
      expect(modules.filter((url) => url.includes('/workbench/') || url.includes('/@peculiar/') || url.includes('/tsyringe/'))).toEqual([]);
      // undici comes with the first OAuth request (src/oauth/public-network.ts), not at start.
      expect(modules.filter((url) => url.includes('/node_modules/undici/'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

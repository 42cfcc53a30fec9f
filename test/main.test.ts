// The process as users run it: `berth run` against a cluster from KUBECONFIG, probed from outside over
// its real sockets, and stopped with SIGTERM.
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../src/facade/api-keys.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { nodeFlags, processEnvironment } from '../src/cli/node-flags.ts';

const kc = testKubeConfig();
const main = join(import.meta.dirname, '../src/main.ts');
/** `berth dev`'s entry: the workbench's (npm start), not in Berth's image. */
const workbenchMain = join(import.meta.dirname, '../workbench/main.ts');

interface Running {
  child: ChildProcessByStdio<null, Readable, Readable>;
  lines: Array<Record<string, unknown>>;
  stderr: string[];
  exited: Promise<number | null>;
}

const children: Array<ChildProcessByStdio<null, Readable, Readable>> = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startBerth(
  args: string[],
  env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: inject('kubeconfigPath') },
  entry = args[0] === 'dev' ? workbenchMain : main,
): Running {
  const child = spawn(process.execPath, [...nodeFlags, entry, ...args], {
    // Berth as users run it, at its default level (the test process itself logs nothing: vitest.config.ts).
    env: { ...env, ...processEnvironment, BERTH_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ text: line });
    }
  });
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  children.push(child);
  return { child, lines, stderr, exited };
}

function portFrom(running: Running, message: string): Promise<number> {
  return eventually(
    async () => running.lines.find((line) => line.msg === message)?.port as number | undefined,
    60_000,
    `"${message}" in the log`,
  );
}

describe('berth run', () => {
  it('serves probes, metrics and the HTTP API, reconciles, and stops on SIGTERM with exit 0', async () => {
    const operatorNamespace = await useNamespace('berth-system');
    const organizationNamespace = await useNamespace('org');
    const organizationId = crypto.randomUUID();
    await ensureOrganizationNamespace(kc, organizationNamespace, organizationId);
    const { key } = await ensureApiKey(kc, operatorNamespace, [organizationId]);

    const berth = startBerth([
      'run',
      '--namespace',
      operatorNamespace,
      '--facade-address',
      '127.0.0.1:0',
      '--probe-address',
      '127.0.0.1:0',
      '--watch-namespaces',
      `${organizationNamespace},${operatorNamespace}`,
    ]);
    const probePort = await portFrom(berth, 'serving /healthz, /readyz and /metrics');
    const facadePort = await portFrom(berth, 'serving the HTTP API');
    await eventually(async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200, 60_000, '/readyz to answer 200');
    expect((await fetch(`http://127.0.0.1:${probePort}/healthz`)).status).toBe(200);
    // --database-engine auto, the default: this cluster serves no CloudNativePG.
    expect(berth.lines.map((line) => line.msg)).toContain('new databases run on statefulset (auto: the cluster serves no CloudNativePG)');

    const facade = `http://127.0.0.1:${facadePort}`;
    expect((await fetch(`${facade}/v2/deployments`)).status).toBe(401);
    const created = await fetch(`${facade}/v2/deployments`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'hello',
        source: 'external_docker',
        source_config: { resource_spec: { min_scale: 1, max_scale: 2 } },
        source_revision_config: { image_uri: 'registry.example.com/hello:1' },
        secrets: [],
      }),
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; name: string };
    expect(body.name).toBe('hello');

    // The controller in the same process makes the first Revision and reports it.
    const custom = kc.makeApiClient(CustomObjectsApi);
    await eventually(
      async () => {
        const deployment = (await custom.getNamespacedCustomObject({
          group: 'berth.dev',
          version: 'v1alpha1',
          namespace: organizationNamespace,
          plural: 'deployments',
          name: 'hello',
        })) as {
          status?: { latestRevisionId?: string };
        };
        return deployment.status?.latestRevisionId;
      },
      60_000,
      'the first revision',
    );
    const metrics = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
    expect(metrics).toMatch(/berth_reconcile_total\{[^}]*controller="deployment"/);

    berth.child.kill('SIGTERM');
    expect(await berth.exited).toBe(0);
    expect(berth.lines.some((line) => line.msg === 'stopped')).toBe(true);
    expect(JSON.stringify(berth.lines)).not.toContain(key);
  });

  it('refuses a bad flag with a message naming it and exit code 2, starting nothing', async () => {
    const berth = startBerth(['run', '--facade-address', 'nowhere']);
    expect(await berth.exited).toBe(2);
    expect(berth.stderr.join('\n')).toContain('--facade-address: expected host:port');
  });

  it('leaves `berth dev` to the workbench: the command as the image runs it knows only run, exit code 2', async () => {
    const dev = startBerth(['dev'], undefined, main);
    expect(await dev.exited).toBe(2);
    expect(dev.stderr.join('\n')).toContain('command: expected run (or none), got dev');
    // Nor its flags: the image has no embedded cluster to keep data for.
    const devFlags = startBerth(['run', '--node', 'off'], undefined, main);
    expect(await devFlags.exited).toBe(2);
    expect(devFlags.stderr.join('\n')).toContain("Unknown option '--node'");
  });
});

/** `berth run` against the test cluster, on ports of its own, without leader election. */
const runOnTestCluster = ['run', '--facade-address', '127.0.0.1:0', '--probe-address', '127.0.0.1:0', '--leader-elect', 'false'];

describe('berth run --concurrency-metrics on a cluster without KEDA', () => {
  it('refuses to start with a message that names KEDA and exit code 1', async () => {
    const berth = startBerth([...runOnTestCluster, '--concurrency-metrics', 'http://127.0.0.1:9']);
    expect(await berth.exited).toBe(1);
    expect(JSON.stringify(berth.lines)).toContain(
      '--concurrency-metrics needs KEDA: this cluster serves no ScaledObject (keda.sh/v1alpha1)',
    );
  });
});

describe('berth run --database-engine cnpg on a cluster without CloudNativePG', () => {
  it('refuses to start with a message that names CloudNativePG and exit code 1', async () => {
    const berth = startBerth([...runOnTestCluster, '--database-engine', 'cnpg']);
    expect(await berth.exited).toBe(1);
    expect(JSON.stringify(berth.lines)).toContain(
      '--database-engine cnpg needs CloudNativePG: this cluster serves no Cluster (postgresql.cnpg.io/v1)',
    );
  });
});

describe('berth run --activator-proxy', () => {
  const base = runOnTestCluster;
  const activator = ['--activator-proxy', 'keda/interceptor-proxy:8080', '--activator-scaler', 'scaler.keda:9090'];

  it('refuses to start without a Gateway, with exit code 1', async () => {
    const berth = startBerth([...base, ...activator]);
    expect(await berth.exited).toBe(1);
    expect(JSON.stringify(berth.lines)).toContain('--activator-proxy needs a Gateway (--gateway)');
  });

  it('refuses to start on a cluster without KEDA, naming what is missing, with exit code 1', async () => {
    const berth = startBerth([...base, ...activator, '--gateway', 'gateways/public']);
    expect(await berth.exited).toBe(1);
    expect(JSON.stringify(berth.lines)).toContain(
      '--activator-proxy needs KEDA and its HTTP add-on (v0.14.0 or later): this cluster serves no ScaledObject (keda.sh/v1alpha1)',
    );
  });
});

describe('berth dev with no cluster configured', () => {
  it('starts an embedded control plane, prints a working API key, and Ctrl-C stops every process it started', async () => {
    const home = mkdtempSync(join(tmpdir(), 'berth-dev-home-'));
    const dataDir = join(home, 'data');
    // No kubeconfig anywhere; the control plane binaries the harness already uses.
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, BERTH_CONTROLPLANE_BIN: inject('controlPlaneBin') };
    delete env.KUBECONFIG;
    delete env.KUBERNETES_SERVICE_HOST;
    const running = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(dataDir) && !line.startsWith('/bin/sh'));
    try {
      // The control plane alone: the node's `berth dev` is the node suite's (test/node-lifecycle).
      const berth = startBerth(
        ['dev', '--data-dir', dataDir, '--node', 'off', '--facade-address', '127.0.0.1:0', '--probe-address', '127.0.0.1:0'],
        env,
      );
      const printed = () => berth.lines.map((line) => (typeof line.text === 'string' ? line.text : '')).join('\n');
      const key = await eventually(async () => /API key:\s+(\S+)/.exec(printed())?.[1], 150_000, 'the printed API key');
      const url = /HTTP API:\s+(\S+)/.exec(printed())![1]!;
      expect(printed()).toContain(`kubeconfig:   ${dataDir}/kubeconfig`);
      expect(running().some((line) => line.includes('kube-apiserver'))).toBe(true);

      const listed = await fetch(`${url}/v2/deployments`, { headers: { 'x-api-key': key } });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual({ resources: [], offset: 0 });

      berth.child.kill('SIGINT');
      expect(await berth.exited).toBe(0);
      await eventually(async () => running().length === 0, 30_000, 'etcd and kube-apiserver to exit');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 240_000);
});

// The process as users run it: `berth run` against a cluster from KUBECONFIG, probed from outside over
// its real sockets, and stopped with SIGTERM.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../src/facade/api-keys.ts';
import { eventually, testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
const main = join(import.meta.dirname, '../src/main.ts');

interface Running {
  child: ChildProcessByStdio<null, Readable, Readable>;
  lines: Array<Record<string, unknown>>;
  stderr: string[];
  exited: Promise<number | null>;
}

function startBerth(args: string[]): Running {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, KUBECONFIG: inject('kubeconfigPath') },
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
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, lines, stderr, exited };
}

function portFrom(running: Running, message: string): Promise<number> {
  return eventually(async () => running.lines.find((line) => line.msg === message)?.port as number | undefined, 60_000, `"${message}" in the log`);
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
      '--namespace', operatorNamespace,
      '--facade-address', '127.0.0.1:0',
      '--probe-address', '127.0.0.1:0',
      '--watch-namespaces', `${organizationNamespace},${operatorNamespace}`,
    ]);
    const probePort = await portFrom(berth, 'serving /healthz, /readyz and /metrics');
    const facadePort = await portFrom(berth, 'serving the HTTP API');
    await eventually(async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200, 60_000, '/readyz to answer 200');
    expect((await fetch(`http://127.0.0.1:${probePort}/healthz`)).status).toBe(200);

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
        const deployment = (await custom.getNamespacedCustomObject({ group: 'berth.dev', version: 'v1alpha1', namespace: organizationNamespace, plural: 'deployments', name: 'hello' })) as {
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
});

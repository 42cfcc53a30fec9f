// Berth's image, proven from outside: built from the Dockerfile, started with host networking against
// the real test control plane on 127.0.0.1, as the chart runs it (uid 65532, read-only root
// filesystem, every capability dropped, no new privileges). Skips, saying why, without a Docker engine.
import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { freePort } from '../../workbench/controlplane.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { dockerUnavailable, imageUnderTest, ReadOnlyRootContainer, repoRoot, type BuiltImage } from './docker.ts';

const unavailable = await dockerUnavailable();
if (unavailable) console.error(`image suite skipped: ${unavailable}`);

describe.skipIf(unavailable !== undefined)('the Berth image', () => {
  const kc = testKubeConfig();
  const custom = kc.makeApiClient(CustomObjectsApi);
  let image: BuiltImage;
  let berth: StartedTestContainer;
  let operatorNamespace: string;
  let organizationNamespace: string;
  let apiKey: string;
  let facade: string;
  let probes: string;
  const logs: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'berth-image-'));

  /** The hardening the chart applies, on any container of the image. */
  function hardened(container: ReadOnlyRootContainer): ReadOnlyRootContainer {
    return container.withDroppedCapabilities('ALL').withSecurityOpt('no-new-privileges').withTmpFs({ '/tmp': 'rw,size=16m' });
  }

  beforeAll(async () => {
    image = await imageUnderTest();
    console.error(
      `image ${image.tag} from ${image.base}: ${(image.sizeBytes / 1e6).toFixed(0)} MB` +
        (image.buildSeconds === undefined ? '' : `, built in ${image.buildSeconds.toFixed(0)} s`),
    );

    operatorNamespace = await useNamespace('image-operator');
    const organizationId = randomUUID();
    organizationNamespace = await useNamespace('image-org', { 'berth.dev/organization-id': organizationId });
    await ensureOrganizationNamespace(kc, organizationNamespace, organizationId);
    apiKey = (await ensureApiKey(kc, operatorNamespace, [organizationId])).key;

    // The container's user (65532) reads the kubeconfig: a copy it may read, in a directory of its own.
    const kubeconfig = join(scratch, 'kubeconfig');
    copyFileSync(inject('kubeconfigPath'), kubeconfig);
    chmodSync(kubeconfig, 0o644);
    const facadePort = await freePort();
    const probePort = await freePort();
    facade = `http://127.0.0.1:${facadePort}`;
    probes = `http://127.0.0.1:${probePort}`;
    berth = await hardened(new ReadOnlyRootContainer(image.tag))
      .withNetworkMode('host')
      .withBindMounts([{ source: kubeconfig, target: '/etc/berth/kubeconfig', mode: 'ro' }])
      .withEnvironment({
        KUBECONFIG: '/etc/berth/kubeconfig',
        POD_NAMESPACE: operatorNamespace,
        BERTH_FACADE_ADDRESS: `127.0.0.1:${facadePort}`,
        BERTH_PROBE_ADDRESS: `127.0.0.1:${probePort}`,
        BERTH_LEADER_ELECT: 'true',
      })
      .withLogConsumer((stream) => stream.on('data', (chunk: Buffer) => logs.push(...chunk.toString().split('\n').filter(Boolean))))
      .withWaitStrategy(Wait.forLogMessage(/./))
      .withStartupTimeout(60_000)
      .start();
  });

  afterAll(async () => {
    await berth?.stop({ timeout: 1_000 }).catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  });

  it('runs as uid 65532 with a read-only root filesystem', async () => {
    const probe = await hardened(new ReadOnlyRootContainer(image.tag))
      .withEntrypoint([
        'node',
        '-e',
        [
          "const fs = require('node:fs');",
          'let write = "written";',
          "try { fs.writeFileSync('/app/probe', 'x'); } catch (e) { write = e.code; }",
          "fs.writeFileSync('/tmp/probe', 'x');",
          'console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), write, node: process.version }));',
        ].join(' '),
      ])
      .withWaitStrategy(Wait.forOneShotStartup())
      .withStartupTimeout(60_000)
      .start();
    const output = await new Promise<string>((resolve) => {
      void probe.logs().then((stream) => {
        let text = '';
        stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
        stream.on('end', () => resolve(text));
      });
    });
    await probe.stop().catch(() => {});
    expect(JSON.parse(output.trim())).toMatchObject({ uid: 65532, gid: 65532, write: 'EROFS' });
    expect(JSON.parse(output.trim()).node).toMatch(/^v24\./);

    const client = await getContainerRuntimeClient();
    const inspected = await client.container.inspect(client.container.getById(berth.getId()));
    expect(inspected.Config.User).toBe('65532:65532');
    expect(inspected.HostConfig.ReadonlyRootfs).toBe(true);
    expect(inspected.Config.Entrypoint).toEqual(['node', '--optimize-for-size', 'dist/main.js', 'run']);
  });

  it('holds production dependencies only, no tests, no workbench (the embedded cluster of berth dev) and no generators', async () => {
    const probe = await new ReadOnlyRootContainer(image.tag)
      .withEntrypoint([
        'node',
        '-e',
        [
          "const fs = require('node:fs');",
          "const has = (p) => fs.existsSync('/app/' + p);",
          "const files = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(dir + '/' + e.name) : [dir + '/' + e.name]));",
          // What only the workbench's modules say: its local cluster, its node's images.
          "const workbenchCode = files('/app/dist').filter((f) => /startLocalCluster|startDevCluster|debootstrap/.test(fs.readFileSync(f, 'utf8')));",
          // The CRD and chart generators and the admission-policy renderers: scripts', the workbench's and tests'.
          "const generators = ['crd', 'crd-yaml', 'structural-schema', 'metrics-views', 'route-policy', 'network-policy-guard', 'issuer-policy', 'namespace-policy'].filter((name) => has('dist/api/' + name + '.js'));",
          "console.log(JSON.stringify({ vitest: has('node_modules/vitest'), typescript: has('node_modules/typescript'), nodePackage: has('node_modules/node'), test: has('test'), workbench: has('workbench') || has('dist/dev'), workbenchCode, generators, zod: has('node_modules/zod'), crds: has('crds') }));",
        ].join(' '),
      ])
      .withWaitStrategy(Wait.forOneShotStartup())
      .start();
    const stream = await probe.logs();
    const output = await new Promise<string>((resolve) => {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.on('end', () => resolve(text));
    });
    await probe.stop().catch(() => {});
    expect(JSON.parse(output.trim())).toEqual({
      vitest: false,
      typescript: false,
      nodePackage: false,
      test: false,
      workbench: false,
      workbenchCode: [],
      generators: [],
      zod: true,
      crds: true,
    });
  });

  it('turns ready on /readyz and answers /healthz and /metrics', async () => {
    onTestFailed(() => console.error(`Berth's last log lines:\n${logs.slice(-20).join('\n')}`));
    await eventually(
      async () => (await fetch(`${probes}/readyz`).catch(() => undefined))?.status === 200,
      60_000,
      `/readyz (logs: ${logs.slice(-5).join(' | ')})`,
    );
    expect((await fetch(`${probes}/healthz`)).status).toBe(200);
    const metrics = await fetch(`${probes}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^# (HELP|TYPE) /m);
  });

  it('serves the facade: /openapi.json, an authenticated call, and 401 without a key', async () => {
    const openapi = await fetch(`${facade}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi?: string }).openapi).toMatch(/^3\./);

    const anonymous = await fetch(`${facade}/v2/deployments`);
    expect(anonymous.status).toBe(401);
    const listed = await fetch(`${facade}/v2/deployments`, { headers: { 'X-Api-Key': apiKey } });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ resources: expect.any(Array) });
  });

  it('reconciles a Deployment applied to the API server: a Revision and a status', async () => {
    onTestFailed(() => console.error(`Berth's last log lines:\n${logs.slice(-20).join('\n')}`));
    // The whole example: the Deployment and the Secret its spec.secrets entries read from.
    const example = readFileSync(join(repoRoot, 'examples/deployment-external-docker.yaml'), 'utf8');
    const name = parseAllDocuments(example)
      .map((doc) => doc.toJSON() as { apiVersion?: string; kind?: string; metadata: { name: string } } | null)
      .find((object) => object?.kind === 'Deployment' && object.apiVersion?.startsWith('berth.dev/'))!.metadata.name;
    const applied = await kubectl(['apply', '--server-side', '-n', organizationNamespace, '-f', '-'], example);
    expect(applied.stderr).toBe('');

    const revisions = await eventually(
      async () => {
        const list = (await custom.listNamespacedCustomObject({
          group: 'berth.dev',
          version: 'v1alpha1',
          namespace: organizationNamespace,
          plural: 'revisions',
          labelSelector: `berth.dev/deployment=${name}`,
        })) as { items: { metadata: { name: string; uid: string } }[] };
        return list.items.length > 0 ? list.items : undefined;
      },
      60_000,
      'a Revision of the Deployment',
    );
    const deployment = await eventually(
      async () => {
        const object = (await custom.getNamespacedCustomObject({
          group: 'berth.dev',
          version: 'v1alpha1',
          namespace: organizationNamespace,
          plural: 'deployments',
          name,
        })) as {
          metadata: { generation: number };
          status?: { observedGeneration?: number; latestRevisionName?: string; conditions?: { type: string }[] };
        };
        return object.status?.observedGeneration === object.metadata.generation ? object : undefined;
      },
      60_000,
      'the Deployment status',
    );
    expect(deployment.status?.latestRevisionName).toBe(revisions[0]!.metadata.name);
    expect(deployment.status?.conditions?.map((c) => c.type)).toEqual(expect.arrayContaining(['Ready']));
  });

  it('logs JSON lines only, with no API key in them', () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(() => JSON.parse(line), line).not.toThrow();
    expect(logs.join('\n')).not.toContain(apiKey);
  });

  it('stops on SIGTERM within the grace period, exit code 0', async () => {
    const client = await getContainerRuntimeClient();
    const id = berth.getId();
    // docker stop sends SIGTERM and SIGKILLs only after the timeout: a clean exit is code 0, a kill 137.
    await berth.stop({ timeout: 20_000, remove: false });
    const state = (await client.container.inspect(client.container.getById(id))).State;
    expect({ exitCode: state.ExitCode, oomKilled: state.OOMKilled }).toEqual({ exitCode: 0, oomKilled: false });
    await client.container.remove(client.container.getById(id), { removeVolumes: true }).catch(() => {});
  });
});

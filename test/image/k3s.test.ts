// Opt-in (BERTH_K3S=1), for machines that can pull images: the chart installed into a real k3s, with a
// kubelet, so the pods of the image actually run: the rollout completes (probes pass under the chart's
// securityContext), one replica holds the leader Lease, and a Deployment gets its Revision. Skips,
// saying why, when not opted in, when no Docker engine answers, or when the k3s image cannot be pulled.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { K3sContainer, type StartedK3sContainer } from '@testcontainers/k3s';
import { getContainerRuntimeClient, ImageName } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../../workbench/support/poll.ts';
import { dockerUnavailable, imageUnderTest, repoRoot, type BuiltImage } from './docker.ts';
import { cachedBuild } from '../../workbench/cache-dir.ts';

const k3sImage = process.env.BERTH_K3S_IMAGE ?? 'rancher/k3s:v1.33.1-k3s1';

async function whyNot(): Promise<string | undefined> {
  if (process.env.BERTH_K3S !== '1') return 'opt-in: set BERTH_K3S=1 on a machine that can pull images';
  const docker = await dockerUnavailable();
  if (docker) return docker;
  try {
    const client = await getContainerRuntimeClient();
    await client.image.pull(ImageName.fromString(k3sImage));
    return undefined;
  } catch (error) {
    return `cannot pull ${k3sImage}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
}

const skipReason = await whyNot();
if (skipReason) console.error(`k3s suite skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('the chart on k3s', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'berth-k3s-'));
  const kubeconfig = join(scratch, 'kubeconfig');
  let k3s: StartedK3sContainer;
  let image: BuiltImage;
  let helm = '';

  const run = async (bin: string, args: string[], input?: string) => {
    const child = promisify(execFile)(bin, args, {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    if (input !== undefined) child.child.stdin?.end(input);
    return (await child).stdout;
  };
  const kubectl = (args: string[], input?: string) => run(join(inject('controlPlaneBin'), 'kubectl'), args, input);

  beforeAll(async () => {
    helm = join(cachedBuild('tools'), 'helm');
    image = await imageUnderTest();
    k3s = await new K3sContainer(k3sImage).start();
    writeFileSync(kubeconfig, k3s.getKubeConfig());
    // k3s runs its own containerd: hand it the image rather than pushing it to a registry.
    const archive = join(scratch, 'berth.tar');
    execFileSync('docker', ['save', '-o', archive, image.tag]);
    await k3s.copyFilesToContainer([{ source: archive, target: '/tmp/berth.tar' }]);
    const imported = await k3s.exec(['ctr', 'images', 'import', '/tmp/berth.tar']);
    expect(imported.exitCode).toBe(0);
  });

  afterAll(async () => {
    await k3s?.stop().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  });

  it('rolls out two hardened replicas, elects one leader and reconciles a Deployment', async () => {
    const [repository, tag] = image.tag.split(':');
    await run(helm, [
      'install',
      'berth',
      join(repoRoot, 'charts/berth'),
      '--namespace',
      'berth-system',
      '--create-namespace',
      '--set',
      `image.repository=${repository}`,
      '--set',
      `image.tag=${tag}`,
      '--set',
      'image.pullPolicy=Never',
      '--wait',
      '--timeout',
      '5m',
    ]);
    const deployment = JSON.parse(await kubectl(['-n', 'berth-system', 'get', 'deployment', 'berth', '-o', 'json'])) as {
      status: { readyReplicas?: number };
    };
    expect(deployment.status.readyReplicas).toBe(2);
    const lease = await eventually(
      async () => {
        const leases = JSON.parse(await kubectl(['-n', 'berth-system', 'get', 'leases', '-o', 'json'])) as {
          items: { spec: { holderIdentity?: string } }[];
        };
        return leases.items.find((l) => l.spec.holderIdentity)?.spec.holderIdentity;
      },
      60_000,
      'a leader',
    );
    expect(lease).toMatch(/^berth-/);

    await kubectl(['create', 'namespace', 'acme']);
    const example = readFileSync(join(repoRoot, 'examples/deployment-external-docker.yaml'), 'utf8');
    await kubectl(['apply', '--server-side', '-n', 'acme', '-f', '-'], example);
    await eventually(
      async () => {
        const revisions = JSON.parse(await kubectl(['-n', 'acme', 'get', 'revisions.berth.dev', '-o', 'json'])) as { items: unknown[] };
        return revisions.items.length > 0;
      },
      120_000,
      'a Revision',
    );
  });
});

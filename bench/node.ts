// `npm run bench:node [-- --starts N --pods N --rounds N]`: the real node's speed, each figure beside a
// baseline measured in the same run:
// - warm start: zero to node Ready and cluster DNS answering, against the control plane alone;
// - a pod of a cached image: created to Running (target 3 s), against the same pod's create-to-scheduled;
// - Berth's Deployment to a Ready pod, against a plain apps/v1 Deployment of the same image, alternated.
// Needs root and the cached binaries and images (the node suite or `npm start` builds them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { parseCommandLine } from '../src/cli/options.ts';
import { startBerth } from '../src/cli/run.ts';
import { startControlPlane } from '../src/dev/controlplane.ts';
import { installCrds } from '../src/dev/install-crds.ts';
import { startLocalCluster, type LocalCluster } from '../src/dev/local-cluster.ts';
import { pushExampleApp } from '../src/dev/node/example-app.ts';
import { nodeBinaries } from '../src/dev/node/node.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { fieldManager } from '../src/api/group.ts';

const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '3' },
    pods: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '10' },
    out: { type: 'string', default: 'bench/results/node.json' },
  },
});
const starts = Number(values.starts);
const podCount = Number(values.pods);
const rounds = Number(values.rounds);
const log = (message: string) => process.stderr.write(`[bench:node ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.9) - 1)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(25);
  }
}

async function warmStarts(): Promise<{ node: number[]; controlPlane: number[] }> {
  const node: number[] = [];
  const controlPlane: number[] = [];
  for (let i = 0; i < starts; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-node-'));
    let began = performance.now();
    const cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false });
    node.push(performance.now() - began);
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });

    const cpDir = mkdtempSync(join(tmpdir(), 'berth-bench-cp-'));
    began = performance.now();
    const plane = await startControlPlane({ dataDir: cpDir, ephemeral: true });
    controlPlane.push(performance.now() - began);
    await plane.stop();
    rmSync(cpDir, { recursive: true, force: true });
    log(`start ${i + 1}/${starts}: node Ready + DNS ${seconds(node.at(-1)!)}, control plane alone ${seconds(controlPlane.at(-1)!)}`);
  }
  return { node, controlPlane };
}

type Pod = { metadata?: { creationTimestamp?: string }; spec?: { nodeName?: string }; status?: { phase?: string; conditions?: { type: string; status: string }[] } };

async function podsToRunning(kc: KubeConfig, namespace: string, image: string): Promise<{ running: number[]; scheduled: number[] }> {
  const running: number[] = [];
  const scheduled: number[] = [];
  for (let i = 0; i < podCount; i++) {
    const name = `bench-pod-${i}`;
    const began = performance.now();
    await kubeRequest(kc, {
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/pods`,
      body: { metadata: { name }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'app', image }] } },
    });
    const path = `/api/v1/namespaces/${namespace}/pods/${name}`;
    await until(async () => ((await kubeRequest<Pod>(kc, { method: 'GET', path })).spec?.nodeName ? true : undefined));
    scheduled.push(performance.now() - began);
    await until(async () => ((await kubeRequest<Pod>(kc, { method: 'GET', path })).status?.phase === 'Running' ? true : undefined));
    running.push(performance.now() - began);
    await kubeRequest(kc, { method: 'DELETE', path });
  }
  return { running, scheduled };
}

function plainDeployment(name: string, image: string): object {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'app', image, env: [{ name: 'PORT', value: '8000' }], ports: [{ name: 'http', containerPort: 8000 }] }] },
      },
    },
  };
}

function berthDeployment(name: string, image: string): object {
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name },
    spec: { source: 'external_docker', sourceConfig: { resourceSpec: { minScale: 1, maxScale: 1, cpu: 0.1, memoryMb: 64 } }, sourceRevisionConfig: { imageUri: image } },
  };
}

/** Milliseconds from the create to a Ready pod carrying the label selector. */
async function timeToReadyPod(kc: KubeConfig, namespace: string, object: object, selector: string): Promise<number> {
  const began = performance.now();
  await applyObject(kc, { ...object, metadata: { ...(object as { metadata: object }).metadata, namespace } } as never, fieldManager);
  await until(async () => {
    const list = await kubeRequest<{ items: Pod[] }>(kc, { method: 'GET', path: `/api/v1/namespaces/${namespace}/pods`, query: { labelSelector: selector } });
    return list.items.some((pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ? true : undefined;
  });
  return performance.now() - began;
}

async function deploymentRounds(kc: KubeConfig, namespace: string, image: string): Promise<{ berth: number[]; plain: number[] }> {
  const options = parseCommandLine(['run', '--components', 'controller', '--leader-elect', 'false', '--probe-address', '127.0.0.1:0', '--watch-namespaces', namespace]);
  if (options.help) throw new Error('unexpected help');
  const berth = await startBerth(kc as never, options.options, createLogger({ level: 'warn' }));
  const times = { berth: [] as number[], plain: [] as number[] };
  try {
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first, so a change of load falls on both.
      const order = i % 2 === 0 ? (['plain', 'berth'] as const) : (['berth', 'plain'] as const);
      for (const kind of order) {
        const name = `${kind}-${i}`;
        const object = kind === 'plain' ? plainDeployment(name, image) : berthDeployment(name, image);
        const selector = kind === 'plain' ? `app=${name}` : `berth.dev/deployment=${name},app.kubernetes.io/component=application`;
        times[kind].push(await timeToReadyPod(kc, namespace, object, selector));
      }
      log(`round ${i + 1}/${rounds}: plain ${seconds(times.plain.at(-1)!)}, Berth ${seconds(times.berth.at(-1)!)}`);
    }
  } finally {
    await berth.stop();
  }
  return times;
}

let cluster: LocalCluster | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-node-'));
try {
  const startTimes = await warmStarts();
  cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.controlPlane.kubeconfigPath);
  await installCrds(kc, join(import.meta.dirname, '../crds'));
  const namespace = `bench-node-${Date.now()}`;
  await kubeRequest(kc, { method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
  const image = await pushExampleApp(join(nodeBinaries(), 'crane'), cluster.node!.registry, 'bench');
  // The first pull puts the image in containerd's store: every measured pod uses a cached image.
  await podsToRunning(kc, namespace, image).catch(() => undefined);
  const pods = await podsToRunning(kc, namespace, image);
  const deployments = await deploymentRounds(kc, namespace, image);
  const results = {
    machine: { cpus: (await import('node:os')).cpus().length },
    warmStart: { nodeMs: startTimes.node, controlPlaneMs: startTimes.controlPlane, medianNodeMs: median(startTimes.node), ratioToControlPlane: median(startTimes.node) / median(startTimes.controlPlane) },
    podToRunning: { runningMs: pods.running, scheduledMs: pods.scheduled, medianMs: median(pods.running), p90Ms: p90(pods.running) },
    deploymentToReadyPod: { berthMs: deployments.berth, plainMs: deployments.plain, ratioMedian: median(deployments.berth) / median(deployments.plain), ratioP90: p90(deployments.berth) / p90(deployments.plain) },
  };
  writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(
    [
      `warm start to node Ready + DNS: median ${seconds(results.warmStart.medianNodeMs)} (target <= 20 s); ${results.warmStart.ratioToControlPlane.toFixed(2)}x the control plane alone`,
      `pod of a cached image, created to Running: median ${seconds(results.podToRunning.medianMs)}, p90 ${seconds(results.podToRunning.p90Ms)} (target <= 3 s); scheduled at median ${seconds(median(pods.scheduled))}`,
      `Berth Deployment to a Ready pod vs apps/v1 Deployment: median ratio ${results.deploymentToReadyPod.ratioMedian.toFixed(2)}, p90 ratio ${results.deploymentToReadyPod.ratioP90.toFixed(2)} (Berth median ${seconds(median(deployments.berth))}, plain ${seconds(median(deployments.plain))})`,
      `raw figures: ${values.out}`,
      '',
    ].join('\n'),
  );
} finally {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

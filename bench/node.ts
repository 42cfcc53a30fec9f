// `npm run bench:node [-- --starts N --pods N --rounds N]`: the real node's speed, each figure beside a
// baseline measured in the same run:
// - warm start: zero to node Ready and cluster DNS answering, against the control plane alone;
// - a pod of a cached image: created to Running (target 3 s), against the same pod's create-to-scheduled;
// - Berth's Deployment to a Ready pod, against a plain apps/v1 Deployment of the same image, alternated;
// - an image change until only the new image serves (Berth: the revision DEPLOYED and its pods alone
//   answering), against the same change on a plain apps/v1 Deployment with the same strategy and probe
//   (target ratio <= 1.1, median and p90);
// - a bad image: from the kubelet's first pull error to the revision DEPLOY_FAILED (target <= 30 s);
// - a push to a build-on-push branch until the built image serves, broken down (noticed, clone, commands,
//   image build and push, rollout), against the same build Job run without Berth plus the same image
//   change on a plain apps/v1 Deployment (target ratio <= 1.2).
// - a deployment's URL through the node's Gateway: create to answering, and an image change until only
//   the new image answers, against a plain apps/v1 Deployment with a hand-written HTTPRoute (bench/url-rounds.ts).
// - autoscaling: a step load through the URL until the maximum of ready replicas, and the client's p99
//   meanwhile, against the same pod under a hand-written HorizontalPodAutoscaler (bench/scale-rounds.ts).
// - requests in flight: the same with 30 slow, CPU-cheap requests held open, Berth with --concurrency-metrics
//   against the same pod under a hand-written KEDA ScaledObject of the same query.
// - scale to zero: a dev_zero deployment with no pod, its first request through its URL until answered
//   (the node's activator, KEDA's HTTP add-on), against the same pod scaled from zero to one by hand
//   behind a hand-written HTTPRoute (bench/wake-rounds.ts).
// - a canary: an image change through steps of 20 and 50 % with 15 s pauses until only the new image
//   answers, Berth's canary judged on the Gateway's metrics against the same steps done by hand with
//   HTTPRoute weights (bench/canary-rounds.ts).
// `--only a,b` runs some of: starts, pods, deployments, rollouts, urls, scaling, inflight, wake, canary, failures, builds.
// Needs root and the cached binaries and images (the node suite or `npm start` builds them).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { startControlPlane } from '../workbench/controlplane.ts';
import { installCrds } from '../workbench/install-crds.ts';
import { startLocalCluster, type LocalCluster } from '../workbench/local-cluster.ts';
import { pushExampleApp } from '../workbench/node/example-app.ts';
import { nodeBinaries, pushBuildImages, pushServiceImages } from '../workbench/node/node.ts';
import { nodeIp } from '../workbench/node/network.ts';
import { GitServer } from '../workbench/support/git-server.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { createInformer } from '../src/runtime/informer.ts';
import type { DeepReadonly } from '../src/runtime/types.ts';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { fieldManager, labels } from '../src/api/group.ts';
import { randomUUID } from 'node:crypto';
import {
  applicationDefaults,
  applicationReadiness,
  drainSeconds,
  surgeStrategy,
} from '../src/reconcilers/deployment/render/application.ts';
import { nodeAppUrlTemplate, nodeGateway } from '../workbench/node/gateway.ts';
import { cpuSignal, inFlightSignal, scaleBounds, scaleRounds, type ScaleSignal, type ScaleTimes } from './scale-rounds.ts';
import { metricsStoreUrl } from '../workbench/node/metrics-store.ts';
import { urlRounds } from './url-rounds.ts';
import { canaryRounds } from './canary-rounds.ts';
import { wakeRounds } from './wake-rounds.ts';
import { nodeActivator } from '../workbench/node/http-add-on.ts';
import { resourceRequirements } from '../src/reconcilers/deployment/render/common.ts';
import { startBerthProcess, type BerthProcess } from './berth-process.ts';
import { roundCosts } from './round-costs.ts';
import { baselineBuild, berthBuildOf, onlyImageServes, setImage, stepDurations, until, type Pod, type PodList } from './node-steps.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';

const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '3' },
    pods: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '10' },
    rollouts: { type: 'string', default: '20' },
    failures: { type: 'string', default: '5' },
    builds: { type: 'string', default: '5' },
    canaries: { type: 'string', default: '3' },
    only: { type: 'string', default: 'starts,pods,deployments,rollouts,urls,scaling,inflight,wake,canary,failures,builds' },
    out: { type: 'string', default: 'bench/results/node.json' },
  },
});
const starts = Number(values.starts);
const podCount = Number(values.pods);
const rounds = Number(values.rounds);
const only = new Set(values.only.split(','));
const log = (message: string) => process.stderr.write(`[bench:node ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.9) - 1)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

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
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'app', image, env: [{ name: 'PORT', value: '8000' }], ports: [{ name: 'http', containerPort: 8000 }] }],
        },
      },
    },
  };
}

/** The size of every Berth Deployment the benchmark makes. */
const benchSizing = { cpu: 0.1, memoryMb: 64 };

/** A Berth Deployment scaled by its autoscaler between scaleBounds.min and scaleBounds.max. */
function scaledBerthDeployment(name: string, image: string): object {
  const object = berthDeployment(name, image) as { spec: { sourceConfig: { resourceSpec: object } } };
  object.spec.sourceConfig.resourceSpec = {
    ...object.spec.sourceConfig.resourceSpec,
    minScale: scaleBounds.min,
    maxScale: scaleBounds.max,
  };
  return object;
}

/** A Berth Deployment that scales to zero when idle (the node's activator holds its requests). */
function idleBerthDeployment(name: string, image: string): object {
  const object = berthDeployment(name, image) as { spec: { sourceConfig: object } };
  object.spec.sourceConfig = { ...object.spec.sourceConfig, deploymentType: 'dev_zero' };
  return object;
}

/** The steps and pause both sides of the canary bench take. */
const canaryBench = { steps: [20, 50], pauseSeconds: 15 };

/** A Berth Deployment that rolls new images out as a canary of canaryBench's steps. */
function canaryBerthDeployment(name: string, image: string): object {
  const object = berthDeployment(name, image) as { spec: { sourceConfig: object } };
  object.spec.sourceConfig = { ...object.spec.sourceConfig, canary: { ...canaryBench, minRequests: 20 } };
  return object;
}

function berthDeployment(name: string, image: string): object {
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      source: 'external_docker',
      sourceConfig: { resourceSpec: { minScale: 1, maxScale: 1, ...benchSizing } },
      sourceRevisionConfig: { imageUri: image },
    },
  };
}

/** Milliseconds from the create to a Ready pod carrying the label selector. */
async function timeToReadyPod(kc: KubeConfig, namespace: string, object: object, selector: string): Promise<number> {
  const began = performance.now();
  await applyObject(kc, { ...object, metadata: { ...(object as { metadata: object }).metadata, namespace } } as never, fieldManager);
  await until(async () => {
    const list = await kubeRequest<{ items: Pod[] }>(kc, {
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/pods`,
      query: { labelSelector: selector },
    });
    return list.items.some((pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ? true : undefined;
  });
  return performance.now() - began;
}

async function deploymentRounds(kc: KubeConfig, namespace: string, image: string): Promise<{ berth: number[]; plain: number[] }> {
  const times = { berth: [] as number[], plain: [] as number[] };
  await withBerth(namespace, async () => {
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
  });
  return times;
}

/** The phase of the Deployment's latest revision, once that is the revision of `image`. */
async function revisionPhase(kc: KubeConfig, namespace: string, deployment: string, image: string): Promise<string | undefined> {
  const object = await kubeRequest<{ status?: { latestRevisionName?: string } }>(kc, {
    method: 'GET',
    path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${deployment}`,
  });
  const latest = object.status?.latestRevisionName;
  if (!latest) return undefined;
  const revision = await kubeRequest<{ spec: { sourceRevisionConfig: { imageUri?: string } }; status?: { status?: string } }>(kc, {
    method: 'GET',
    path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/revisions/${latest}`,
  });
  return revision.spec.sourceRevisionConfig.imageUri === image ? revision.status?.status : undefined;
}

const mergePatch = (kc: KubeConfig, path: string, body: object) =>
  kubeRequest(kc, { method: 'PATCH', path, body, contentType: 'application/merge-patch+json' });

/** Berth as users run it, in its own process (the compiled dist/, as bench/run.ts runs it): the bench's polling never shares its event loop. */
async function withBerth<T>(namespace: string, work: (berth: BerthProcess) => Promise<T>, env: Record<string, string> = {}): Promise<T> {
  const berth = await startBerthProcess({
    kubeconfigPath: cluster!.controlPlane.kubeconfigPath,
    operatorNamespace: namespace,
    watchNamespaces: [namespace],
    components: ['controller'],
    logFile: join(dataDir, `berth-${Date.now()}.log`),
    env,
  });
  try {
    return await work(berth);
  } finally {
    await berth.stop();
  }
}

/** When the pods of a rollout appeared, started and turned Ready (seen through a watch, so it adds no polling). */
interface PodTimeline {
  /** When an apps/v1 Deployment's pod template first named the image (the plain side's own patch; Berth's apply). */
  applied?: number;
  created?: number;
  running?: number;
  ready?: number;
}

function watchPodTimelines(
  kc: KubeConfig,
  namespace: string,
): { timeline(image: string, since: number): PodTimeline; stop(): Promise<void> } {
  const seen = new Map<string, PodTimeline & { image: string }>();
  const informer = createInformer<V1Pod>(kc, { apiVersion: 'v1', kind: 'Pod', plural: 'pods' }, { namespaces: [namespace] });
  const record = (pod: DeepReadonly<V1Pod>) => {
    const name = pod.metadata?.name ?? '';
    const entry: PodTimeline & { image: string } = seen.get(name) ?? {
      image: pod.spec?.containers[0]?.image ?? '',
      created: performance.now(),
    };
    if (entry.running === undefined && pod.status?.containerStatuses?.[0]?.state?.running) entry.running = performance.now();
    if (entry.ready === undefined && pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      entry.ready = performance.now();
    seen.set(name, entry);
  };
  informer.onAdd(record);
  informer.onUpdate(record);
  informer.start();
  // When each image first reached a pod template, by image.
  const applied: { image: string; at: number }[] = [];
  const workloads = createInformer<V1Deployment>(
    kc,
    { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
    { namespaces: [namespace] },
  );
  const templates = new Map<string, string>();
  const recordTemplate = (deployment: DeepReadonly<V1Deployment>) => {
    const image = deployment.spec?.template.spec?.containers[0]?.image ?? '';
    const name = deployment.metadata?.name ?? '';
    if (templates.get(name) !== image) applied.push({ image, at: performance.now() });
    templates.set(name, image);
  };
  workloads.onAdd(recordTemplate);
  workloads.onUpdate(recordTemplate);
  workloads.start();
  return {
    /** The first pod of `image` created after `since`, its times relative to `since`. */
    timeline(image, since) {
      const entry = [...seen.values()]
        .filter((e) => e.image === image && (e.created ?? 0) >= since)
        .sort((a, b) => a.created! - b.created!)[0];
      const after = (t: number | undefined) => (t === undefined ? undefined : t - since);
      const template = applied.find((a) => a.image === image && a.at >= since);
      return entry
        ? { applied: after(template?.at), created: after(entry.created), running: after(entry.running), ready: after(entry.ready) }
        : {};
    },
    stop: async () => {
      await informer.stop();
      await workloads.stop();
    },
  };
}

const phases = (t: PodTimeline) =>
  `template ${seconds(t.applied ?? NaN)}, pod ${seconds(t.created ?? NaN)}, running ${seconds(t.running ?? NaN)}, Ready ${seconds(t.ready ?? NaN)}`;

/**
 * The same pod as Berth renders where it matters to a rollout: surge strategy, readiness probe, resource
 * requests (the pod's QoS class and cgroups), the drain before stop and the default termination grace.
 */
function plainLikeBerth(name: string, image: string): object {
  const plain = plainDeployment(name, image) as {
    spec: {
      strategy?: object;
      template: {
        spec: { terminationGracePeriodSeconds?: number; containers: { readinessProbe?: object; resources?: object; lifecycle?: object }[] };
      };
    };
  };
  plain.spec.strategy = surgeStrategy;
  delete plain.spec.template.spec.terminationGracePeriodSeconds;
  const container = plain.spec.template.spec.containers[0]!;
  container.readinessProbe = applicationReadiness({ source: 'external_docker' });
  container.resources = resourceRequirements(benchSizing, applicationDefaults);
  container.lifecycle = { preStop: { sleep: { seconds: drainSeconds } } };
  return plain;
}

/** Image changes until only the new image serves, Berth against apps/v1, alternated. */
async function rolloutRounds(
  kc: KubeConfig,
  namespace: string,
  images: [string, string],
): Promise<{ berth: number[]; plain: number[]; berthDeployed: number[] }> {
  const times = { berth: [] as number[], plain: [] as number[], berthDeployed: [] as number[] };
  const plain = plainLikeBerth('swap-plain', images[0]);
  // And a Service in front of its pods, as Berth makes for its application: each new or ready pod
  // changes the Service's endpoints for both, and kube-proxy's work on them falls on both.
  const plainService = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'swap-plain', namespace },
    spec: { selector: { app: 'swap-plain' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  };
  const pods = watchPodTimelines(kc, namespace);
  await withBerth(namespace, async (berth) => {
    const costs = roundCosts(kc, berth);
    await applyObject(kc, plainService as never, fieldManager);
    await timeToReadyPod(kc, namespace, plain, 'app=swap-plain');
    await timeToReadyPod(
      kc,
      namespace,
      berthDeployment('swap', images[0]),
      'berth.dev/deployment=swap,app.kubernetes.io/component=application',
    );
    await until(async () => ((await revisionPhase(kc, namespace, 'swap', images[0])) === 'DEPLOYED' ? true : undefined));
    for (let i = 0; i < Number(values.rollouts); i++) {
      const image = images[(i + 1) % 2]!;
      const order = i % 2 === 0 ? (['plain', 'berth'] as const) : (['berth', 'plain'] as const);
      const timelines: Record<string, PodTimeline> = {};
      for (const kind of order) {
        const reading = await costs.begin();
        const began = performance.now();
        if (kind === 'plain') {
          await setImage(kc, namespace, 'swap-plain', image);
          await until(() => onlyImageServes(kc, namespace, 'app=swap-plain', image));
          times.plain.push(performance.now() - began);
        } else {
          await mergePatch(kc, `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/swap`, {
            spec: { sourceRevisionConfig: { imageUri: image } },
          });
          // Both from the same start: serving is what the users see, DEPLOYED what Berth reports. They are
          // polled one after the other, so the serving figure is polled as the plain one is (one request
          // per 25 ms): DEPLOYED comes after serving (it waits for the old pods to be gone as well).
          await until(() => onlyImageServes(kc, namespace, 'berth.dev/deployment=swap,app.kubernetes.io/component=application', image));
          times.berth.push(performance.now() - began);
          await until(async () => ((await revisionPhase(kc, namespace, 'swap', image)) === 'DEPLOYED' ? true : undefined));
          times.berthDeployed.push(performance.now() - began);
        }
        timelines[kind] = pods.timeline(image, began);
        await costs.end(kind, reading);
      }
      log(
        `rollout ${i + 1}/${values.rollouts}: plain ${seconds(times.plain.at(-1)!)} (${phases(timelines.plain!)}), Berth ${seconds(times.berth.at(-1)!)} (${phases(timelines.berth!)}; DEPLOYED at ${seconds(times.berthDeployed.at(-1)!)})`,
      );
    }
    // A readiness check that missed for an app not yet listening leaves an Unhealthy event; a check the
    // kubelet ran before its own status showed the container running leaves none (it waits a period).
    const unhealthy = await failedReadinessChecks(kc, namespace);
    log(`failed readiness checks (Unhealthy events) over the rounds: plain ${unhealthy.plain}, Berth ${unhealthy.berth}`);
    // A Berth round lasts until DEPLOYED, after its old pod is gone; a plain one ends once the new pod
    // serves (its old pod goes during the next round, whichever side that is).
    costs.report(log);
  }).finally(() => pods.stop());
  return times;
}

/**
 * Unhealthy events of the rollout's pods, by side: apps/v1's are `swap-plain-*`, Berth's `swap-*` (its
 * application Deployment is named after the Berth Deployment). Pods of other scenarios in the namespace
 * are not counted.
 */
async function failedReadinessChecks(kc: KubeConfig, namespace: string): Promise<{ plain: number; berth: number }> {
  type Event = { reason?: string; count?: number; involvedObject?: { name?: string } };
  const events = await kubeRequest<{ items: Event[] }>(kc, { method: 'GET', path: `/api/v1/namespaces/${namespace}/events` });
  const counts = { plain: 0, berth: 0 };
  for (const event of events.items) {
    const pod = event.involvedObject?.name ?? '';
    if (event.reason !== 'Unhealthy' || !pod.startsWith('swap-')) continue;
    counts[pod.startsWith('swap-plain-') ? 'plain' : 'berth'] += event.count ?? 1;
  }
  return counts;
}

/** A bad image: from the first pull error a pod shows to the revision DEPLOY_FAILED. */
async function failureRounds(kc: KubeConfig, namespace: string, good: string, registry: string): Promise<number[]> {
  const times: number[] = [];
  const selector = 'berth.dev/deployment=broken,app.kubernetes.io/component=application';
  const path = `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/broken`;
  await withBerth(namespace, async () => {
    await timeToReadyPod(kc, namespace, berthDeployment('broken', good), selector);
    for (let i = 0; i < Number(values.failures); i++) {
      const missing = `${registry}/berth/missing:${Date.now()}`;
      await mergePatch(kc, path, { spec: { sourceRevisionConfig: { imageUri: missing } } });
      const pullError = await until(async () => {
        const list = await kubeRequest<PodList>(kc, {
          method: 'GET',
          path: `/api/v1/namespaces/${namespace}/pods`,
          query: { labelSelector: selector },
        });
        const failing = list.items.some((pod) =>
          ['ErrImagePull', 'ImagePullBackOff'].includes(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? ''),
        );
        return failing ? performance.now() : undefined;
      });
      await until(async () => ((await revisionPhase(kc, namespace, 'broken', missing)) === 'DEPLOY_FAILED' ? true : undefined));
      times.push(performance.now() - pullError);
      log(`failure ${i + 1}/${values.failures}: DEPLOY_FAILED ${seconds(times.at(-1)!)} after the first pull error`);
      await mergePatch(kc, path, { spec: { sourceRevisionConfig: { imageUri: good } } });
      await until(() => onlyImageServes(kc, namespace, selector, good));
    }
  });
  return times;
}

interface BuildRound {
  berthMs: number;
  baselineMs: number;
  /** Berth's time, broken down: push to Revision, Revision to build pod, the build's steps, built to serving. */
  berth: { noticedMs: number; jobMs: number; clone: number; commands: number; image: number; rolloutMs: number };
  baseline: { jobMs: number; rolloutMs: number };
}

/**
 * A push to a build-on-push branch until only the built image serves, against the same build Job
 * created directly (the builder without Berth) followed by the same image change on a plain apps/v1
 * Deployment. Alternated rounds; each pushes a new commit.
 */
async function buildRounds(kc: KubeConfig, namespace: string, base: string, registry: string): Promise<BuildRound[]> {
  const [images, services] = await Promise.all([pushBuildImages(nodeBinaries()), pushServiceImages(nodeBinaries())]);
  const git = await GitServer.start(nodeIp);
  const dockerfile = (version: string) => ({
    Dockerfile: [`FROM ${base}`, `ENV APP_VERSION=${version}`, 'RUN ["/app", "version"]', ''].join('\n'),
  });
  await git.createRepository('bench/app', dockerfile('build-0'));
  const rounds: BuildRound[] = [];
  const env = {
    BERTH_REGISTRY: registry,
    BERTH_BUILDER_IMAGE: images.builder,
    BERTH_GIT_IMAGE: images.git,
    BERTH_BUILD_TOOLS_IMAGE: images.buildTools,
    BERTH_AGENT_TOOLS_IMAGE: images.agentTools,
    // The local git server, an origin the installation allows (as berth dev allows its node's address).
    BERTH_CODE_HOST_ORIGINS: git.url,
    BERTH_SOURCE_POLL_SECONDS: '1',
    // A codehost Deployment comes with its database: a StatefulSet, as the baselines were measured on
    // (the node serves CloudNativePG: auto would take it).
    BERTH_POSTGRES_IMAGE: services.postgres,
    BERTH_DATABASE_ENGINE: 'statefulset',
    BERTH_REDIS_IMAGE: services.redis,
  };
  try {
    await withBerth(
      namespace,
      async () => {
        await kubeRequest(kc, {
          method: 'POST',
          path: `/api/v1/namespaces/${namespace}/secrets`,
          body: { metadata: { name: 'bench-git', labels: sharedSecretLabels }, stringData: { token: 'unused' } },
        });
        const integration = await applyObject(
          kc,
          {
            apiVersion: 'berth.dev/v1alpha1',
            kind: 'CodeHostIntegration',
            metadata: { name: 'bench', namespace },
            spec: { baseUrl: git.url, credentialsSecretRef: { name: 'bench-git' } },
          } as never,
          fieldManager,
        );
        const integrationId = (integration as { metadata: { uid: string } }).metadata.uid;
        const built = {
          apiVersion: 'berth.dev/v1alpha1',
          kind: 'Deployment',
          metadata: { name: 'built', namespace },
          spec: {
            source: 'codehost',
            sourceConfig: {
              integrationId,
              repoUrl: git.cloneUrl('bench/app'),
              buildOnPush: true,
              resourceSpec: { minScale: 1, maxScale: 1, ...benchSizing },
            },
            sourceRevisionConfig: { repoRef: 'main' },
          },
        };
        const selector = 'berth.dev/deployment=built,app.kubernetes.io/component=application';
        const answers = async (version: string) => {
          const object = await kubeRequest<{ status?: { url?: string } }>(kc, {
            method: 'GET',
            path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/built`,
          });
          const body = object.status?.url
            ? await fetch(object.status.url, { signal: AbortSignal.timeout(2000) }).then(
                (r) => r.text(),
                () => '',
              )
            : '';
          return body.trim() === `berth-example ${version}` ? true : undefined;
        };
        await applyObject(kc, built as never, fieldManager);
        await until(() => answers('build-0'), 300_000);
        // The baseline's apps/v1 Deployment: the very pod Berth renders (its database wait, probe, resources,
        // strategy), under its own labels, serving the first build's image.
        const rendered = await kubeRequest<{ spec: { strategy: object; template: { spec: object } } }>(kc, {
          method: 'GET',
          path: `/apis/apps/v1/namespaces/${namespace}/deployments/built`,
        });
        const plain = {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'built-plain' },
          spec: {
            replicas: 1,
            strategy: rendered.spec.strategy,
            selector: { matchLabels: { app: 'built-plain' } },
            template: { metadata: { labels: { app: 'built-plain' } }, spec: rendered.spec.template.spec },
          },
        };
        await timeToReadyPod(kc, namespace, plain, 'app=built-plain');
        for (let i = 1; i <= Number(values.builds); i++) {
          const version = `build-${i}`;
          // Berth: push, then wait until only the new build answers.
          const pushed = performance.now();
          const sha = await git.commit('bench/app', dockerfile(version), version);
          const revision = await until(async () => {
            const list = await kubeRequest<{
              items: { metadata: { name: string }; spec: { sourceRevisionConfig: { repoCommitSha?: string } } }[];
            }>(kc, { method: 'GET', path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/revisions` });
            return list.items.find((r) => r.spec.sourceRevisionConfig.repoCommitSha === sha)?.metadata.name;
          }, 60_000);
          const noticedMs = performance.now() - pushed;
          // The same end as the baseline's: every live pod is of the new revision and Ready (the Service
          // follows on kube-proxy's period for both); then, untimed, the new build answers through it.
          await until(async () => {
            const list = await kubeRequest<PodList>(kc, {
              method: 'GET',
              path: `/api/v1/namespaces/${namespace}/pods`,
              query: { labelSelector: selector },
            });
            const live = list.items.filter((pod) => !pod.metadata.deletionTimestamp);
            const ready = (pod: PodList['items'][number]) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
            return live.length > 0 && live.every((pod) => pod.metadata.labels?.['berth.dev/revision'] === revision && ready(pod))
              ? true
              : undefined;
          }, 300_000);
          const berthMs = performance.now() - pushed;
          await until(() => answers(version), 30_000);
          const { job: berthJob, pod } = await berthBuildOf<{
            metadata: { creationTimestamp: string };
            status?: { completionTime?: string };
          }>(kc, namespace, revision);
          const berthJobMs = Date.parse(berthJob.status?.completionTime ?? '') - Date.parse(berthJob.metadata.creationTimestamp);
          const steps = stepDurations(pod);
          const jobEnd = Math.max(
            ...[...(pod.status?.containerStatuses ?? [])].map((s) => Date.parse(s.state?.terminated?.finishedAt ?? '')),
          );
          // Baseline: the same Job, created at once, then the built image on the plain Deployment.
          const { jobMs, image } = await baselineBuild(kc, {
            namespace,
            round: i,
            sources: { kind: 'repository', repoUrl: git.cloneUrl('bench/app'), repoRef: sha },
            images,
            registry,
          });
          const switched = performance.now();
          await setImage(kc, namespace, 'built-plain', image);
          await until(() => onlyImageServes(kc, namespace, 'app=built-plain', image));
          const baselineRollout = performance.now() - switched;
          const revisionObject = await kubeRequest<{ status?: { conditions?: { type: string; lastTransitionTime?: string }[] } }>(kc, {
            method: 'GET',
            path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/revisions/${revision}`,
          });
          const deployedAt = Date.parse(revisionObject.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '');
          rounds.push({
            berthMs,
            baselineMs: jobMs + baselineRollout,
            berth: {
              noticedMs,
              jobMs: berthJobMs,
              clone: steps.clone ?? 0,
              commands: steps.commands ?? 0,
              image: steps.image ?? 0,
              rolloutMs: Number.isFinite(deployedAt - jobEnd) ? deployedAt - jobEnd : 0,
            },
            baseline: { jobMs, rolloutMs: baselineRollout },
          });
          log(
            `build ${i}/${values.builds}: Berth ${seconds(berthMs)} (noticed ${seconds(noticedMs)}, Job ${seconds(berthJobMs)}, clone ${seconds(steps.clone ?? 0)}, commands ${seconds(steps.commands ?? 0)}, image ${seconds(steps.image ?? 0)}), builder alone + apps/v1 ${seconds(jobMs + baselineRollout)} (Job ${seconds(jobMs)}, rollout ${seconds(baselineRollout)})`,
          );
        }
      },
      env,
    );
  } finally {
    await git.stop();
  }
  return rounds;
}

/** How long after only the new image served each round's revision was DEPLOYED. */
/** Scale rounds with their ratios, Berth over the baseline. */
function withScaleRatios(times: ScaleTimes) {
  return {
    ...times,
    toMaxRatioMedian: median(times.toMax.berth) / median(times.toMax.plain),
    toMaxRatioP90: p90(times.toMax.berth) / p90(times.toMax.plain),
    p99RatioMedian: median(times.p99.berth) / median(times.p99.plain),
  };
}

/** The summary line's figures of scale rounds. */
function scaleSummary(times: ScaleTimes): string {
  const { toMaxRatioMedian, toMaxRatioP90, p99RatioMedian } = withScaleRatios(times);
  return `median ratio ${toMaxRatioMedian.toFixed(2)}, p90 ${toMaxRatioP90.toFixed(2)} (target <= 1.1; Berth median ${seconds(median(times.toMax.berth))}, plain ${seconds(median(times.toMax.plain))}); client p99 during the step median ratio ${p99RatioMedian.toFixed(2)} (Berth ${median(times.p99.berth)} ms, plain ${median(times.p99.plain)} ms)`;
}

function deployedLag(rollouts: { berth: number[]; berthDeployed: number[] }): number[] {
  return rollouts.berthDeployed.map((deployed, i) => deployed - rollouts.berth[i]!);
}

let cluster: LocalCluster | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-node-'));
try {
  const startTimes = only.has('starts') ? await warmStarts() : undefined;
  cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.controlPlane.kubeconfigPath);
  await installCrds(kc, join(import.meta.dirname, '../crds'));
  const namespace = `bench-node-${Date.now()}`;
  // An organization's namespace: the Gateway's shared listener admits routes from those alone.
  await kubeRequest(kc, {
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: namespace, labels: { [labels.organizationId]: randomUUID() } } },
  });
  const crane = join(nodeBinaries(), 'crane');
  const image = await pushExampleApp(crane, cluster.node!.registry, 'bench');
  const other = await pushExampleApp(crane, cluster.node!.registry, 'bench-b');
  // The first pull puts the images in containerd's store: every measured pod uses a cached image.
  await podsToRunning(kc, namespace, image).catch(() => undefined);
  await podsToRunning(kc, namespace, other).catch(() => undefined);
  const pods = only.has('pods') ? await podsToRunning(kc, namespace, image) : undefined;
  const deployments = only.has('deployments') ? await deploymentRounds(kc, namespace, image) : undefined;
  const rollouts = only.has('rollouts') ? await rolloutRounds(kc, namespace, [image, other]) : undefined;
  const urls = only.has('urls')
    ? await withBerth(
        namespace,
        () =>
          urlRounds({
            kc,
            namespace,
            rounds,
            images: [
              { image, body: 'berth-example bench\n' },
              { image: other, body: 'berth-example bench-b\n' },
            ],
            berthDeployment,
            plainDeployment: plainLikeBerth,
            log,
          }),
        { BERTH_APP_URL_TEMPLATE: nodeAppUrlTemplate, BERTH_GATEWAY: `${nodeGateway.namespace}/${nodeGateway.name}` },
      )
    : undefined;
  const gatewayEnv = { BERTH_APP_URL_TEMPLATE: nodeAppUrlTemplate, BERTH_GATEWAY: `${nodeGateway.namespace}/${nodeGateway.name}` };
  /** Step loads to the maximum of replicas on one signal, Berth (run with `env`) against a hand-written autoscaler. */
  const scaleBench = (signal: ScaleSignal, env: Record<string, string>) =>
    withBerth(
      namespace,
      () =>
        scaleRounds({ kc, namespace, rounds, image, berthDeployment: scaledBerthDeployment, plainDeployment: plainLikeBerth, signal, log }),
      env,
    );
  const scaling = only.has('scaling') ? await scaleBench(cpuSignal, gatewayEnv) : undefined;
  const inFlight = only.has('inflight')
    ? await scaleBench(inFlightSignal(metricsStoreUrl), { ...gatewayEnv, BERTH_CONCURRENCY_METRICS: metricsStoreUrl })
    : undefined;
  const activatorEnv = {
    BERTH_ACTIVATOR_PROXY: `${nodeActivator.proxy.namespace}/${nodeActivator.proxy.name}:${nodeActivator.proxy.port}`,
    BERTH_ACTIVATOR_SCALER: nodeActivator.scalerAddress,
  };
  const wake = only.has('wake')
    ? await withBerth(
        namespace,
        () => wakeRounds({ kc, namespace, rounds, image, berthDeployment: idleBerthDeployment, plainDeployment: plainLikeBerth, log }),
        { ...gatewayEnv, ...activatorEnv },
      )
    : undefined;
  const canaries = only.has('canary')
    ? await withBerth(
        namespace,
        () =>
          canaryRounds({
            kc,
            namespace,
            rounds: Number(values.canaries),
            images: [
              { image, body: 'berth-example bench\n' },
              { image: other, body: 'berth-example bench-b\n' },
            ],
            ...canaryBench,
            berthDeployment: canaryBerthDeployment,
            plainDeployment: plainLikeBerth,
            log,
          }),
        { ...gatewayEnv, BERTH_CONCURRENCY_METRICS: metricsStoreUrl },
      )
    : undefined;
  const failures = only.has('failures') ? await failureRounds(kc, namespace, image, cluster.node!.registry) : undefined;
  const builds = only.has('builds') ? await buildRounds(kc, namespace, image, cluster.node!.registry) : undefined;
  const results = {
    machine: { cpus: (await import('node:os')).cpus().length },
    ...(startTimes
      ? {
          warmStart: {
            nodeMs: startTimes.node,
            controlPlaneMs: startTimes.controlPlane,
            medianNodeMs: median(startTimes.node),
            ratioToControlPlane: median(startTimes.node) / median(startTimes.controlPlane),
          },
        }
      : {}),
    ...(pods
      ? { podToRunning: { runningMs: pods.running, scheduledMs: pods.scheduled, medianMs: median(pods.running), p90Ms: p90(pods.running) } }
      : {}),
    ...(deployments
      ? {
          deploymentToReadyPod: {
            berthMs: deployments.berth,
            plainMs: deployments.plain,
            ratioMedian: median(deployments.berth) / median(deployments.plain),
            ratioP90: p90(deployments.berth) / p90(deployments.plain),
          },
        }
      : {}),
    ...(rollouts
      ? {
          imageChangeServing: {
            berthMs: rollouts.berth,
            plainMs: rollouts.plain,
            berthDeployedMs: rollouts.berthDeployed,
            deployedLagMedianMs: median(deployedLag(rollouts)),
            deployedLagP90Ms: p90(deployedLag(rollouts)),
            ratioMedian: median(rollouts.berth) / median(rollouts.plain),
            ratioP90: p90(rollouts.berth) / p90(rollouts.plain),
          },
        }
      : {}),
    ...(urls
      ? {
          urlAnswering: {
            ...urls,
            createRatioMedian: median(urls.create.berth) / median(urls.create.plain),
            createRatioP90: p90(urls.create.berth) / p90(urls.create.plain),
            changeRatioMedian: median(urls.change.berth) / median(urls.change.plain),
            changeRatioP90: p90(urls.change.berth) / p90(urls.change.plain),
          },
        }
      : {}),
    ...(scaling ? { stepLoadToMaxReplicas: withScaleRatios(scaling) } : {}),
    ...(inFlight ? { inFlightStepToMaxReplicas: withScaleRatios(inFlight) } : {}),
    ...(wake
      ? {
          wakeFromZero: {
            ...wake,
            ratioMedian: median(wake.berth) / median(wake.plain),
            ratioP90: p90(wake.berth) / p90(wake.plain),
          },
        }
      : {}),
    ...(canaries
      ? {
          canaryToPromotion: {
            ...canaries,
            ...canaryBench,
            ratioMedian: median(canaries.berth) / median(canaries.plain),
            ratioP90: p90(canaries.berth) / p90(canaries.plain),
          },
        }
      : {}),
    ...(failures
      ? { badImageToDeployFailed: { ms: failures, medianMs: median(failures), p90Ms: p90(failures), maxMs: Math.max(...failures) } }
      : {}),
    ...(builds
      ? {
          pushToServing: {
            rounds: builds,
            ratioMedian: median(builds.map((b) => b.berthMs)) / median(builds.map((b) => b.baselineMs)),
            ratioP90: p90(builds.map((b) => b.berthMs)) / p90(builds.map((b) => b.baselineMs)),
          },
        }
      : {}),
  };
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
  const lines = [
    startTimes &&
      `warm start to node Ready + DNS: median ${seconds(median(startTimes.node))} (target <= 20 s); ${(median(startTimes.node) / median(startTimes.controlPlane)).toFixed(2)}x the control plane alone`,
    pods &&
      `pod of a cached image, created to Running: median ${seconds(median(pods.running))}, p90 ${seconds(p90(pods.running))} (target <= 3 s); scheduled at median ${seconds(median(pods.scheduled))}`,
    deployments &&
      `Berth Deployment to a Ready pod vs apps/v1 Deployment: median ratio ${(median(deployments.berth) / median(deployments.plain)).toFixed(2)}, p90 ratio ${(p90(deployments.berth) / p90(deployments.plain)).toFixed(2)} (Berth median ${seconds(median(deployments.berth))}, plain ${seconds(median(deployments.plain))})`,
    rollouts &&
      `image change until only the new image serves, Berth vs apps/v1: median ratio ${(median(rollouts.berth) / median(rollouts.plain)).toFixed(2)}, p90 ratio ${(p90(rollouts.berth) / p90(rollouts.plain)).toFixed(2)} (target <= 1.1; Berth median ${seconds(median(rollouts.berth))}, plain ${seconds(median(rollouts.plain))}, Berth's revision DEPLOYED at median ${seconds(median(rollouts.berthDeployed))}, ${seconds(median(deployedLag(rollouts)))} after serving, p90 ${seconds(p90(deployedLag(rollouts)))} (target <= 0.2 s))`,
    urls &&
      `URL through the Gateway, Berth vs apps/v1 + a hand-written HTTPRoute: create to answering median ratio ${(median(urls.create.berth) / median(urls.create.plain)).toFixed(2)}, p90 ${(p90(urls.create.berth) / p90(urls.create.plain)).toFixed(2)} (Berth median ${seconds(median(urls.create.berth))}, plain ${seconds(median(urls.create.plain))}); image change to only the new image answering median ratio ${(median(urls.change.berth) / median(urls.change.plain)).toFixed(2)}, p90 ${(p90(urls.change.berth) / p90(urls.change.plain)).toFixed(2)} (Berth median ${seconds(median(urls.change.berth))}, plain ${seconds(median(urls.change.plain))}) (target <= 1.1)`,
    scaling && `step load to ${scaleBounds.max} ready replicas, Berth vs apps/v1 + a hand-written HPA: ${scaleSummary(scaling)}`,
    inFlight &&
      `30 requests held in flight to ${scaleBounds.max} ready replicas, Berth (KEDA ScaledObject) vs apps/v1 + a hand-written ScaledObject: ${scaleSummary(inFlight)}`,
    wake &&
      `a request at zero until answered, Berth through the activator vs apps/v1 scaled to one by hand: median ratio ${(median(wake.berth) / median(wake.plain)).toFixed(2)}, p90 ratio ${(p90(wake.berth) / p90(wake.plain)).toFixed(2)} (Berth median ${seconds(median(wake.berth))}, p90 ${seconds(p90(wake.berth))}; plain median ${seconds(median(wake.plain))}, p90 ${seconds(p90(wake.plain))})`,
    canaries &&
      `canary, image change (steps ${canaryBench.steps.join(', ')} %, ${canaryBench.pauseSeconds} s pauses) until only the new image answers, Berth vs the same steps by hand: median ratio ${(median(canaries.berth) / median(canaries.plain)).toFixed(2)}, p90 ratio ${(p90(canaries.berth) / p90(canaries.plain)).toFixed(2)} (Berth median ${seconds(median(canaries.berth))}, by hand ${seconds(median(canaries.plain))}; failed requests Berth ${canaries.failed.berth}, by hand ${canaries.failed.plain})`,
    failures &&
      `bad image, first pull error to DEPLOY_FAILED: median ${seconds(median(failures))}, p90 ${seconds(p90(failures))}, max ${seconds(Math.max(...failures))} (target <= 30 s)`,
    builds &&
      `push to the built image serving, Berth vs the builder alone + apps/v1: median ratio ${(median(builds.map((b) => b.berthMs)) / median(builds.map((b) => b.baselineMs))).toFixed(2)}, p90 ratio ${(p90(builds.map((b) => b.berthMs)) / p90(builds.map((b) => b.baselineMs))).toFixed(2)} (target <= 1.2; Berth median ${seconds(median(builds.map((b) => b.berthMs)))}: noticed ${seconds(median(builds.map((b) => b.berth.noticedMs)))}, clone ${seconds(median(builds.map((b) => b.berth.clone)))}, commands ${seconds(median(builds.map((b) => b.berth.commands)))}, image ${seconds(median(builds.map((b) => b.berth.image)))}, built to DEPLOYED ${seconds(median(builds.map((b) => b.berth.rolloutMs)))}; baseline median ${seconds(median(builds.map((b) => b.baselineMs)))})`,
    `raw figures: ${values.out}`,
    '',
  ];
  process.stdout.write(lines.filter(Boolean).join('\n'));
} finally {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

// Autoscaling from the user's side: a step load on a deployment's URL through the node's Gateway, from
// its start until the app has its maximum of ready replicas, and the p99 latency the client saw
// meanwhile, for a Berth Deployment (min 1, max 3; its autoscaler rendered by Berth) against the same pod
// as a plain apps/v1 Deployment with a hand-written Service, HTTPRoute and autoscaler of the same target,
// alternated. Two signals: CPU (CPU-costly requests, at most 50 a second; the baseline a
// HorizontalPodAutoscaler) and requests in flight (30 slow, CPU-cheap requests held open, about 28 a
// second; Berth with --concurrency-metrics, the baseline a hand-written KEDA ScaledObject with the same
// query, since a HorizontalPodAutoscaler on CPU never scales on that load). Requests go to loopback only.
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { fieldManager } from '../src/api/group.ts';
import { applyObject } from '../src/runtime/apply.ts';
import type { ResourceKind } from '../src/runtime/index.ts';
import { concurrencyQuery, defaultConcurrencyQuery, targetConcurrencyPerReplica } from '../src/api/request-concurrency.ts';
import { autoscalerOf, readyReplicasOf } from '../workbench/support/scaling.ts';
import { steadyClient, windowStats } from '../workbench/support/steady-client.ts';
import { until } from './node-steps.ts';
import { answer, plainRoute, plainService, removeSide, urlOf, type SideBySideInput } from './url-rounds.ts';

const autoscalerKind = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers' };

export interface ScaleTimes {
  /** Load start to the maximum of ready replicas. */
  toMax: { berth: number[]; plain: number[] };
  /** The client's p99 latency from the load's start to 5 s after the maximum. */
  p99: { berth: number[]; plain: number[] };
}

export const scaleBounds = { min: 1, max: 3, targetCpuUtilization: 70 };

/** What loads the app, and the autoscaler a user would write for that load without Berth. */
export interface ScaleSignal {
  name: 'cpu' | 'inFlight';
  /** The path the client asks, how many loops, and each loop's pause. */
  load: { path: string; concurrency: number; intervalMs: number };
  plainAutoscaler(name: string, namespace: string): object;
  /** Its kinds, removed with the baseline. */
  plainKinds: ResourceKind[];
}

const scaledObjectKind = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', plural: 'scaledobjects' };

export const cpuSignal: ScaleSignal = {
  name: 'cpu',
  load: { path: 'work?ms=5', concurrency: 2, intervalMs: 40 },
  plainAutoscaler: (name, namespace) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: scaleBounds.min,
      maxReplicas: scaleBounds.max,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: scaleBounds.targetCpuUtilization } },
        },
      ],
    },
  }),
  plainKinds: [autoscalerKind],
};

/** Requests in flight, read from `serverAddress` with the query Berth uses, as a KEDA user writes it. */
export function inFlightSignal(serverAddress: string): ScaleSignal {
  return {
    name: 'inFlight',
    load: { path: 'wait?ms=1000', concurrency: 30, intervalMs: 50 },
    plainAutoscaler: (name, namespace) => ({
      apiVersion: scaledObjectKind.apiVersion,
      kind: 'ScaledObject',
      metadata: { name, namespace },
      spec: {
        scaleTargetRef: { name },
        minReplicaCount: scaleBounds.min,
        maxReplicaCount: scaleBounds.max,
        advanced: { horizontalPodAutoscalerConfig: { name } },
        triggers: [
          {
            type: 'prometheus',
            metadata: {
              serverAddress,
              query: concurrencyQuery(defaultConcurrencyQuery, { namespace, name, port: 80 }),
              threshold: String(targetConcurrencyPerReplica),
            },
          },
        ],
      },
    }),
    plainKinds: [scaledObjectKind, autoscalerKind],
  };
}

/** The baseline's Service, route and autoscaler, as a user writes them. */
function plainParts(name: string, namespace: string, signal: ScaleSignal): object[] {
  return [plainService(name, namespace), plainRoute(name, namespace), signal.plainAutoscaler(name, namespace)];
}

/** `berthDeployment`: scaled from scaleBounds.min to scaleBounds.max. */
export interface ScaleRoundsInput extends SideBySideInput {
  image: string;
  signal: ScaleSignal;
}

/** The autoscaler has read the pods' metrics once: from here on it acts within one sync. */
const autoscalerReading = async (kc: KubeConfig, namespace: string, name: string) =>
  ((await autoscalerOf(kc, namespace, name).catch(() => undefined))?.status?.currentMetrics?.length ?? 0) > 0;

export async function scaleRounds(input: ScaleRoundsInput): Promise<ScaleTimes> {
  const { kc, namespace, log } = input;
  const times: ScaleTimes = { toMax: { berth: [], plain: [] }, p99: { berth: [], plain: [] } };
  const apply = (object: object) =>
    applyObject(kc, { ...object, metadata: { ...(object as { metadata: object }).metadata, namespace } } as never, fieldManager);
  for (let i = 0; i < input.rounds; i++) {
    const order = i % 2 === 0 ? (['plain', 'berth'] as const) : (['berth', 'plain'] as const);
    for (const kind of order) {
      const name = `scale-${input.signal.name.toLowerCase()}-${kind}-${i}`;
      if (kind === 'berth') await apply(input.berthDeployment(name, input.image));
      else
        for (const object of [...plainParts(name, namespace, input.signal), input.plainDeployment(name, input.image)]) await apply(object);
      await until(
        async () =>
          (await readyReplicasOf(kc, namespace, name)) >= 1 && (await autoscalerReading(kc, namespace, name)) ? true : undefined,
        180_000,
      );
      // The Gateway routes the host (a route it has not programmed yet answers 404, one without endpoints 503).
      await until(async () => ((await answer(`${urlOf(name, namespace)}ok`)) !== undefined ? true : undefined), 60_000);
      const { path, concurrency, intervalMs } = input.signal.load;
      const client = steadyClient(`${urlOf(name, namespace)}${path}`, { concurrency, intervalMs, accept: (status) => status === 200 });
      const began = Date.now();
      try {
        await until(async () => ((await readyReplicasOf(kc, namespace, name)) >= scaleBounds.max ? true : undefined), 300_000);
        times.toMax[kind].push(Date.now() - began);
        await new Promise((resolve) => setTimeout(resolve, 5000));
      } finally {
        await client.stop();
      }
      const stats = windowStats(client.samples, began, Date.now());
      times.p99[kind].push(stats.p99);
      if (stats.failed > 0) log(`scale round ${i + 1} ${kind}: ${stats.failed} failed requests (${stats.failures.join(', ')})`);
    }
    log(
      `${input.signal.name} scale round ${i + 1}/${input.rounds}: load to ${scaleBounds.max} ready replicas plain ${(times.toMax.plain.at(-1)! / 1000).toFixed(1)} s (p99 ${times.p99.plain.at(-1)} ms), Berth ${(times.toMax.berth.at(-1)! / 1000).toFixed(1)} s (p99 ${times.p99.berth.at(-1)} ms)`,
    );
    for (const kind of order)
      await removeSide(kc, namespace, kind, `scale-${input.signal.name.toLowerCase()}-${kind}-${i}`, input.signal.plainKinds);
  }
  return times;
}

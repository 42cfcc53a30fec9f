// Autoscaling from the user's side: a step of CPU-costly requests to a deployment's URL through the
// node's Gateway, from its start until the app has its maximum of ready replicas, and the p99 latency
// the client saw meanwhile, for a Berth Deployment (min 1, max 3; its HorizontalPodAutoscaler rendered by
// Berth) against the same pod as a plain apps/v1 Deployment with a hand-written Service, HTTPRoute and
// HorizontalPodAutoscaler of the same target, alternated. Requests go to loopback only, at most 50 a
// second.
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { fieldManager } from '../src/api/group.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { steadyClient, windowStats } from '../test/node/steady-client.ts';
import { until } from './node-steps.ts';
import { answer, plainRoute, plainService, removeSide, urlOf } from './url-rounds.ts';

const autoscalerKind = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers' };

export interface ScaleTimes {
  /** Load start to the maximum of ready replicas. */
  toMax: { berth: number[]; plain: number[] };
  /** The client's p99 latency from the load's start to 5 s after the maximum. */
  p99: { berth: number[]; plain: number[] };
}

export const scaleBounds = { min: 1, max: 3, targetCpuUtilization: 70 };

/** The baseline's Service, route and autoscaler, as a user writes them. */
function plainParts(name: string, namespace: string): object[] {
  return [
    plainService(name, namespace),
    plainRoute(name, namespace),
    {
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
    },
  ];
}

export interface ScaleRoundsInput {
  kc: KubeConfig;
  namespace: string;
  rounds: number;
  image: string;
  /** A Berth Deployment of `image` scaled from scaleBounds.min to scaleBounds.max. */
  berthDeployment(name: string, image: string): object;
  /** The same pod as Berth renders, as apps/v1. */
  plainDeployment(name: string, image: string): object;
  log(message: string): void;
}

const readyReplicas = async (kc: KubeConfig, namespace: string, name: string) =>
  (
    await kubeRequest<{ status?: { readyReplicas?: number } }>(kc, {
      method: 'GET',
      path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
    })
  ).status?.readyReplicas ?? 0;

/** The autoscaler has read the pods' CPU once: from here on it acts within one sync. */
const autoscalerReading = async (kc: KubeConfig, namespace: string, name: string) =>
  ((
    await kubeRequest<{ status?: { currentMetrics?: unknown[] } }>(kc, {
      method: 'GET',
      path: `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}`,
    }).catch(() => ({ status: undefined }))
  ).status?.currentMetrics?.length ?? 0) > 0;

export async function scaleRounds(input: ScaleRoundsInput): Promise<ScaleTimes> {
  const { kc, namespace, log } = input;
  const times: ScaleTimes = { toMax: { berth: [], plain: [] }, p99: { berth: [], plain: [] } };
  const apply = (object: object) =>
    applyObject(kc, { ...object, metadata: { ...(object as { metadata: object }).metadata, namespace } } as never, fieldManager);
  for (let i = 0; i < input.rounds; i++) {
    const order = i % 2 === 0 ? (['plain', 'berth'] as const) : (['berth', 'plain'] as const);
    for (const kind of order) {
      const name = `scale-${kind}-${i}`;
      if (kind === 'berth') await apply(input.berthDeployment(name, input.image));
      else for (const object of [...plainParts(name, namespace), input.plainDeployment(name, input.image)]) await apply(object);
      await until(
        async () => ((await readyReplicas(kc, namespace, name)) >= 1 && (await autoscalerReading(kc, namespace, name)) ? true : undefined),
        180_000,
      );
      // The Gateway routes the host (a route it has not programmed yet answers 404, one without endpoints 503).
      await until(async () => ((await answer(`${urlOf(name, namespace)}ok`)) !== undefined ? true : undefined), 60_000);
      const client = steadyClient(`${urlOf(name, namespace)}work?ms=5`, {
        concurrency: 2,
        intervalMs: 40,
        accept: (status) => status === 200,
      });
      const began = Date.now();
      try {
        await until(async () => ((await readyReplicas(kc, namespace, name)) >= scaleBounds.max ? true : undefined), 300_000);
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
      `scale round ${i + 1}/${input.rounds}: load to ${scaleBounds.max} ready replicas plain ${(times.toMax.plain.at(-1)! / 1000).toFixed(1)} s (p99 ${times.p99.plain.at(-1)} ms), Berth ${(times.toMax.berth.at(-1)! / 1000).toFixed(1)} s (p99 ${times.p99.berth.at(-1)} ms)`,
    );
    for (const kind of order) await removeSide(kc, namespace, kind, `scale-${kind}-${i}`, [autoscalerKind]);
  }
  return times;
}

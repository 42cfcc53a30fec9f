// A deployment's figures now: GET /v2/deployments/{deployment_id}/metrics (over a range with start, end
// and step: deployment-metrics-range.ts). Its pods' CPU, memory,
// replicas and restarts, its database's, its requests as the Gateway measured them, and an agent server's
// run queue as KEDA reads it. A figure that
// cannot be read here (no metrics-server, no metrics store, one that does not answer) is null, and the
// answer says why: never an error for the whole.
import type { FastifyInstance } from 'fastify';
import {
  requestMetricQueries,
  runQueueQueries,
  scaleToZeroCondition,
  usageMetricQueries,
  type Deployment,
  type RequestMetricQueries,
} from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { optional } from '../../runtime/index.ts';
import {
  applicationServicePort,
  childNames,
  deploymentLabelValue,
  postgresClusterClaimName,
  routeServiceNames,
} from '../../api/child-names.ts';
import { componentLabel, hasRole, podsOfDeployment, type Component } from '../../workloads/revision-pods.ts';
import { deploymentMetrics, type ApiReadings, type MetricsReadings } from '../deployment-metrics.ts';
import type { FacadeDependencies, MetricsSources } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { deploymentMetricsRangeSchema, deploymentMetricsResponseSchema, metricsRangeQuerySchema } from '../wire-schemas.ts';
import { deploymentById, revisionAnswer, revisionsOf } from './deployment-answers.ts';
import { metricsOverRange } from '../deployment-metrics-range.ts';
import { z } from 'zod';

const metricsRoute = {
  method: 'GET',
  url: '/v2/deployments/:deployment_id/metrics',
  summary: "Read a deployment's figures, now or over a range",
  description:
    "CPU and memory of its pods (metrics-server), replicas and restarts, its database's CPU, memory and volume size, its requests per second, success ratio and latency over the last five minutes as the Gateway measured them (the installation's metrics store), and an agent server's pending and active runs (KEDA's readings of its queue). What cannot be read is null and listed in `unavailable`. With `start`, `end` and `step`: its requests, its pods' CPU and memory (the kubelets' cAdvisor) and an agent server's pending and active runs (KEDA's readings), from the metrics store, over that range, a point per step, and the revisions made within it as markers.",
  query: metricsRangeQuerySchema,
  success: {
    status: 200,
    description: "The deployment's figures now, or over the range asked for.",
    schema: z.union([deploymentMetricsResponseSchema, deploymentMetricsRangeSchema]),
  },
} satisfies RouteSpec;

type Params = { Params: { deployment_id: string } };

export function registerMetricsRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache, metrics } = deps;
  const revisionResponse = revisionAnswer(cache);
  serve<Params>(app, metricsRoute, async (request) => {
    const tenant = tenantOf(request, cache);
    const id = uuidPathParam(request, 'deployment_id');
    const deployment = deploymentById(cache, tenant.namespace, id);
    const namespace = tenant.namespace;
    const name = deployment.metadata.name!;
    const names = childNames(name);
    const ownLabel = deploymentLabelValue(name);
    const pods = podsOfDeployment(cache.pods, namespace, ownLabel).filter((pod) => hasRole(pod, 'workload'));
    const queued = pods.some((pod) => pod.metadata?.labels?.[componentLabel] === ('queue-worker' satisfies Component));
    const requests = activated(deployment)
      ? { unavailable: "its requests pass the activator (it scales to zero): the Gateway counts them as the activator's" }
      : requestMetricQueries({ namespace, name: routeServiceNames(id).stable, port: applicationServicePort });
    const asked = parseRequestPart('query', metricsRangeQuerySchema, request.query);
    if (asked.start && asked.end && asked.step) {
      const range = { start: new Date(asked.start), end: new Date(asked.end), stepSeconds: asked.step };
      const revisions = revisionsOf(deployment, cache.revisions.list(namespace)).map((revision) => revisionResponse(revision, id));
      const usage = usageMetricQueries({ namespace, deployment: names.application });
      const queue = queued ? runQueueQueries({ namespace, scaledObject: names.queueWorker }) : undefined;
      return metricsOverRange(metrics, { deploymentId: id, range, requests, usage, revisions, ...optional('queue', queue) });
    }
    const [usage, capacity, api, queue] = await Promise.all([
      usageOf(metrics, namespace, ownLabel),
      databaseCapacity(metrics, namespace, name),
      'unavailable' in requests ? requests : apiReadings(metrics, requests),
      queued ? queueReadings(metrics, namespace, names.queueWorker) : undefined,
    ]);
    const readings: MetricsReadings = {
      deploymentId: id,
      measuredAt: new Date(),
      pods,
      usage,
      database: capacity.found ? { capacityBytes: capacity.bytes } : undefined,
      api,
      queue,
    };
    return deploymentMetrics(readings);
  });
}

async function queueReadings(metrics: MetricsSources, namespace: string, scaledObject: string): Promise<MetricsReadings['queue']> {
  try {
    return await metrics.runQueue(namespace, scaledObject);
  } catch {
    return { unavailable: "KEDA did not answer its queue's runs: they are read where an agent server's queue worker scales on them" };
  }
}

/** An app that scales to zero is routed to the activator, which the Gateway measures for all such apps. */
function activated(deployment: DeepReadonly<Deployment>): boolean {
  return (deployment.status?.conditions ?? []).some((condition) => condition.type === scaleToZeroCondition && condition.status === 'True');
}

async function usageOf(metrics: MetricsSources, namespace: string, deploymentLabel: string): Promise<MetricsReadings['usage']> {
  try {
    return (
      (await metrics.podUsage(namespace, deploymentLabel)) ?? { unavailable: 'this cluster serves no resource metrics (metrics-server)' }
    );
  } catch {
    return { unavailable: 'the resource metrics could not be read' };
  }
}

async function apiReadings(metrics: MetricsSources, queries: RequestMetricQueries): Promise<MetricsReadings['api']> {
  const query = metrics.query;
  if (!query) return { unavailable: 'this installation reads no request metrics (--concurrency-metrics)' };
  try {
    const entries = await Promise.all(Object.entries(queries).map(async ([key, promql]) => [key, await query(promql)] as const));
    return Object.fromEntries(entries) as ApiReadings;
  } catch {
    return { unavailable: 'the metrics store did not answer' };
  }
}

/** The database's volume size: the claim of its StatefulSet's replica, or of the first instance of one
 * of its two Clusters (a restore serves from the other one). Only one engine holds it; while a restore
 * keeps the Cluster it replaced, both Clusters are of the size the deployment asks for. */
async function databaseCapacity(
  metrics: MetricsSources,
  namespace: string,
  deploymentName: string,
): Promise<{ found: boolean; bytes: number | undefined }> {
  const names = childNames(deploymentName);
  const claims = [names.postgresClaim, ...[names.postgresCluster, names.postgresClusterSpare].map(postgresClusterClaimName)];
  const readings = await Promise.all(
    claims.map((claim) =>
      metrics.claimCapacity(namespace, claim).then(
        (bytes) => ({ found: bytes !== undefined, bytes }),
        // A claim that exists but cannot be read counts as a database with no size known.
        () => ({ found: true, bytes: undefined }),
      ),
    ),
  );
  return readings.find((reading) => reading.found) ?? { found: false, bytes: undefined };
}

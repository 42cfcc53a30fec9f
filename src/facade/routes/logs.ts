// Logs of a deployment's pods: deploy logs (the application's and queue worker's containers of a
// revision, and its pre-deploy command's) and build logs (the revision's build Job pod), in the
// reference control plane's shape.
//   GET  /v2/deployments/{deployment_id}/revisions/{revision_id}/logs?type=deploy|build&...
//   POST /v1/projects/{project_id}/revisions/{revision_id}/build_logs    (project id = deployment id)
//   POST /v1/projects/{project_id}/revisions/{revision_id}/deploy_logs
//   POST /v1/projects/{project_id}/deploy_logs                          (every revision's pods)
//   GET  /v2/deployment-logs?deployment_id=...[&revision_id=...]         (the newer form, by cursor)
// The POST forms take the same filters in the body; members they do not know are ignored, as older
// clients send more. Every secret value of the deployment is masked in every line.
import type { V1Pod } from '@kubernetes/client-node';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deployment, Revision } from '../../api/index.ts';
import { childNames, preDeployJobName } from '../../api/child-names.ts';
import { podsOfRevision } from '../../workloads/revision-pods.ts';
import { buildJobLocation, podsOfBuild } from '../../workloads/build-jobs.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { invalidField } from '../errors.ts';
import { inTurns, Limiter, logReadLimits, perReadBytes } from '../log-reads.ts';
import {
  decodeCursor,
  logFilterSchema,
  logPage,
  logPageSchema,
  logTypes,
  type ContainerLog,
  type LogFilter,
  type LogPage,
  type LogType,
} from '../logs.ts';
import { readSecretValues } from '../owned-secrets.ts';
import type { FacadeDependencies } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidPathParam, uuidSchema } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { deploymentById, integrationById, revisionById, revisionsOf } from './deployment-answers.ts';

const logQuerySchema = logFilterSchema.extend({
  type: z.enum(logTypes).default('deploy').describe("deploy: the revision's application and queue worker; build: its build Job."),
});

/** The newer form's query: the same filters under its own names, a deployment's revisions by cursor. */
const deploymentLogQuerySchema = z.object({
  deployment_id: uuidSchema.describe('ID of the deployment.'),
  revision_id: uuidSchema.nullable().optional().describe("ID of one of its revisions; absent, every revision's."),
  log_type: z.enum(['BUILD', 'DEPLOY']).default('DEPLOY').describe('DEPLOY: the application and queue worker; BUILD: the build Jobs.'),
  sort_order: logFilterSchema.shape.order.unwrap().default('asc'),
  page_size: z.coerce.number().int().min(1).max(100).default(20).describe('Most lines to return (1-100).'),
  cursor: logFilterSchema.shape.offset.describe('The next_cursor of the previous page; absent for the first page.'),
  level: logFilterSchema.shape.level,
  query: logFilterSchema.shape.query,
  start_time: logFilterSchema.shape.start_time,
  end_time: logFilterSchema.shape.end_time,
});

export const deploymentLogsListSchema = z
  .object({
    items: logPageSchema.shape.logs,
    next_cursor: logPageSchema.shape.next_offset.describe('Pass as cursor for the lines after this page.'),
  })
  .describe("One page of a deployment's log lines.");

type Params = { Params: { deployment_id?: string; project_id?: string; revision_id?: string } };

const logPageAnswer = { status: 200, description: 'One page of log lines.', schema: 'LogPage' } as const;
const logFilterBody = { schema: 'LogFilter', required: false } as const;

const logRoutes = {
  revision: {
    method: 'GET',
    url: '/v2/deployments/:deployment_id/revisions/:revision_id/logs',
    summary: "Read a revision's deploy or build logs",
    query: logQuerySchema,
    success: logPageAnswer,
  },
  buildV1: {
    method: 'POST',
    url: '/v1/projects/:project_id/revisions/:revision_id/build_logs',
    summary: "Read a revision's build logs (older form)",
    body: logFilterBody,
    success: logPageAnswer,
  },
  deployV1: {
    method: 'POST',
    url: '/v1/projects/:project_id/revisions/:revision_id/deploy_logs',
    summary: "Read a revision's deploy logs (older form)",
    body: logFilterBody,
    success: logPageAnswer,
  },
  projectV1: {
    method: 'POST',
    url: '/v1/projects/:project_id/deploy_logs',
    summary: 'Read the deploy logs of every revision of a deployment (older form)',
    body: logFilterBody,
    success: logPageAnswer,
  },
  deployment: {
    method: 'GET',
    url: '/v2/deployment-logs',
    summary: "Read a deployment's deploy or build logs",
    query: deploymentLogQuerySchema,
    success: { status: 200, description: 'One page of log lines.', schema: deploymentLogsListSchema },
  },
} satisfies Record<string, RouteSpec>;

function buildPodsOf(deps: FacadeDependencies, namespace: string, revision: DeepReadonly<Revision>) {
  const name = revision.metadata.name ?? '';
  const location = buildJobLocation(deps.buildNamespace, { namespace, name, uid: revision.metadata.uid ?? '' });
  return podsOfBuild(deps.cache.pods, name, location);
}

/** A revision's build pods; for one that runs an earlier revision's image (the same build key and no
 * build of its own: src/reconcilers/deployment/builds/build-reuse.ts), the build that made that image. */
function imageBuildPods(deps: FacadeDependencies, namespace: string, revision: DeepReadonly<Revision>) {
  const own = buildPodsOf(deps, namespace, revision);
  const key = revision.status?.buildKey;
  if (own.length > 0 || !key) return own;
  const owner = revision.metadata.ownerReferences?.[0]?.uid ?? '';
  const builders = deps.cache.revisions
    .byIndex('owner', owner)
    .filter((other) => other.metadata.namespace === namespace && other.status?.buildKey === key && other !== revision);
  for (const builder of builders) {
    const pods = buildPodsOf(deps, namespace, builder);
    if (pods.length > 0) return pods;
  }
  return [];
}

/** What reads logs for the routes: the dependencies, and one replica's limit on log reads in flight
 * (whatever the number of requests, turns shared fairly among the organizations that wait: log-reads.ts). */
interface LogReader {
  deps: FacadeDependencies;
  requests: Limiter;
}

export function registerLogRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache } = deps;
  const reader: LogReader = {
    deps,
    requests: new Limiter(logReadLimits.concurrentRequests, logReadLimits.queuedRequests, logReadLimits.queuedPerOrganization),
  };

  serve<Params>(app, logRoutes.revision, async (request) => {
    const tenant = tenantOf(request, cache);
    const { deployment, revisions } = pathTarget(cache, request, 'deployment_id', tenant.namespace);
    const query = parseRequestPart('query', logQuerySchema, request.query);
    return answer(reader, tenant.namespace, deployment, revisions, query.type, query, ['query', 'offset']);
  });

  serve(app, logRoutes.deployment, async (request) => {
    const tenant = tenantOf(request, cache);
    const query = parseRequestPart('query', deploymentLogQuerySchema, request.query);
    const { deployment, revisions } = target(cache, tenant.namespace, query.deployment_id, query.revision_id);
    const filter = { ...query, limit: query.page_size, offset: query.cursor, order: query.sort_order };
    const type = query.log_type === 'BUILD' ? 'build' : 'deploy';
    const page = await answer(reader, tenant.namespace, deployment, revisions, type, filter, ['query', 'cursor']);
    return { items: page.logs, next_cursor: page.next_offset };
  });

  const v1 = (spec: RouteSpec, type: LogType) =>
    serve<Params>(app, spec, async (request) => {
      const tenant = tenantOf(request, cache);
      const { deployment, revisions } = pathTarget(cache, request, 'project_id', tenant.namespace);
      const body = parseRequestPart('body', logFilterSchema, request.body ?? {});
      return answer(reader, tenant.namespace, deployment, revisions, type, body, ['body', 'offset']);
    });
  v1(logRoutes.buildV1, 'build');
  v1(logRoutes.deployV1, 'deploy');
  v1(logRoutes.projectV1, 'deploy');
}

/** The pods whose logs a request reads: a deploy's (its pre-deploy command's first), or the build that made its image. */
function logPods(deps: FacadeDependencies, namespace: string, revisions: readonly DeepReadonly<Revision>[], type: LogType) {
  const pods = revisions.flatMap((revision) => {
    const name = revision.metadata.name ?? '';
    // A deploy's log begins with its pre-deploy command's, if it has one.
    if (type !== 'build')
      return [
        ...podsOfRevision(deps.cache.pods, namespace, name, 'workload'),
        ...podsOfBuild(deps.cache.pods, name, { namespace, name: preDeployJobName(name) }),
      ];
    return imageBuildPods(deps, namespace, revision);
  });
  // Two revisions on one image read one build.
  return [...new Map(pods.map((pod) => [`${pod.metadata?.namespace}/${pod.metadata?.name}`, pod])).values()];
}

/** Each container's log reads: the current log, and the previous run's of a container that restarted (why it crashed). */
function containerReads(pod: DeepReadonly<V1Pod>) {
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => c.name);
  return containers.flatMap((container) => {
    const restarted = (statuses.find((s) => s.name === container)?.restartCount ?? 0) > 0;
    const current = { namespace, pod: name, container, previous: false };
    return restarted ? [{ ...current, previous: true }, current] : [current];
  });
}

/** The containers' logs, the newest pods' first, within the request's bounds. */
async function containerLogs(reader: LogReader, organization: string, pods: readonly DeepReadonly<V1Pod>[]): Promise<ContainerLog[]> {
  const newestFirst = [...pods].sort((a, b) =>
    String(b.metadata?.creationTimestamp ?? '').localeCompare(String(a.metadata?.creationTimestamp ?? '')),
  );
  const reads = newestFirst.flatMap(containerReads).slice(0, logReadLimits.maxReads);
  const limitBytes = perReadBytes(reads.length);
  const works = reads.map(
    ({ namespace, pod, container, previous }) =>
      () =>
        reader.deps.podLogs.read(namespace, pod, container, { previous, limitBytes }).then((text) => ({ pod, container, text })),
  );
  return reader.requests.run(organization, () => inTurns(works, logReadLimits.concurrentReads));
}

/** The values a log line must never show: the deployment's secrets and those its revisions were made
 * with, its database password, the build's credentials. */
async function secretValues(
  deps: FacadeDependencies,
  namespace: string,
  deployment: DeepReadonly<Deployment>,
  revisions: readonly DeepReadonly<Revision>[],
  type: LogType,
): Promise<string[]> {
  const names = childNames(deployment.metadata.name ?? '');
  const sources = [
    names.secrets,
    ...revisions.flatMap((revision) => (revision.spec.secretSnapshot ? [revision.spec.secretSnapshot] : [])),
    names.postgresCredentials,
    names.postgresTls,
    names.redisCredentials,
    ...(deployment.spec.secrets ?? []).flatMap((s) => (s.valueFrom ? [s.valueFrom.secretKeyRef.name] : [])),
  ];
  if (type === 'build') {
    const integration = integrationById(deps.cache, namespace, deployment.spec.sourceConfig?.integrationId);
    if (integration) sources.push(integration.spec.credentialsSecretRef.name);
  }
  const values = await Promise.all([...new Set(sources)].map((name) => readSecretValues(deps.writer, namespace, name)));
  return values.flatMap((record) => Object.values(record));
}

async function answer(
  reader: LogReader,
  namespace: string,
  deployment: DeepReadonly<Deployment>,
  revisions: readonly DeepReadonly<Revision>[],
  type: LogType,
  filter: LogFilter,
  offsetField: ['query' | 'body', string],
): Promise<LogPage> {
  const cursor = filter.offset ? decodeCursor(filter.offset) : undefined;
  if (filter.offset && !cursor) throw invalidField(offsetField, 'Input should be a next_offset this API returned', 'value_error');
  const [logs, secrets] = await Promise.all([
    containerLogs(reader, namespace, logPods(reader.deps, namespace, revisions, type)),
    secretValues(reader.deps, namespace, deployment, revisions, type),
  ]);
  return logPage(logs, filter, secrets, cursor);
}

/** The deployment and the revisions whose logs are asked for: the one named, or all of them. */
function target(cache: FacadeDependencies['cache'], namespace: string, deploymentId: string, revisionId: string | null | undefined) {
  const deployment = deploymentById(cache, namespace, deploymentId);
  const revision = revisionId ? revisionById(cache, namespace, deployment, revisionId) : undefined;
  return {
    deployment,
    revisions: revision ? [revision] : revisionsOf(deployment, cache.revisions.byIndex('owner', deployment.metadata.uid ?? '')),
  };
}

/** target, for the ids in a path (`deploymentParam`, and revision_id where the route has one). */
function pathTarget(
  cache: FacadeDependencies['cache'],
  request: FastifyRequest<Params>,
  deploymentParam: 'deployment_id' | 'project_id',
  namespace: string,
) {
  return target(
    cache,
    namespace,
    uuidPathParam(request, deploymentParam),
    request.params.revision_id !== undefined ? uuidPathParam(request, 'revision_id') : undefined,
  );
}

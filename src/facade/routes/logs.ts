// Logs of a deployment's pods: deploy logs (the application's and queue worker's containers of a
// revision) and build logs (the revision's build Job pod), in the reference control plane's shape.
//   GET  /v2/deployments/{deployment_id}/revisions/{revision_id}/logs?type=deploy|build&...
//   POST /v1/projects/{project_id}/revisions/{revision_id}/build_logs    (project id = deployment id)
//   POST /v1/projects/{project_id}/revisions/{revision_id}/deploy_logs
//   POST /v1/projects/{project_id}/deploy_logs                          (every revision's pods)
// The POST forms take the same filters in the body; members they do not know are ignored, as older
// clients send more. Every secret value of the deployment is masked in every line.
import type { V1Pod } from '@kubernetes/client-node';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deployment, Revision } from '../../api/index.ts';
import { childNames } from '../../api/child-names.ts';
import { podsOfRevision } from '../../workloads/revision-pods.ts';
import { buildJobLocation, podsOfBuild } from '../../workloads/build-jobs.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { invalidField } from '../errors.ts';
import { inTurns, Limiter, logReadLimits, perReadBytes } from '../log-reads.ts';
import {
  decodeCursor,
  logFilterSchema,
  logPage,
  logTypes,
  type ContainerLog,
  type LogFilter,
  type LogPage,
  type LogType,
} from '../logs.ts';
import { readSecretValues } from '../owned-secrets.ts';
import { byUid, type FacadeDependencies } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { deploymentById, revisionById, revisionsOf } from './deployment-answers.ts';

const logQuerySchema = logFilterSchema.extend({
  type: z.enum(logTypes).default('deploy').describe("deploy: the revision's application and queue worker; build: its build Job."),
});

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
} satisfies Record<string, RouteSpec>;

export function registerLogRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache } = deps;

  const podsOf = (namespace: string, revisions: readonly DeepReadonly<Revision>[], type: LogType) =>
    revisions.flatMap((revision) => {
      const name = revision.metadata.name ?? '';
      if (type !== 'build') return podsOfRevision(cache.pods, namespace, name, 'workload');
      return podsOfBuild(cache.pods, name, buildJobLocation(deps.buildNamespace, { namespace, name, uid: revision.metadata.uid ?? '' }));
    });

  /** One replica's log reads in flight at once, whatever the number of requests, turns shared fairly
   * among the organizations that wait (log-reads.ts). */
  const requests = new Limiter(logReadLimits.concurrentRequests, logReadLimits.queuedRequests, logReadLimits.queuedPerOrganization);

  /**
   * Each container's current log, and the previous run's of a container that restarted (why it
   * crashed): the newest pods' first, within the request's bounds.
   */
  const containerLogs = async (organization: string, pods: readonly DeepReadonly<V1Pod>[]): Promise<ContainerLog[]> => {
    const newestFirst = [...pods].sort((a, b) =>
      String(b.metadata?.creationTimestamp ?? '').localeCompare(String(a.metadata?.creationTimestamp ?? '')),
    );
    const reads = newestFirst
      .flatMap((pod) => {
        const name = pod.metadata?.name ?? '';
        const namespace = pod.metadata?.namespace ?? '';
        const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
        const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => c.name);
        return containers.flatMap((container) => {
          const restarted = (statuses.find((s) => s.name === container)?.restartCount ?? 0) > 0;
          return restarted
            ? [
                { namespace, pod: name, container, previous: true },
                { namespace, pod: name, container, previous: false },
              ]
            : [{ namespace, pod: name, container, previous: false }];
        });
      })
      .slice(0, logReadLimits.maxReads);
    const limitBytes = perReadBytes(reads.length);
    const works = reads.map(
      ({ namespace, pod, container, previous }) =>
        () =>
          deps.podLogs.read(namespace, pod, container, { previous, limitBytes }).then((text) => ({ pod, container, text })),
    );
    return requests.run(organization, () => inTurns(works, logReadLimits.concurrentReads));
  };

  /** The values a log line must never show: the deployment's secrets, its database password, the build's credentials. */
  const secretValues = async (namespace: string, deployment: DeepReadonly<Deployment>, type: LogType): Promise<string[]> => {
    const names = childNames(deployment.metadata.name ?? '');
    const sources = [
      names.secrets,
      names.postgresCredentials,
      names.redisCredentials,
      ...(deployment.spec.secrets ?? []).flatMap((s) => (s.valueFrom ? [s.valueFrom.secretKeyRef.name] : [])),
    ];
    if (type === 'build') {
      const integration = cache.codeHostIntegrations
        .byIndex(byUid, deployment.spec.sourceConfig?.integrationId ?? '')
        .find((i) => i.metadata.namespace === namespace);
      if (integration) sources.push(integration.spec.credentialsSecretRef.name);
    }
    const values = await Promise.all([...new Set(sources)].map((name) => readSecretValues(deps.writer, namespace, name)));
    return values.flatMap((record) => Object.values(record));
  };

  const answer = async (
    namespace: string,
    deployment: DeepReadonly<Deployment>,
    revisions: readonly DeepReadonly<Revision>[],
    type: LogType,
    filter: LogFilter,
    where: 'query' | 'body',
  ): Promise<LogPage> => {
    const cursor = filter.offset ? decodeCursor(filter.offset) : undefined;
    if (filter.offset && !cursor) throw invalidField([where, 'offset'], 'Input should be a next_offset this API returned', 'value_error');
    const [logs, secrets] = await Promise.all([
      containerLogs(namespace, podsOf(namespace, revisions, type)),
      secretValues(namespace, deployment, type),
    ]);
    return logPage(logs, filter, secrets, cursor);
  };

  /** The deployment and the revisions whose logs are asked for: the one in the path, or all of them. */
  const target = (request: FastifyRequest<Params>, deploymentParam: 'deployment_id' | 'project_id', namespace: string) => {
    const deployment = deploymentById(cache, namespace, uuidPathParam(request, deploymentParam));
    const revision =
      request.params.revision_id !== undefined
        ? revisionById(cache, namespace, deployment, uuidPathParam(request, 'revision_id'))
        : undefined;
    return {
      deployment,
      revisions: revision ? [revision] : revisionsOf(deployment, cache.revisions.byIndex('owner', deployment.metadata.uid ?? '')),
    };
  };

  serve<Params>(app, logRoutes.revision, async (request) => {
    const tenant = tenantOf(request, cache);
    const { deployment, revisions } = target(request, 'deployment_id', tenant.namespace);
    const query = parseRequestPart('query', logQuerySchema, request.query);
    return answer(tenant.namespace, deployment, revisions, query.type, query, 'query');
  });

  const v1 = (spec: RouteSpec, type: LogType) =>
    serve<Params>(app, spec, async (request) => {
      const tenant = tenantOf(request, cache);
      const { deployment, revisions } = target(request, 'project_id', tenant.namespace);
      const body = parseRequestPart('body', logFilterSchema, request.body ?? {});
      return answer(tenant.namespace, deployment, revisions, type, body, 'body');
    });
  v1(logRoutes.buildV1, 'build');
  v1(logRoutes.deployV1, 'deploy');
  v1(logRoutes.projectV1, 'deploy');
}

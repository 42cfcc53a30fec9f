// What Berth and Kubernetes said about a deployment, newest first: GET /v2/deployments/{deployment_id}/events.
// The Events of its namespace about the Deployment, its Revisions, its pods and its workloads
// (deployment-events.ts picks them); read from the API server on each request, as no cache holds Events.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { deploymentLabelValue } from '../../api/child-names.ts';
import { podsOfDeployment } from '../../workloads/revision-pods.ts';
import { deploymentEvents } from '../deployment-events.ts';
import type { FacadeDependencies } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { deploymentEventsSchema } from '../wire-schemas.ts';
import { deploymentById } from './deployment-answers.ts';

const eventsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Most events to return (1-200), the newest.'),
});

const eventsRoute = {
  method: 'GET',
  url: '/v2/deployments/:deployment_id/events',
  summary: 'List the events of a deployment and its children, newest first',
  description:
    'What Berth and Kubernetes said about the deployment, its revisions, its pods and its workloads (a build that failed, a pod that cannot pull its image, a path a NetworkPolicy blocks, ...), as Kubernetes Events, newest first. Events are kept for about an hour by default.',
  query: eventsQuerySchema,
  success: { status: 200, description: 'Events, newest first.', schema: deploymentEventsSchema },
} satisfies RouteSpec;

type Params = { Params: { deployment_id: string } };

export function registerEventRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache, events } = deps;
  serve<Params>(app, eventsRoute, async (request) => {
    const tenant = tenantOf(request, cache);
    const deployment = deploymentById(cache, tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const { limit } = parseRequestPart('query', eventsQuerySchema, request.query);
    const name = deployment.metadata.name ?? '';
    const uid = deployment.metadata.uid ?? '';
    const uids = new Set([
      uid,
      ...cache.revisions.byIndex('owner', uid).map((revision) => revision.metadata.uid ?? ''),
      ...podsOfDeployment(cache.pods, tenant.namespace, deploymentLabelValue(name)).map((pod) => pod.metadata?.uid ?? ''),
    ]);
    return { resources: deploymentEvents(await events.list(tenant.namespace), { name, uids }, limit) };
  });
}

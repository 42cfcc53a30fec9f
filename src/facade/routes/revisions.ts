// A deployment's revisions: /v2/deployments/{deployment_id}/revisions[/{revision_id}[/redeploy]].
// Listed newest first; a redeploy pins the revision (spec.revisionName) and answers once the controller
// has observed the pin.
import type { FastifyInstance } from 'fastify';
import { deploymentKind, type Deployment } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { clientErrorFromKube } from '../kube-errors.ts';
import { paginate, pageQuerySchema } from '../pagination.ts';
import type { FacadeDependencies } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import { revisionResponse } from '../responses.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { pageSchema, revisionResponseSchema } from '../wire-schemas.ts';
import { deploymentAnswers, deploymentNotFound, revisionById, revisionsOf } from './deployment-answers.ts';

type DeploymentParams = { Params: { deployment_id: string } };
type RevisionParams = { Params: { deployment_id: string; revision_id: string } };

const revisionRoutes = {
  list: {
    method: 'GET',
    url: '/v2/deployments/:deployment_id/revisions',
    summary: 'List revisions of a deployment, newest first',
    query: pageQuerySchema,
    success: { status: 200, description: 'One page of revisions.', schema: pageSchema(revisionResponseSchema) },
  },
  read: {
    method: 'GET',
    url: '/v2/deployments/:deployment_id/revisions/:revision_id',
    summary: 'Read a revision',
    success: { status: 200, description: 'The revision.', schema: 'Revision' },
  },
  redeploy: {
    method: 'POST',
    url: '/v2/deployments/:deployment_id/revisions/:revision_id/redeploy',
    summary: 'Serve this revision again (a rollback)',
    success: { status: 200, description: 'The deployment.', schema: 'Deployment' },
  },
} satisfies Record<string, RouteSpec>;

export function registerRevisionRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache, writer } = deps;
  const { findDeployment, respond, observed } = deploymentAnswers(deps);

  serve<DeploymentParams>(app, revisionRoutes.list, async (request) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const query = parseRequestPart('query', pageQuerySchema, request.query);
    const revisions = revisionsOf(deployment, cache.revisions.byIndex('owner', deployment.metadata.uid!));
    return paginate(revisions, query, (revision) => revisionResponse(revision, deployment.metadata.uid!));
  });

  const findRevision = (namespace: string, deployment: DeepReadonly<Deployment>, revisionId: string) =>
    revisionById(cache, namespace, deployment, revisionId);

  serve<RevisionParams>(app, revisionRoutes.read, async (request) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const revision = findRevision(tenant.namespace, deployment, uuidPathParam(request, 'revision_id'));
    return revisionResponse(revision, deployment.metadata.uid!);
  });

  serve<RevisionParams>(app, revisionRoutes.redeploy, async (request) => {
    const tenant = tenantOf(request, cache);
    const id = uuidPathParam(request, 'deployment_id');
    const deployment = findDeployment(tenant.namespace, id);
    const revision = findRevision(tenant.namespace, deployment, uuidPathParam(request, 'revision_id'));
    const written = await writer
      .patch<Deployment>(deploymentKind, tenant.namespace, deployment.metadata.name!, {
        metadata: { uid: id },
        spec: { revisionName: revision.metadata.name },
      })
      .catch((error: unknown) => clientErrorFromKube(error, { notFound: deploymentNotFound(id) }));
    return respond(await observed(written), tenant);
  });
}

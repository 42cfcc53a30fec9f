// A deployment's revisions: /v2/deployments/{deployment_id}/revisions[/{revision_id}[/redeploy|/interrupt]].
// Listed newest first; a redeploy pins the revision (spec.revisionName) and answers once the controller
// has observed the pin; an interrupt stops a revision on its way (interruptedAnnotation) and answers once
// the controller has stopped it.
import type { FastifyInstance } from 'fastify';
import {
  deploymentKind,
  interruptedAnnotation,
  interruptionOf,
  revisionKind,
  settledRevisionPhases,
  type Deployment,
  type Revision,
} from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { conflict } from '../errors.ts';
import { clientErrorFromKube } from '../kube-errors.ts';
import { waitForCache } from '../observe.ts';
import { paginate, pageQuerySchema } from '../pagination.ts';
import type { FacadeDependencies } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { pageSchema, revisionResponseSchema } from '../wire-schemas.ts';
import {
  deploymentAnswers,
  deploymentNotFound,
  migrationCrossed,
  revisionAnswer,
  revisionById,
  revisionNotFound,
  revisionsOf,
} from './deployment-answers.ts';

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
    description:
      'Never restores a database. When a later revision migrated it, the answer says which and names the backup taken before it (crosses_migration), as the condition RollbackCrossesMigration does.',
    success: { status: 200, description: 'The deployment, and the migration the rollback crosses.', schema: 'Redeployment' },
  },
  interrupt: {
    method: 'POST',
    url: '/v2/deployments/:deployment_id/revisions/:revision_id/interrupt',
    summary: 'Stop a revision that is building or deploying',
    description:
      'Its build stops, its rollout goes back to the revision that served before, and it ends INTERRUPTED. No body. A revision that has ended already (DEPLOYED, *_FAILED, SKIPPED, INTERRUPTED) is a 409, and nothing changes.',
    success: { status: 200, description: 'The revision, INTERRUPTED once the controller has stopped it.', schema: 'Revision' },
  },
} satisfies Record<string, RouteSpec>;

export function registerRevisionRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache, writer } = deps;
  const revisionResponse = revisionAnswer(cache);
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

  serve<RevisionParams>(app, revisionRoutes.interrupt, async (request) => {
    const tenant = tenantOf(request, cache);
    const id = uuidPathParam(request, 'deployment_id');
    const deployment = findDeployment(tenant.namespace, id);
    const revisionId = uuidPathParam(request, 'revision_id');
    const revision = findRevision(tenant.namespace, deployment, revisionId);
    const phase = revision.status?.status;
    if (phase && settledRevisionPhases.has(phase))
      throw conflict(`Revision ${revisionId} is ${phase}: only a revision that is building or deploying can be interrupted.`);
    const asked = interruptionOf(revision) ?? new Date().toISOString();
    await writer
      .patch<Revision>(revisionKind, tenant.namespace, revision.metadata.name!, {
        metadata: { uid: revisionId, annotations: { [interruptedAnnotation]: asked } },
      })
      .catch((error: unknown) => clientErrorFromKube(error, { notFound: revisionNotFound(revisionId) }));
    const stopped = await waitForCache(
      () => cache.revisions.get(tenant.namespace, revision.metadata.name!),
      (seen) => seen.status?.status === 'INTERRUPTED',
      { timeoutMs: deps.observeTimeoutMs },
    );
    return revisionResponse(stopped ?? revision, id);
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
    const revisions = revisionsOf(deployment, cache.revisions.byIndex('owner', id));
    return { ...respond(await observed(written), tenant), crosses_migration: migrationCrossed(cache, revision, revisions) };
  });
}

// Restores of a deployment's database: POST /v2/deployments/{deployment_id}/backups/{backup_id}/restore
// asks for one (a DatabaseRestore the controller carries out) and answers 202 at once, PENDING;
// /v2/deployments/{deployment_id}/restores[/{restore_id}] lists them newest first, reads one, or deletes
// one, and with it the database it retired (or the one it was still making).
import type { FastifyInstance } from 'fastify';
import {
  backupRequestedAt,
  databaseRestoreFor,
  databaseRestoreKind,
  targetTimeProblem,
  type DatabaseRestore,
  type Deployment,
} from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { optional } from '../../runtime/index.ts';
import { invalidField, notFound } from '../errors.ts';
import { clientErrorFromKube } from '../kube-errors.ts';
import { waitForCache, waitForGone } from '../observe.ts';
import { paginate, pageQuerySchema } from '../pagination.ts';
import type { FacadeDependencies } from '../ports.ts';
import { byCreation, parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import { databaseRestoreResponse } from '../responses.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { databaseRestoreRequestSchema, databaseRestoreResponseSchema, pageSchema } from '../wire-schemas.ts';
import { deploymentAnswers, deploymentNotFound } from './deployment-answers.ts';

type DeploymentParams = { Params: { deployment_id: string } };
type BackupParams = { Params: { deployment_id: string; backup_id: string } };
type RestoreParams = { Params: { deployment_id: string; restore_id: string } };

const restoresUrl = '/v2/deployments/:deployment_id/restores';

const restoreRoutes = {
  create: {
    method: 'POST',
    url: '/v2/deployments/:deployment_id/backups/:backup_id/restore',
    summary: "Restore a deployment's database from a backup",
    description:
      'Restores the backup into a new database beside the serving one, after a backup of the serving one (unless backup_first is false), and switches the deployment to it once it serves: its apps reach it at the same host with the same password. ' +
      'The database that served before is kept, hibernated, until the restore is deleted. A restore that fails deletes what it made and leaves the deployment on its database. ' +
      'The answer comes at once, PENDING; read the restore to follow it.',
    body: { schema: 'DatabaseRestoreRequest', required: false },
    success: { status: 202, description: 'The restore, as just asked for.', schema: 'DatabaseRestore' },
  },
  list: {
    method: 'GET',
    url: restoresUrl,
    summary: "List restores of a deployment's database, newest first",
    query: pageQuerySchema,
    success: { status: 200, description: 'One page of restores.', schema: pageSchema(databaseRestoreResponseSchema) },
  },
  read: {
    method: 'GET',
    url: `${restoresUrl}/:restore_id`,
    summary: 'Read a restore',
    success: { status: 200, description: 'The restore.', schema: 'DatabaseRestore' },
  },
  remove: {
    method: 'DELETE',
    url: `${restoresUrl}/:restore_id`,
    summary: 'Delete a restore, and the database it retired',
    description:
      'Deletes the record of the restore and the database that served before it (or, for a restore not yet switched, the database it was making, which stops it). The serving database is never deleted.',
    success: { status: 204, description: 'Deleted.' },
  },
} satisfies Record<string, RouteSpec>;

const backupNotFound = (id: string) => `Backup ${id} not found`;
const restoreNotFound = (id: string) => `Restore ${id} not found`;

export function registerRestoreRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache, writer } = deps;
  const { findDeployment } = deploymentAnswers(deps);

  const restoresOf = (deployment: DeepReadonly<Deployment>) =>
    cache.databaseRestores
      .byIndex('owner', deployment.metadata.uid!)
      .sort((a, b) => backupRequestedAt(b) - backupRequestedAt(a) || byCreation(b, a));
  const backupUid = (namespace: string, name: string | undefined) =>
    name ? cache.databaseBackups.get(namespace, name)?.metadata.uid : undefined;
  const respond = (restore: DeepReadonly<DatabaseRestore>, deployment: DeepReadonly<Deployment>) => {
    const namespace = deployment.metadata.namespace!;
    const restored = backupUid(namespace, restore.spec.backupName);
    const before = backupUid(namespace, restore.status?.backupBeforeName);
    return databaseRestoreResponse(restore, deployment.metadata.uid!, { ...(restored ? { restored } : {}), ...(before ? { before } : {}) });
  };
  const findRestore = (deployment: DeepReadonly<Deployment>, id: string) => {
    const restore = restoresOf(deployment).find((candidate) => candidate.metadata.uid === id);
    if (!restore) throw notFound(restoreNotFound(id));
    return restore;
  };

  serve<BackupParams>(app, restoreRoutes.create, async (request, reply) => {
    const tenant = tenantOf(request, cache);
    const id = uuidPathParam(request, 'deployment_id');
    const deployment = findDeployment(tenant.namespace, id);
    const backupId = uuidPathParam(request, 'backup_id');
    const backup = cache.databaseBackups.byIndex('owner', id).find((candidate) => candidate.metadata.uid === backupId);
    if (!backup) throw notFound(backupNotFound(backupId));
    const body = parseRequestPart('body', databaseRestoreRequestSchema, request.body ?? {});
    const outOfReach = body.target_time ? targetTimeProblem(body.target_time, backup.status?.stoppedAt, new Date()) : undefined;
    if (outOfReach) throw invalidField(['body', 'target_time'], outOfReach);
    const owner = { name: deployment.metadata.name!, namespace: tenant.namespace, uid: id };
    const created = await writer
      .create<DatabaseRestore>(
        databaseRestoreKind,
        tenant.namespace,
        databaseRestoreFor(
          owner,
          { backupName: backup.metadata.name!, backupFirst: body.backup_first, ...optional('targetTime', body.target_time) },
          new Date(),
        ),
      )
      .catch((error: unknown) => clientErrorFromKube(error, { notFound: deploymentNotFound(id) }));
    const seen = await waitForCache(
      () => cache.databaseRestores.get(tenant.namespace, created.metadata!.name!),
      (restore) => restore.metadata.uid === created.metadata!.uid,
      { timeoutMs: deps.observeTimeoutMs },
    );
    return reply.code(202).send(respond(seen ?? (created as DeepReadonly<DatabaseRestore>), deployment));
  });

  serve<DeploymentParams>(app, restoreRoutes.list, async (request) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const query = parseRequestPart('query', pageQuerySchema, request.query);
    return paginate(restoresOf(deployment), query, (restore) => respond(restore, deployment));
  });

  serve<RestoreParams>(app, restoreRoutes.read, async (request) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    return respond(findRestore(deployment, uuidPathParam(request, 'restore_id')), deployment);
  });

  serve<RestoreParams>(app, restoreRoutes.remove, async (request, reply) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const restore = findRestore(deployment, uuidPathParam(request, 'restore_id'));
    await writer.delete(databaseRestoreKind, tenant.namespace, restore.metadata.name!);
    await waitForGone(() => cache.databaseRestores.get(tenant.namespace, restore.metadata.name!), deps.observeTimeoutMs);
    return reply.code(204).send();
  });
}

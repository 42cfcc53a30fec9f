// A deployment's database backups: /v2/deployments/{deployment_id}/backups[/{backup_id}]. A POST asks for
// one (a DatabaseBackup the controller takes through CloudNativePG) and answers 201 at once, PENDING; a
// GET lists them newest first, as revisions are, or reads one.
import type { FastifyInstance } from 'fastify';
import {
  backupRequestedAt,
  boundedName,
  databaseBackupFor,
  databaseBackupKind,
  dnsLabelBase,
  type DatabaseBackup,
  type Deployment,
} from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { notFound } from '../errors.ts';
import { clientErrorFromKube } from '../kube-errors.ts';
import { waitForCache } from '../observe.ts';
import { paginate, pageQuerySchema } from '../pagination.ts';
import type { FacadeDependencies } from '../ports.ts';
import { byCreation, parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import { databaseBackupResponse } from '../responses.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { databaseBackupResponseSchema, pageSchema } from '../wire-schemas.ts';
import { deploymentAnswers, deploymentNotFound } from './deployment-answers.ts';

type DeploymentParams = { Params: { deployment_id: string } };
type BackupParams = { Params: { deployment_id: string; backup_id: string } };

const backupsUrl = '/v2/deployments/:deployment_id/backups';

const backupRoutes = {
  create: {
    method: 'POST',
    url: backupsUrl,
    summary: "Back up a deployment's database",
    description:
      "Takes one backup of the deployment's database into its organization's bucket, through CloudNativePG. No body. The answer comes at once, PENDING; read the backup to follow it. A database Berth does not run on CloudNativePG (a StatefulSet's, or the team's own) makes a backup that is FAILED at once, saying why.",
    success: { status: 201, description: 'The backup, as just asked for.', schema: 'DatabaseBackup' },
  },
  list: {
    method: 'GET',
    url: backupsUrl,
    summary: "List backups of a deployment's database, newest first",
    query: pageQuerySchema,
    success: { status: 200, description: 'One page of backups.', schema: pageSchema(databaseBackupResponseSchema) },
  },
  read: {
    method: 'GET',
    url: `${backupsUrl}/:backup_id`,
    summary: 'Read a backup',
    success: { status: 200, description: 'The backup.', schema: 'DatabaseBackup' },
  },
} satisfies Record<string, RouteSpec>;

const backupNotFound = (id: string) => `Backup ${id} not found`;

export function registerBackupRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache, writer } = deps;
  const { findDeployment } = deploymentAnswers(deps);

  const backupsOf = (deployment: DeepReadonly<Deployment>) =>
    cache.databaseBackups
      .byIndex('owner', deployment.metadata.uid!)
      .sort((a, b) => backupRequestedAt(b) - backupRequestedAt(a) || byCreation(b, a));
  const respond = (backup: DeepReadonly<DatabaseBackup>, deployment: DeepReadonly<Deployment>) => {
    const revision = backup.spec.revisionName ? cache.revisions.get(deployment.metadata.namespace!, backup.spec.revisionName) : undefined;
    return databaseBackupResponse(backup, deployment.metadata.uid!, revision?.metadata.uid);
  };

  serve<DeploymentParams>(app, backupRoutes.create, async (request, reply) => {
    const tenant = tenantOf(request, cache);
    const id = uuidPathParam(request, 'deployment_id');
    const deployment = findDeployment(tenant.namespace, id);
    const name = deployment.metadata.name!;
    const created = await writer
      .create<DatabaseBackup>(
        databaseBackupKind,
        tenant.namespace,
        databaseBackupFor(
          { name, namespace: tenant.namespace, uid: id },
          { generateName: boundedName(dnsLabelBase(name), '-backup-', 57) },
          { reason: 'manual' },
          new Date(),
        ),
      )
      .catch((error: unknown) => clientErrorFromKube(error, { notFound: deploymentNotFound(id) }));
    const seen = await waitForCache(
      () => cache.databaseBackups.get(tenant.namespace, created.metadata!.name!),
      (backup) => backup.metadata.uid === created.metadata!.uid,
      { timeoutMs: deps.observeTimeoutMs },
    );
    return reply.code(201).send(respond(seen ?? (created as DeepReadonly<DatabaseBackup>), deployment));
  });

  serve<DeploymentParams>(app, backupRoutes.list, async (request) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const query = parseRequestPart('query', pageQuerySchema, request.query);
    return paginate(backupsOf(deployment), query, (backup) => respond(backup, deployment));
  });

  serve<BackupParams>(app, backupRoutes.read, async (request) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const id = uuidPathParam(request, 'backup_id');
    const backup = backupsOf(deployment).find((candidate) => candidate.metadata.uid === id);
    if (!backup) throw notFound(backupNotFound(id));
    return respond(backup, deployment);
  });
}

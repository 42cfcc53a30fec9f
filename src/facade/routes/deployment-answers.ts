// How the deployment routes find what a request names and answer with it: lookups by id among the
// tenant's objects (another organization's answer 404, as missing ones do), the response of a
// deployment with its latest revision, and the wait for the controller to observe a write.
import { firstMigrationAfter, labels, type CodeHostIntegration, type Deployment, type Revision } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { notFound } from '../errors.ts';
import { waitForCache } from '../observe.ts';
import { byUid, type FacadeCache, type FacadeDependencies } from '../ports.ts';
import { byCreation } from '../request.ts';
import { deploymentResponse, revisionResponse } from '../responses.ts';
import { backupStateOf, type RedeploymentResponse } from '../wire-schemas.ts';
import type { Tenant } from '../tenancy.ts';

/** The reference's words for a revision id the deployment does not have. */
export function revisionNotFound(id: string): string {
  return `Revision ID ${id} not found.`;
}

export function deploymentNotFound(id: string): string {
  return `Deployment ID ${id} not found.`;
}

/** A revision as the API answers it, with the id of the backup taken before it, if any. */
export function revisionAnswer(cache: Pick<FacadeCache, 'databaseBackups'>) {
  return (revision: DeepReadonly<Revision>, deploymentId: string) => {
    const name = revision.status?.backupName;
    const backup = name ? cache.databaseBackups.get(revision.metadata.namespace ?? '', name) : undefined;
    return revisionResponse(revision, deploymentId, backup?.metadata.uid);
  };
}

/** What a rollback to `target` crosses (api/migration-crossing.ts): the first later revision that
 * migrated the database, and the backup taken before it; null when it crosses none. */
export function migrationCrossed(
  cache: Pick<FacadeCache, 'databaseBackups'>,
  target: DeepReadonly<Revision>,
  revisions: readonly DeepReadonly<Revision>[],
): RedeploymentResponse['crosses_migration'] {
  const inOrder = (revision: DeepReadonly<Revision>) => ({
    name: revision.metadata.name ?? '',
    generation: generationOf(revision),
    creationTimestamp: String(revision.metadata.creationTimestamp ?? ''),
    backupName: revision.status?.backupName,
    uid: revision.metadata.uid ?? '',
  });
  const first = firstMigrationAfter(inOrder(target), revisions.map(inOrder));
  if (!first) return null;
  const backup = cache.databaseBackups.get(target.metadata.namespace ?? '', first.backupName!);
  return {
    revision_id: first.uid,
    backup_id: backup?.metadata.uid ?? null,
    backup_status: backup ? backupStateOf(backup.status?.phase) : null,
  };
}

/** The spec generation a revision was made at. */
function generationOf(revision: DeepReadonly<Revision>): number {
  return Number(revision.metadata.labels?.[labels.deploymentGeneration] ?? 0) || 0;
}

/** Revisions of a deployment, newest first (by the generation they were made at, then creation). */
export function revisionsOf(deployment: DeepReadonly<Deployment>, revisions: readonly DeepReadonly<Revision>[]): DeepReadonly<Revision>[] {
  return revisions
    .filter(
      (revision) =>
        revision.metadata.labels?.[labels.deployment] === deployment.metadata.name &&
        (revision.metadata.ownerReferences ?? []).some((owner) => owner.uid === deployment.metadata.uid),
    )
    .sort((a, b) => generationOf(b) - generationOf(a) || byCreation(b, a));
}

/** The tenant's deployment with this id; another organization's is not found, as a missing one. */
export function deploymentById(cache: Pick<FacadeCache, 'deployments'>, namespace: string, id: string): DeepReadonly<Deployment> {
  const deployment = cache.deployments.byIndex(byUid, id).find((candidate) => candidate.metadata.namespace === namespace);
  if (!deployment) throw notFound(deploymentNotFound(id));
  return deployment;
}

/** The namespace's integration with this id, if there is one. */
export function integrationById(
  cache: Pick<FacadeCache, 'codeHostIntegrations'>,
  namespace: string,
  id: string | null | undefined,
): DeepReadonly<CodeHostIntegration> | undefined {
  return id ? cache.codeHostIntegrations.byIndex(byUid, id).find((integration) => integration.metadata.namespace === namespace) : undefined;
}

/** The deployment's revision with this id. */
export function revisionById(
  cache: Pick<FacadeCache, 'revisions'>,
  namespace: string,
  deployment: DeepReadonly<Deployment>,
  id: string,
): DeepReadonly<Revision> {
  const revision = revisionsOf(deployment, cache.revisions.byIndex(byUid, id)).find(
    (candidate) => candidate.metadata.namespace === namespace,
  );
  if (!revision) throw notFound(revisionNotFound(id));
  return revision;
}

/** The answers every deployment route gives, over the facade's cache. */
export function deploymentAnswers(deps: Pick<FacadeDependencies, 'cache' | 'observeTimeoutMs'>) {
  const { cache } = deps;
  const deployments = cache.deployments;

  const findDeployment = (namespace: string, id: string) => deploymentById(cache, namespace, id);

  const respond = (deployment: DeepReadonly<Deployment>, tenant: Tenant) => {
    const namespace = deployment.metadata.namespace ?? '';
    const latestName = deployment.status?.latestRevisionName;
    const latestRevision = latestName ? cache.revisions.get(namespace, latestName) : undefined;
    const provider = integrationById(cache, namespace, deployment.spec.sourceConfig?.integrationId)?.spec.provider;
    return deploymentResponse(deployment, tenant.organizationId, { latestRevision, provider });
  };

  /**
   * The Deployment once the controller has acted on `written` (and, given the latest revision before the
   * write, once the latest is another: when only secret values changed, which moves no generation, the
   * revision they call for; given null, when the write made the Secret the first revision reads, that
   * revision), or the newest the cache holds at the deadline.
   */
  const observed = async (written: Deployment, previousLatestRevisionId?: string | null): Promise<DeepReadonly<Deployment>> =>
    (await waitForCache(
      () => deployments.get(written.metadata.namespace ?? '', written.metadata.name ?? ''),
      (cached) =>
        cached.metadata.uid === written.metadata.uid &&
        (cached.status?.observedGeneration ?? -1) >= (written.metadata.generation ?? 0) &&
        (previousLatestRevisionId === undefined || (cached.status?.latestRevisionId ?? null) !== previousLatestRevisionId),
      { timeoutMs: deps.observeTimeoutMs },
    )) ?? written;

  return { findDeployment, respond, observed };
}

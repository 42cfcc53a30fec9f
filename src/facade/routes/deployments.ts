// Deployments: /v2/deployments[/{deployment_id}] (their revisions: revisions.ts). A write answers once
// the controller has observed it (status.observedGeneration reaches the generation the write
// produced), bounded by observeTimeoutMs, so a PATCH that makes a revision answers with the new
// latest_revision_id.
import type { V1Secret } from '@kubernetes/client-node';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  canonicalDeploymentType,
  nameStemIndex,
  customHostIndex,
  nameClaimants,
  quotaExcess,
  replicaCapExcess,
  nodeVolumeRefusal,
  previewCloneRefusal,
  berthOwnSecretMessage,
  berthOwnSecretReference,
  snakeCase,
  nameRefusal,
  customHostOf,
  customHostLimitRefusal,
  type HostClaim,
  deploymentKind,
  deploymentPhases,
  hostClaimRefusal,
  hostPolicyRefusal,
  openHostPolicy,
  repositoryHostRefusal,
  type Deployment,
  sourceKind,
} from '../../api/index.ts';
import { sameJson } from '../../runtime/apply.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { badRequest, conflict, invalidField, notFound, unavailable } from '../errors.ts';
import { childNames } from '../../api/child-names.ts';
import { planDeploymentCreate, planDeploymentPatch, renderDeployment, type DeploymentPlan } from '../deployment-plan.ts';
import { createKeyedSerializer } from '../keyed-serializer.ts';
import { clientErrorFromKube, retryOnConflict } from '../kube-errors.ts';
import { waitForCache, waitForGone } from '../observe.ts';
import { readSecretValues, renderOwnedSecret, writeOwnedSecret, writeOwnedSecretOrUndo } from '../owned-secrets.ts';
import { paginate, pageQuerySchema } from '../pagination.ts';
import type { FacadeDependencies } from '../ports.ts';
import { byCreation, parseRequestPart, tenantOf, uuidPathParam, uuidSchema } from '../request.ts';
import type { Tenant } from '../tenancy.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import {
  deploymentCreateSchema,
  deploymentPatchSchema,
  deploymentResponseSchema,
  pageSchema,
  type DeploymentCreate,
  type DeploymentPatch,
} from '../wire-schemas.ts';
import { deploymentAnswers, deploymentNotFound, integrationById, revisionAnswer } from './deployment-answers.ts';
import { checkListenerChoice } from './listeners.ts';
import { checkUploaded } from './uploads.ts';

/** What the reference answers a tenant without agents that filters by one; its clients know this sentence. */
const agentFiltersUnavailable = 'Agent filters are not available for this tenant.';

/** List filters the reference's clients send; others they send are ignored, as the reference ignores them. */
const deploymentListQuerySchema = pageQuerySchema.extend({
  name: z.string().max(253).optional().describe('Only the deployment of this name.'),
  name_contains: z.string().max(253).optional().describe('Only deployments whose name contains this text.'),
  status: z.enum(deploymentPhases).optional().describe('Only deployments in this state.'),
  is_preview: z.enum(['true', 'false']).optional().describe('Only previews of pull requests (true), or only the others (false).'),
  agent_id: z
    .string()
    .max(253)
    .optional()
    .describe(`Not available here: a request that names it answers 400, "${agentFiltersUnavailable}"`),
  agent_environment: z
    .string()
    .max(253)
    .optional()
    .describe(`Not available here: a request that names it answers 400, "${agentFiltersUnavailable}"`),
});
type DeploymentListQuery = z.infer<typeof deploymentListQuerySchema>;

/** The most deployments one request deletes, as the reference allows. */
const maxDeletedAtOnce = 100;

/** Ids repeated (`?deployment_ids=a&deployment_ids=b`, as the reference's clients send them) or joined by commas. */
const deploymentIdsQuerySchema = z.object({
  deployment_ids: z
    .preprocess(
      (value) => (Array.isArray(value) ? value : [value]).flatMap((id) => (typeof id === 'string' ? id.split(',') : [id])),
      z.array(uuidSchema).min(1).max(maxDeletedAtOnce),
    )
    .describe(`IDs of the deployments to delete (1-${maxDeletedAtOnce}): all of them, or none when one is not found.`),
});

/** The tier the reference counts as free. */
const freeTier = 'dev_free';

const freeCountSchema = z
  .object({ count: z.number().int().describe(`How many of the organization's deployments are of the ${freeTier} tier.`) })
  .describe("The organization's free deployments.");

const deploymentsUrl = '/v2/deployments';
const deploymentUrl = '/v2/deployments/:deployment_id';

const deploymentRoutes = {
  create: {
    method: 'POST',
    url: deploymentsUrl,
    summary: 'Create a deployment',
    body: { schema: 'DeploymentCreate', required: true },
    success: { status: 201, description: 'The deployment.', schema: 'Deployment' },
  },
  list: {
    method: 'GET',
    url: deploymentsUrl,
    summary: 'List deployments',
    query: deploymentListQuerySchema,
    success: { status: 200, description: 'One page of deployments.', schema: pageSchema(deploymentResponseSchema) },
  },
  freeCount: {
    method: 'GET',
    url: `${deploymentsUrl}/free-count`,
    summary: 'Count free deployments',
    success: { status: 200, description: `How many ${freeTier} deployments the organization has.`, schema: freeCountSchema },
  },
  read: {
    method: 'GET',
    url: deploymentUrl,
    summary: 'Read a deployment',
    success: { status: 200, description: 'The deployment.', schema: 'Deployment' },
  },
  patch: {
    method: 'PATCH',
    url: deploymentUrl,
    summary: 'Patch a deployment',
    body: { schema: 'DeploymentPatch', required: true },
    success: { status: 200, description: 'The deployment once the controller has observed the patch.', schema: 'Deployment' },
  },
  createRevision: {
    method: 'POST',
    url: `${deploymentUrl}/revisions`,
    summary: 'Create a revision',
    description:
      'Applies the body as PATCH does and answers with the revision it makes. A body that changes neither source_revision_config nor the secrets makes none: 409, and nothing is changed.',
    body: { schema: 'DeploymentPatch', required: true },
    success: { status: 201, description: 'The revision, once the controller has made it.', schema: 'Revision' },
  },
  remove: { method: 'DELETE', url: deploymentUrl, summary: 'Delete a deployment', success: { status: 204, description: 'Deleted.' } },
  removeMany: {
    method: 'DELETE',
    url: deploymentsUrl,
    summary: 'Delete deployments',
    description: `Deletes up to ${maxDeletedAtOnce} deployments of the organization: all of them, or, when one is not found, none (404 naming it).`,
    query: deploymentIdsQuerySchema,
    success: { status: 200, description: 'Every deployment named is deleted.', schema: { jsonSchema: { type: 'object' } } },
  },
} satisfies Record<string, RouteSpec>;

type DeploymentParams = { Params: { deployment_id: string } };

export function registerDeploymentRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  registerDeploymentReads(app, deps);
  registerDeploymentWrites(app, deps);
}

/** List, count and read: answered from the caches. */
function registerDeploymentReads(app: FastifyInstance, deps: FacadeDependencies): void {
  const { cache } = deps;
  const deployments = cache.deployments;
  const { findDeployment, respond } = deploymentAnswers(deps);

  serve(app, deploymentRoutes.list, async (request) => {
    const tenant = tenantOf(request, cache);
    const query = parseRequestPart('query', deploymentListQuerySchema, request.query);
    if (query.agent_id !== undefined || query.agent_environment !== undefined) throw badRequest(agentFiltersUnavailable);
    const matching = deployments.list(tenant.namespace).filter(listFilter(query));
    return paginate(matching.sort(byCreation), query, (deployment) => respond(deployment, tenant));
  });

  serve(app, deploymentRoutes.freeCount, async (request) => {
    const tenant = tenantOf(request, cache);
    return { count: deployments.list(tenant.namespace).filter((d) => d.spec.sourceConfig?.deploymentType === freeTier).length };
  });

  serve<DeploymentParams>(app, deploymentRoutes.read, async (request) => {
    const tenant = tenantOf(request, cache);
    return respond(findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id')), tenant);
  });
}

/** Create, PATCH, a new revision, delete: written to the API server, answered once the caches see it. */
function registerDeploymentWrites(app: FastifyInstance, deps: FacadeDependencies): void {
  const oneWriteAtATime = createKeyedSerializer();
  const { cache, writer } = deps;
  const revisionResponse = revisionAnswer(cache);
  const deployments = cache.deployments;

  const { findDeployment, respond, observed } = deploymentAnswers(deps);

  serve(app, deploymentRoutes.create, async (request, reply) => {
    const tenant = tenantOf(request, cache);
    const body = parseRequestPart('body', deploymentCreateSchema, withCanonicalTier(request.body)) as DeploymentCreate;
    checkListenerChoice(cache, tenant, body.source_config);
    const { created, wroteSecret } = await createDeployment(deps, tenant, body);
    // The controller may see the Deployment before the Secret of its values (written just after it, as
    // its owner must exist first): the answer waits for the first revision, which reads them.
    return reply.code(201).send(respond(await observed(created, wroteSecret ? null : undefined), tenant));
  });

  /** The tenant's deployment the request names, and its body as a patch (the same for PATCH and a new revision). */
  const patchRequest = (request: FastifyRequest<DeploymentParams>) => {
    const tenant = tenantOf(request, cache);
    const cached = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const patch = parseRequestPart('body', deploymentPatchSchema, withCanonicalTier(request.body)) as DeploymentPatch;
    checkListenerChoice(cache, tenant, patch.source_config);
    return { tenant, cached, patch, key: `${tenant.namespace}/${cached.metadata.name!}` };
  };

  serve<DeploymentParams>(app, deploymentRoutes.patch, async (request) => {
    const { tenant, cached, patch, key } = patchRequest(request);
    const { written, secretValuesChanged, previousLatestRevisionId } = await oneWriteAtATime(key, () =>
      patchDeployment(deps, tenant, cached, patch),
    );
    // New values under the same names move no generation, yet they are a new revision (the digest
    // covers the values): wait for the latest revision to move instead.
    return respond(await observed(written, secretValuesChanged ? previousLatestRevisionId : undefined), tenant);
  });

  serve<DeploymentParams>(app, deploymentRoutes.createRevision, async (request, reply) => {
    const { tenant, cached, patch, key } = patchRequest(request);
    const { written, previousLatestRevisionId } = await oneWriteAtATime(key, () =>
      patchDeployment(deps, tenant, cached, patch, { revisionRequired: true }),
    );
    const deployment = await observed(written, previousLatestRevisionId);
    const latest = await waitForCache(
      () => cache.revisions.get(tenant.namespace, deployment.status?.latestRevisionName ?? ''),
      (revision) => revision.metadata.uid === deployment.status?.latestRevisionId,
      { timeoutMs: deps.observeTimeoutMs },
    );
    if (!latest || latest.metadata.uid === previousLatestRevisionId) throw unavailable(revisionNotYetMade);
    return reply.code(201).send(revisionResponse(latest, deployment.metadata.uid!));
  });

  serve<DeploymentParams>(app, deploymentRoutes.remove, async (request, reply) => {
    const tenant = tenantOf(request, cache);
    const deployment = findDeployment(tenant.namespace, uuidPathParam(request, 'deployment_id'));
    await writer.delete(deploymentKind, tenant.namespace, deployment.metadata.name!);
    await waitForGone(() => deployments.get(tenant.namespace, deployment.metadata.name!), deps.observeTimeoutMs);
    return reply.code(204).send();
  });

  serve(app, deploymentRoutes.removeMany, async (request) => {
    const tenant = tenantOf(request, cache);
    const { deployment_ids: ids } = parseRequestPart('query', deploymentIdsQuerySchema, request.query);
    // Every one is the tenant's before any goes: another organization's id is not found, as a missing one.
    const named = [...new Set(ids)].map((id) => findDeployment(tenant.namespace, id).metadata.name!);
    for (const name of named) await writer.delete(deploymentKind, tenant.namespace, name);
    for (const name of named) await waitForGone(() => deployments.get(tenant.namespace, name), deps.observeTimeoutMs);
    return {};
  });
}

/** Creates the Deployment, then the Secret of the values the body carries (writeOwnedSecretOrUndo), if
 * any: `wroteSecret`. */
async function createDeployment(
  deps: FacadeDependencies,
  tenant: Tenant,
  body: DeploymentCreate,
): Promise<{ created: Deployment; wroteSecret: boolean }> {
  const { writer } = deps;
  const alreadyExists = `Deployment ${body.name} already exists.`;
  if (deps.cache.deployments.get(tenant.namespace, body.name)) throw conflict(alreadyExists);
  const plan = planDeploymentCreate(body);
  checkChildNames(deps, tenant.namespace, body.name);
  checkReplicaCap(deps, plan.spec);
  checkNodeVolumes(deps, plan.spec);
  checkPreviewClone(deps, plan.spec);
  checkBerthOwnSecrets(plan.spec);
  await checkCustomHost(deps, tenant, plan.spec);
  checkCustomHostLimit(deps, tenant.namespace, { metadata: { name: body.name }, spec: plan.spec });
  checkRepositoryHost(deps, tenant.namespace, plan.spec);
  await checkUploaded(deps, tenant.namespace, body.name, archivePathOf(body.source_revision_config));
  const created = await writer
    .create(deploymentKind, tenant.namespace, renderDeployment(tenant.namespace, body.name, plan.spec))
    .catch((error: unknown) => clientErrorFromKube(error, { alreadyExists }));
  const secret = secretsOf(tenant.namespace, created, plan);
  await writeOwnedSecretOrUndo(writer, { resource: deploymentKind, namespace: tenant.namespace, name: body.name }, secret);
  return { created, wroteSecret: secret !== undefined };
}

/** A new archive must have been uploaded; then the patch, retried on a conflict, in the API's error shapes. */
async function patchDeployment(
  deps: FacadeDependencies,
  tenant: Tenant,
  cached: DeepReadonly<Deployment>,
  patch: DeploymentPatch,
  options: WriteOptions = {},
) {
  const name = cached.metadata.name!;
  const id = cached.metadata.uid!;
  const newArchive = archivePathOf(patch.source_revision_config);
  if (newArchive != null && newArchive !== cached.spec.sourceRevisionConfig?.sourceTarballPath) {
    await checkUploaded(deps, tenant.namespace, name, newArchive);
  }
  return retryOnConflict(() => writePatch(deps, tenant, name, id, patch, options)).catch((error: unknown) =>
    clientErrorFromKube(error, { notFound: deploymentNotFound(id) }),
  );
}

/**
 * The host a deployment's custom_url claims, checked across the installation before anything is written:
 * 422 when the installation keeps it or does not allow its domain, or when the organization has not
 * proved it owns it (where the installation asks; the same answer whoever holds the host); then 409 when
 * another deployment claimed it first (never named: it may be another organization's). The controller
 * holds the same rule for what reaches it another way.
 */
async function checkCustomHost(deps: FacadeDependencies, tenant: Tenant, spec: Deployment['spec'], uid?: string): Promise<void> {
  // A new claim (no uid, no age): any other claimant refuses it, however old; the controller settles
  // stored claims by age.
  const claim = { metadata: {}, spec };
  const host = customHostOf(claim);
  if (!host) return;
  const refusedByPolicy = hostPolicyRefusal(host, deps.hostPolicy ?? openHostPolicy);
  if (refusedByPolicy) throw invalidField(customUrlField, refusedByPolicy.message);
  await checkHostOwnership(deps, tenant, host);
  const others = deps.cache.deployments.byIndex(customHostIndex, host).filter((other) => other.metadata.uid !== uid);
  const claimed = hostClaimRefusal(claim, others, host);
  if (claimed) throw conflict(`${claimed.message}.`);
}

const customUrlField = ['body', 'source_config', 'custom_url'];

/** A 422 naming the record to publish when the installation asks for proof and the organization has none. */
async function checkHostOwnership(deps: FacadeDependencies, tenant: Tenant, host: string): Promise<void> {
  if (!deps.hostOwnership) return;
  const namespace = deps.cache.namespaces.get('', tenant.namespace);
  const verdict = await deps.hostOwnership({
    host,
    organizationId: tenant.organizationId,
    namespaceAnnotations: namespace?.metadata?.annotations,
  });
  if (!verdict.proven) throw invalidField(customUrlField, verdict.message);
}

/** A 409 when the organization already holds as many custom hosts as the installation allows it. */
function checkCustomHostLimit(deps: FacadeDependencies, namespace: string, deployment: HostClaim): void {
  const refused = customHostLimitRefusal(deployment, () => deps.cache.deployments.list(namespace), deps.maxCustomHosts);
  if (refused) throw conflict(`${refused.message}.`);
}

/** A 422 naming the scale field above the installation's replica cap, or the sizing field that makes the
 * deployment's fewest pods ask more than the organization's quota allows in all. */
function checkReplicaCap(deps: FacadeDependencies, spec: Deployment['spec']): void {
  const excess = replicaCapExcess(spec.sourceConfig?.resourceSpec, deps.maxReplicas);
  if (excess) throw invalidField(['body', 'source_config', 'resource_spec', snakeCase(excess.field)], excess.message);
  const overQuota = quotaExcess(spec.sourceConfig, deps.organizationQuota);
  if (overQuota) throw invalidField(['body', 'source_config', 'resource_spec', snakeCase(overQuota.field)], overQuota.message);
}

/** A 422 naming the volume the kubelet would mount from the node that the installation does not list. */
function checkNodeVolumes(deps: FacadeDependencies, spec: Deployment['spec']): void {
  const refused = nodeVolumeRefusal(spec.sourceConfig?.resourceSpec, deps.nodeVolumes);
  if (refused) throw invalidField(['body', 'source_config', 'resource_spec', 'volumes', ...refused.path], refused.message);
}

/** The repository whose previews ask to clone its database, or undefined: what a PATCH checks when it changes. */
function previewCloneAsked(spec: Deployment['spec']): string | undefined {
  return spec.sourceConfig?.previews?.database === 'clone' ? (spec.sourceConfig.repoUrl ?? '') : undefined;
}

/** A 422 when the previews ask to clone the database of a repository the installation does not list. */
function checkPreviewClone(deps: FacadeDependencies, spec: Deployment['spec']): void {
  const repoUrl = previewCloneAsked(spec);
  if (repoUrl === undefined) return;
  const refused = previewCloneRefusal(repoUrl, deps.previewDatabaseClone);
  if (refused) throw invalidField(['body', 'source_config', 'previews', 'database'], `${refused}: set it to empty`);
}

/** A 422 naming the place in source_config whose pod part names one of Berth's own Secrets. */
function checkBerthOwnSecrets(spec: Deployment['spec']): void {
  const ownSecret = berthOwnSecretReference(spec.sourceConfig);
  if (ownSecret)
    throw invalidField(
      // The structured members as the wire spells them (resource_spec.sidecars, queue_worker.env); the
      // Kubernetes shapes inside as sent.
      ['body', 'source_config', ...ownSecret.map((part, index) => (typeof part === 'string' && index < 2 ? snakeCase(part) : part))],
      berthOwnSecretMessage,
    );
}

/** A 409 when the new deployment's children would take names another deployment of the namespace uses. */
function checkChildNames(deps: FacadeDependencies, namespace: string, name: string): void {
  const claim = { metadata: { name, namespace } };
  const refused = nameRefusal(
    claim,
    nameClaimants(namespace, name, (key) => deps.cache.deployments.byIndex(nameStemIndex, key)),
  );
  if (refused) throw conflict(`${refused.message}.`);
}

/** A 422 for a repo_url away from its integration's host (a missing integration is the controller's to say). */
function checkRepositoryHost(deps: FacadeDependencies, namespace: string, spec: Deployment['spec']): void {
  const { integrationId, repoUrl } = spec.sourceConfig ?? {};
  if (!sourceKind(spec.source)?.usesIntegration || !integrationId || !repoUrl) return;
  const integration = integrationById(deps.cache, namespace, integrationId);
  const refused = integration ? repositoryHostRefusal(repoUrl, integration.spec) : undefined;
  if (refused) throw invalidField(['body', 'source_config', 'repo_url'], refused);
}

/** The `<deployment>-secrets` Secret a plan asks for, if it asks for one. */
function secretsOf(namespace: string, owner: Deployment, plan: DeploymentPlan): V1Secret | undefined {
  return plan.secretValues === undefined
    ? undefined
    : renderOwnedSecret(namespace, childNames(owner.metadata.name!).secrets, owner, plan.secretValues);
}

/**
 * One attempt at a PATCH from a fresh read: the API server validates the new spec (CEL rules included,
 * a dry run) before the Secret changes, so a refusal changes nothing.
 */
async function writePatch(
  deps: FacadeDependencies,
  tenant: Tenant,
  name: string,
  id: string,
  patch: DeploymentPatch,
  options: WriteOptions,
) {
  const { writer } = deps;
  const { namespace } = tenant;
  const current = await writer.read<Deployment>(deploymentKind, namespace, name);
  if (!current || current.metadata.uid !== id) throw notFound(deploymentNotFound(id));
  const stored = patch.secrets != null ? await readSecretValues(writer, namespace, childNames(name).secrets) : {};
  const plan = planDeploymentPatch(current, patch, stored);
  const next: Deployment = { ...current, spec: plan.spec };
  checkReplicaCap(deps, next.spec);
  checkNodeVolumes(deps, next.spec);
  if (previewCloneAsked(next.spec) !== previewCloneAsked(current.spec)) checkPreviewClone(deps, next.spec);
  checkBerthOwnSecrets(next.spec);
  if (customHostOf(next) !== customHostOf(current)) {
    await checkCustomHost(deps, tenant, next.spec, id);
    checkCustomHostLimit(deps, namespace, next);
  }
  checkRepositoryHost(deps, namespace, next.spec);
  const specChanged = JSON.stringify(next.spec) !== JSON.stringify(current.spec);
  const valuesChanged = plan.secretValues !== undefined && !sameValues(plan.secretValues, stored);
  if (options.revisionRequired && !valuesChanged && !revisionInputsChanged(current.spec, next.spec)) throw conflict(noNewRevision);
  if (specChanged) await writer.replace(deploymentKind, namespace, next, { dryRun: true });
  if (valuesChanged) await writeOwnedSecret(writer, secretsOf(namespace, current, plan)!);
  return {
    written: specChanged ? await writer.replace(deploymentKind, namespace, next) : current,
    secretValuesChanged: valuesChanged && !specChanged,
    previousLatestRevisionId: current.status?.latestRevisionId,
  };
}

interface WriteOptions {
  /** The write must make a revision (a new revision's request): refused, before anything is written, when it would not. */
  revisionRequired?: boolean;
}

const noNewRevision =
  'This body makes no new revision: it changes neither source_revision_config nor the secrets. Change one of them, or redeploy an earlier revision.';
/** A new revision's 503: the write is done, the controller has not made the revision within the wait. */
export const revisionNotYetMade = 'The revision was requested and is not made yet: list the revisions shortly.';

/** Whether what a revision is made of (its source revision config and the secrets' names and sources)
 * differs, whatever order the keys come in, as the revision digest sees it. */
function revisionInputsChanged(current: DeepReadonly<Deployment['spec']>, next: DeepReadonly<Deployment['spec']>): boolean {
  return (
    !sameJson(current.sourceRevisionConfig ?? {}, next.sourceRevisionConfig ?? {}) || !sameJson(current.secrets ?? [], next.secrets ?? [])
  );
}

function listFilter(query: DeploymentListQuery): (deployment: DeepReadonly<Deployment>) => boolean {
  return (deployment) => {
    const name = deployment.metadata.name ?? '';
    if (query.name !== undefined && name !== query.name) return false;
    if (query.name_contains !== undefined && !name.includes(query.name_contains)) return false;
    if (query.status !== undefined && (deployment.status?.status ?? 'UNKNOWN') !== query.status) return false;
    if (query.is_preview !== undefined && (deployment.spec.previewOf !== undefined) !== (query.is_preview === 'true')) return false;
    return true;
  };
}

/** A body whose source_config.deployment_type is spelled as the tier's canonical name, when it is one. */
function withCanonicalTier(body: unknown): unknown {
  const sourceConfig = (body as { source_config?: unknown } | null)?.source_config;
  if (sourceConfig === null || typeof sourceConfig !== 'object' || !('deployment_type' in sourceConfig)) return body;
  return {
    ...(body as object),
    source_config: { ...sourceConfig, deployment_type: canonicalDeploymentType(sourceConfig.deployment_type) },
  };
}

/** The source_tarball_path a body's source_revision_config names (the wire types are the schema's, unspelled). */
function archivePathOf(revisionConfig: unknown): string | undefined {
  const path = (revisionConfig as Record<string, unknown> | null | undefined)?.['source_tarball_path'];
  return typeof path === 'string' ? path : undefined;
}

function sameValues(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

// OAuth providers: POST/GET/PATCH/DELETE /v2/auth/providers[/{provider_id}]. metadata.name comes from
// provider_id, so the API server itself refuses a duplicate; the client secret goes to a Secret owned
// by the OAuthProvider and is never returned.
import type { FastifyInstance } from 'fastify';
import {
  apiVersion,
  fromWire,
  oauthProviderKind,
  oauthProviderObjectName,
  oauthProviderSpecSchema,
  type OAuthProvider,
  type OAuthProviderSpec,
} from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { conflict, notFound } from '../errors.ts';
import { clientErrorFromKube, retryOnConflict } from '../kube-errors.ts';
import { createKeyedSerializer } from '../keyed-serializer.ts';
import { reflects, waitForCache, waitForGone } from '../observe.ts';
import { renderOwnedSecret, writeOwnedSecret, writeOwnedSecretOrUndo } from '../owned-secrets.ts';
import { paginate, pageQuerySchema } from '../pagination.ts';
import type { FacadeDependencies } from '../ports.ts';
import { byCreation, parseRequestPart, tenantOf } from '../request.ts';
import type { Tenant } from '../tenancy.ts';
import { providerResponse } from '../responses.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import {
  pageSchema,
  providerCreateSchema,
  providerResponseSchema,
  providerUpdateSchema,
  type ProviderCreate,
  type ProviderUpdate,
} from '../wire-schemas.ts';

const clientSecretKey = 'clientSecret';

function clientSecretName(objectName: string): string {
  return `${objectName}-client-secret`;
}

/** The spec members a create or update body sets: its present, non-null members, spelled as the spec spells them. */
function specMembers(body: ProviderCreate | ProviderUpdate): Partial<OAuthProviderSpec> {
  const { client_secret: _secret, ...members } = body;
  const given = Object.fromEntries(Object.entries(members).filter(([, value]) => value != null));
  return fromWire(oauthProviderSpecSchema, given) as Partial<OAuthProviderSpec>;
}

/** Where the client secret is, when the body brings one (the value goes to that Secret, never the spec). */
function secretRef(body: ProviderCreate | ProviderUpdate, objectName: string): Pick<OAuthProviderSpec, 'clientSecretRef'> {
  return body.client_secret != null ? { clientSecretRef: { name: clientSecretName(objectName), key: clientSecretKey } } : {};
}

function renderProvider(namespace: string, body: ProviderCreate): OAuthProvider {
  const name = oauthProviderObjectName(body.provider_id);
  const spec = { ...specMembers(body), isDynamicClient: false, ...secretRef(body, name) } as OAuthProviderSpec;
  return { apiVersion, kind: 'OAuthProvider', metadata: { name, namespace }, spec };
}

/** The spec after an update: present, non-null members replace; the rest stays. */
function updatedProviderSpec(current: DeepReadonly<OAuthProviderSpec>, objectName: string, body: ProviderUpdate): OAuthProviderSpec {
  return { ...(structuredClone(current) as OAuthProviderSpec), ...specMembers(body), ...secretRef(body, objectName) };
}

type ProviderParams = { Params: { provider_id: string } };

const providersUrl = '/v2/auth/providers';
const providerUrl = '/v2/auth/providers/:provider_id';

const providerRoutes = {
  create: {
    method: 'POST',
    url: providersUrl,
    summary: 'Create an OAuth provider',
    body: { schema: 'OAuthProviderCreate', required: true },
    success: { status: 200, description: 'The provider (without its secret).', schema: 'OAuthProvider' },
  },
  list: {
    method: 'GET',
    url: providersUrl,
    summary: 'List OAuth providers',
    query: pageQuerySchema,
    success: { status: 200, description: 'One page of providers.', schema: pageSchema(providerResponseSchema) },
  },
  read: {
    method: 'GET',
    url: providerUrl,
    summary: 'Read an OAuth provider',
    success: { status: 200, description: 'The provider.', schema: 'OAuthProvider' },
  },
  update: {
    method: 'PATCH',
    url: providerUrl,
    summary: 'Update an OAuth provider',
    body: { schema: 'OAuthProviderUpdate', required: true },
    success: { status: 200, description: 'The provider.', schema: 'OAuthProvider' },
  },
  remove: { method: 'DELETE', url: providerUrl, summary: 'Delete an OAuth provider', success: { status: 204, description: 'Deleted.' } },
} satisfies Record<string, RouteSpec>;

export function registerProviderRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const oneWriteAtATime = createKeyedSerializer();
  const { cache } = deps;

  serve(app, providerRoutes.create, async (request) => {
    const tenant = tenantOf(request, cache);
    const body = parseRequestPart('body', providerCreateSchema, request.body) as ProviderCreate;
    return providerResponse(await createProvider(deps, tenant, body), tenant.organizationId);
  });

  serve(app, providerRoutes.list, async (request) => {
    const tenant = tenantOf(request, cache);
    const query = parseRequestPart('query', pageQuerySchema, request.query);
    return paginate([...cache.oauthProviders.list(tenant.namespace)].sort(byCreation), query, (provider) =>
      providerResponse(provider, tenant.organizationId),
    );
  });

  serve<ProviderParams>(app, providerRoutes.read, async (request) => {
    const tenant = tenantOf(request, cache);
    return providerResponse(findProvider(deps, tenant, request.params.provider_id), tenant.organizationId);
  });

  serve<ProviderParams>(app, providerRoutes.update, async (request) => {
    const tenant = tenantOf(request, cache);
    const cached = findProvider(deps, tenant, request.params.provider_id);
    const body = parseRequestPart('body', providerUpdateSchema, request.body) as ProviderUpdate;
    const key = `${tenant.namespace}/${cached.metadata.name!}`;
    const written = await oneWriteAtATime(key, () => updateProvider(deps, tenant, cached, body));
    return providerResponse(await caughtUp(deps, written), tenant.organizationId);
  });

  serve<ProviderParams>(app, providerRoutes.remove, async (request, reply) => {
    const tenant = tenantOf(request, cache);
    const provider = findProvider(deps, tenant, request.params.provider_id);
    await deps.writer.delete(oauthProviderKind, tenant.namespace, provider.metadata.name!);
    await waitForGone(() => cache.oauthProviders.get(tenant.namespace, provider.metadata.name!), deps.observeTimeoutMs);
    return reply.code(204).send();
  });
}

function findProvider(deps: FacadeDependencies, tenant: Tenant, providerId: string): DeepReadonly<OAuthProvider> {
  const provider = deps.cache.oauthProviders.get(tenant.namespace, oauthProviderObjectName(providerId));
  if (!provider || provider.spec.providerId !== providerId) throw notFound(`OAuth provider ${providerId} not found.`);
  return provider;
}

/** The written provider as the cache holds it once the cache has seen the write (else as written). */
async function caughtUp(deps: FacadeDependencies, written: OAuthProvider): Promise<DeepReadonly<OAuthProvider>> {
  const cached = await waitForCache(
    () => deps.cache.oauthProviders.get(written.metadata.namespace ?? '', written.metadata.name ?? ''),
    (current) => reflects(current, written),
    { timeoutMs: deps.observeTimeoutMs },
  );
  return cached ?? written;
}

/** The provider, then its client secret's Secret (writeOwnedSecretOrUndo). */
async function createProvider(deps: FacadeDependencies, tenant: Tenant, body: ProviderCreate): Promise<DeepReadonly<OAuthProvider>> {
  const { writer } = deps;
  const alreadyExists = `OAuth provider ${body.provider_id} already exists.`;
  if (deps.cache.oauthProviders.get(tenant.namespace, oauthProviderObjectName(body.provider_id))) throw conflict(alreadyExists);
  const created = await writer
    .create(oauthProviderKind, tenant.namespace, renderProvider(tenant.namespace, body))
    .catch((error: unknown) => clientErrorFromKube(error, { alreadyExists }));
  const name = created.metadata.name!;
  const secret = body.client_secret
    ? renderOwnedSecret(tenant.namespace, clientSecretName(name), created, { [clientSecretKey]: body.client_secret })
    : undefined;
  await writeOwnedSecretOrUndo(writer, { resource: oauthProviderKind, namespace: tenant.namespace, name }, secret);
  return caughtUp(deps, created);
}

/** Read, validate by a dry run, then the secret, then the spec: a refused update changes nothing. */
async function updateProvider(
  deps: FacadeDependencies,
  tenant: Tenant,
  cached: DeepReadonly<OAuthProvider>,
  body: ProviderUpdate,
): Promise<OAuthProvider> {
  const { writer } = deps;
  const name = cached.metadata.name!;
  const providerId = cached.spec.providerId;
  const missing = `OAuth provider ${providerId} not found.`;
  return retryOnConflict(async () => {
    const current = await writer.read<OAuthProvider>(oauthProviderKind, tenant.namespace, name);
    if (!current || current.spec.providerId !== providerId) throw notFound(missing);
    const next = { ...current, spec: updatedProviderSpec(current.spec, name, body) };
    await writer.replace(oauthProviderKind, tenant.namespace, next, { dryRun: true });
    if (body.client_secret != null) {
      await writeOwnedSecret(
        writer,
        renderOwnedSecret(tenant.namespace, clientSecretName(name), current, { [clientSecretKey]: body.client_secret }),
      );
    }
    return writer.replace(oauthProviderKind, tenant.namespace, next);
  }).catch((error: unknown) => clientErrorFromKube(error, { notFound: missing }));
}

// Berth's image registry, as the HTTP API offers it: a push credential per internal_docker deployment
// (POST /v2/deployments/{id}/push-token) and the token endpoint of the registry's token authentication
// (GET /v2/registry/token, the `realm` distribution sends clients to: Basic credentials in, a bearer
// token for what they may do out). `docker login` and `docker push` speak this protocol as they are, as
// do the kubelet (with an organization's pull secret) and BuildKit. Without credentials, nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { timestamp } from '../../api/index.ts';
import { labels, offerRefusal } from '../../api/index.ts';
import {
  grantedAccess,
  mintPushToken,
  organizationUsername,
  parseScopes,
  pushUsername,
  registryToken,
  verifyOrganizationToken,
  verifyPushToken,
  type PushGrant,
  type RegistryCredential,
  type RegistryTokenInput,
} from '../../registry/tokens.ts';
import { badRequest, notFound, unauthorized } from '../errors.ts';
import type { FacadeDependencies, RegistryAccess } from '../ports.ts';
import { tenantOf, uuidPathParam } from '../request.ts';
import { deploymentById } from './deployment-answers.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { pushTokenResponseSchema, registryTokenQuerySchema, registryTokenResponseSchema } from '../wire-schemas.ts';

/** A bearer token the registry verifies: signed with this installation's key, for its service. */
export function bearerToken(
  registry: RegistryAccess,
  grant: Pick<RegistryTokenInput, 'subject' | 'access' | 'nowSeconds' | 'ttlSeconds'>,
): string {
  return registryToken({
    ...grant,
    issuer: registry.issuer,
    service: registry.service,
    key: registry.signing.key,
    certificateDer: registry.signing.certificateDer,
  });
}

/** A deployment's repository in the registry: `<namespace>/<deployment>`, as builds push. */
function deploymentRepository(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function basicCredentials(request: FastifyRequest): { username: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  return at < 0 ? undefined : { username: decoded.slice(0, at), password: decoded.slice(at + 1) };
}

/**
 * Whose credentials a token request carries. Wrong ones are refused outright, so `docker login` says so
 * instead of logging in anonymously; an organization's must name a namespace that is still that
 * organization's (same uid, still labelled).
 */
function registryCredential(
  registry: RegistryAccess,
  deps: FacadeDependencies,
  credentials: { username: string; password: string } | undefined,
  now: number,
): RegistryCredential {
  if (!credentials) return undefined;
  if (credentials.username === pushUsername) {
    const grant = verifyPushToken(registry.signing.pushKey, credentials.password, now);
    if (grant && pushGrantCurrent(deps, grant)) return { kind: 'push', grant };
    throw unauthorized('The push credential is not valid or has expired: ask POST /v2/deployments/{id}/push-token for a new one.');
  }
  if (credentials.username === organizationUsername) {
    const grant = verifyOrganizationToken(registry.signing.pushKey, credentials.password, now);
    const namespace = grant && deps.cache.namespaces.list().find((candidate) => candidate.metadata?.name === grant.namespace);
    const current =
      namespace?.metadata?.uid === grant?.namespaceUid &&
      namespace?.metadata?.labels?.[labels.organizationId] &&
      !namespace?.metadata?.deletionTimestamp;
    if (grant && current) return { kind: 'organization', grant };
  }
  throw unauthorized('The registry credential is not valid.');
}

/** A push credential holds while its deployment does: the one it was issued for, same uid. */
function pushGrantCurrent(deps: FacadeDependencies, grant: PushGrant): boolean {
  const [namespace = '', name = ''] = grant.repository.split('/');
  return deps.cache.deployments.get(namespace, name)?.metadata.uid === grant.deploymentUid;
}

function subjectOf(credential: RegistryCredential): string {
  if (credential?.kind === 'push') return `${pushUsername}:${credential.grant.repository}`;
  if (credential?.kind === 'organization') return `${organizationUsername}:${credential.grant.namespace}`;
  return 'anonymous';
}

const registryRoutes = {
  pushToken: {
    method: 'POST',
    url: '/v2/deployments/:deployment_id/push-token',
    summary: 'Issue a push credential',
    description:
      "A short-lived credential that can push only this internal_docker deployment's repository in Berth's registry (docker login, then docker push). 400 for other sources.",
    success: { status: 200, description: 'The credential.', schema: pushTokenResponseSchema },
  },
  token: {
    method: 'GET',
    url: '/v2/registry/token',
    summary: "The registry's token endpoint",
    description:
      "The realm of the registry's token authentication: Basic credentials (a deployment's push credential, or an organization's from Secret berth-organization) in, a bearer token for the granted scopes out. " +
      'Called by docker and containerd, not by API clients.',
    query: registryTokenQuerySchema,
    success: { status: 200, description: 'A bearer token.', schema: registryTokenResponseSchema },
    public: true,
  },
} satisfies Record<string, RouteSpec>;

export function registerRegistryRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const registry = deps.registry;
  const nowSeconds = () => Math.floor((registry?.now?.() ?? Date.now()) / 1000);

  serve<{ Params: { deployment_id: string } }>(app, registryRoutes.pushToken, async (request) => {
    const tenant = tenantOf(request, deps.cache);
    const deployment = deploymentById(deps.cache, tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const refused = offerRefusal(deployment.spec.source, 'pushToken', 'Push tokens');
    if (refused) throw badRequest(refused);
    if (!registry)
      throw badRequest(
        'This installation has no registry for pushed images (berth run --push-registry): push an image elsewhere and PATCH its image_uri.',
      );
    const repository = deploymentRepository(tenant.namespace, deployment.metadata.name ?? '');
    const expiresAt = nowSeconds() + (registry.pushTokenTtlSeconds ?? 3600);
    return {
      registry_url: registry.host,
      repository_url: `${registry.host}/${repository}`,
      username: pushUsername,
      token: mintPushToken(registry.signing.pushKey, { repository, deploymentUid: deployment.metadata.uid ?? '', expiresAt }),
      expires_at: timestamp(new Date(expiresAt * 1000)),
    };
  });

  serve<{ Querystring: { service?: string; scope?: string | string[] } }>(app, registryRoutes.token, async (request) => {
    if (!registry) throw notFound('This installation has no registry for pushed images (berth run --push-registry).');
    const query = request.query;
    if (query.service !== undefined && query.service !== registry.service) throw badRequest(`service must be ${registry.service}`);
    const credential = registryCredential(registry, deps, basicCredentials(request), nowSeconds());
    const scopes = query.scope === undefined ? [] : Array.isArray(query.scope) ? query.scope : [query.scope];
    const ttl = registry.bearerTtlSeconds ?? 300;
    const issuedAt = nowSeconds();
    const token = bearerToken(registry, {
      subject: subjectOf(credential),
      access: grantedAccess(parseScopes(scopes), credential),
      nowSeconds: issuedAt,
      ttlSeconds: ttl,
    });
    return { token, access_token: token, expires_in: ttl, issued_at: timestamp(new Date(issuedAt * 1000)) };
  });
}

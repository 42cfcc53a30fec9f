// Credentials for Berth's image registry, pure: a push token that lets its holder push one deployment's
// repository for a short time, an organization token that lets its holder (the kubelet, the
// organization's builds) pull and push that organization's repositories, and an upload token that lets
// its holder put one source archive (all HMAC-signed by Berth, so any replica checks them without
// storing them), and
// the registry's bearer tokens of the Docker token-authentication protocol that distribution verifies
// (a JWT signed with Berth's key, whose certificate is the registry's `auth.token.rootcertbundle`).
import { createHmac, randomUUID, sign, timingSafeEqual, type KeyObject } from 'node:crypto';

/** What a registry trusting Berth says in its config: `auth.token.service` and `auth.token.issuer`. */
export const registryService = 'berth-registry';
export const registryIssuer = 'berth';

/** The user name of every push credential: the token says which repository it may push. */
export const pushUsername = 'berth-push';
const pushTokenPrefix = 'bpt_';

export interface PushGrant {
  repository: string;
  /** The deployment's metadata.uid: the credential ends with its deployment, deleted (or its namespace
   * deleted) and made again under the same name or not. */
  deploymentUid: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

function mac(key: Buffer, prefix: string, payload: string): Buffer {
  // The prefix is signed too: a token of one kind never verifies as another.
  return createHmac('sha256', key).update(`${prefix}${payload}`).digest();
}

/** `<prefix><claims, base64url JSON>.<HMAC>`: checked by any replica holding the key, stored nowhere. */
function signClaims(key: Buffer, prefix: string, claims: Record<string, string | number>): string {
  const payload = base64url(JSON.stringify(claims));
  return `${prefix}${payload}.${base64url(mac(key, prefix, payload))}`;
}

/** The claims of a token Berth signed with this prefix, unless it expired (claim `e`, seconds). */
function verifiedClaims(key: Buffer, prefix: string, token: string, nowSeconds: number): Record<string, unknown> | undefined {
  if (!token.startsWith(prefix)) return undefined;
  const parts = token.slice(prefix.length).split('.');
  const [payload, signature] = parts;
  if (parts.length !== 2 || !payload || !signature) return undefined;
  // The signature's exact text, not what a lenient base64 decoder makes of it: one token per grant.
  const expected = Buffer.from(base64url(mac(key, prefix, payload)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    return typeof claims['e'] === 'number' && claims['e'] > nowSeconds ? claims : undefined;
  } catch {
    // The signature held, so this key signed the payload: one that is not Berth's JSON grants nothing.
    return undefined;
  }
}

/** The user name of an organization's credential (Secret berth-organization in its namespace). */
export const organizationUsername = 'berth-organization';
const organizationTokenPrefix = 'bor_';

/** What an organization credential names: its namespace, and that namespace's uid (a namespace
 * deleted and made again under the name gets none of the old credentials' rights). */
export interface OrganizationGrant {
  namespace: string;
  namespaceUid: string;
}

/** No expiry: the credential lives in the organization's namespace as its pull secret, checked against
 * the namespace at every use, and revoked with it (or all at once, by a new signing key). */
export function mintOrganizationToken(key: Buffer, grant: OrganizationGrant): string {
  return signClaims(key, organizationTokenPrefix, { n: grant.namespace, u: grant.namespaceUid, e: Number.MAX_SAFE_INTEGER });
}

export function verifyOrganizationToken(key: Buffer, token: string, nowSeconds: number): OrganizationGrant | undefined {
  const claims = verifiedClaims(key, organizationTokenPrefix, token, nowSeconds);
  const { n, u } = claims ?? {};
  return typeof n === 'string' && typeof u === 'string' ? { namespace: n, namespaceUid: u } : undefined;
}

/** Who asks the token endpoint: a deployment's push credential, an organization's, or nobody. */
export type RegistryCredential = { kind: 'push'; grant: PushGrant } | { kind: 'organization'; grant: OrganizationGrant } | undefined;

/** The repositories of an organization: `<namespace>/...` (a namespace name has no slash). */
export function isOrganizationRepository(namespace: string, repository: string): boolean {
  return repository.startsWith(`${namespace}/`);
}

export function mintPushToken(key: Buffer, grant: PushGrant): string {
  return signClaims(key, pushTokenPrefix, { r: grant.repository, u: grant.deploymentUid, e: grant.expiresAt });
}

/** The grant a push token carries, if Berth signed it and it has not expired. */
export function verifyPushToken(key: Buffer, token: string, nowSeconds: number): PushGrant | undefined {
  const claims = verifiedClaims(key, pushTokenPrefix, token, nowSeconds);
  const { r, u, e } = claims ?? {};
  return typeof r === 'string' && typeof u === 'string' ? { repository: r, deploymentUid: u, expiresAt: e as number } : undefined;
}

/** What an upload URL lets its holder do: put one source archive for one deployment, once, for a while. */
export interface UploadGrant {
  namespace: string;
  deployment: string;
  /** The deployment's metadata.uid: a deployment deleted and made again under the name gets none of its uploads. */
  deploymentUid: string;
  uploadId: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

const uploadTokenPrefix = 'bsu_';

export function mintUploadToken(key: Buffer, grant: UploadGrant): string {
  return signClaims(key, uploadTokenPrefix, {
    n: grant.namespace,
    d: grant.deployment,
    u: grant.deploymentUid,
    i: grant.uploadId,
    e: grant.expiresAt,
  });
}

export function verifyUploadToken(key: Buffer, token: string, nowSeconds: number): UploadGrant | undefined {
  const claims = verifiedClaims(key, uploadTokenPrefix, token, nowSeconds);
  if (!claims) return undefined;
  const { n, d, u, i, e } = claims;
  if (typeof n !== 'string' || typeof d !== 'string' || typeof u !== 'string' || typeof i !== 'string') return undefined;
  return { namespace: n, deployment: d, deploymentUid: u, uploadId: i, expiresAt: e as number };
}

export interface Access {
  type: string;
  name: string;
  actions: string[];
}

/** `repository:team-a/shop:pull,push` scopes, as the registry's clients ask for them. */
export function parseScopes(scopes: readonly string[]): Access[] {
  const access: Access[] = [];
  for (const scope of scopes.flatMap((s) => s.split(' ')).filter(Boolean)) {
    const first = scope.indexOf(':');
    const last = scope.lastIndexOf(':');
    if (first < 0 || last === first) continue;
    access.push({
      type: scope.slice(0, first),
      name: scope.slice(first + 1, last),
      actions: scope
        .slice(last + 1)
        .split(',')
        .filter(Boolean),
    });
  }
  return access;
}

/**
 * What a request gets of what it asked: with a push credential, pull and push of the repository it
 * names; with an organization credential, pull and push of the organization's repositories; without
 * credentials, nothing. Nothing else (no catalog): no tenant reads or writes another's sources or images.
 */
export function grantedAccess(requested: readonly Access[], credential: RegistryCredential): Access[] {
  const mayUse = (repository: string): boolean =>
    credential?.kind === 'push'
      ? credential.grant.repository === repository
      : credential?.kind === 'organization' && isOrganizationRepository(credential.grant.namespace, repository);
  const granted: Access[] = [];
  for (const ask of requested) {
    if (ask.type !== 'repository' || !mayUse(ask.name)) continue;
    const actions = ask.actions.filter((action) => action === 'pull' || action === 'push');
    if (actions.length > 0) granted.push({ type: ask.type, name: ask.name, actions });
  }
  return granted;
}

export interface RegistryTokenInput {
  issuer: string;
  service: string;
  subject: string;
  access: Access[];
  nowSeconds: number;
  ttlSeconds: number;
  /** ES256 key and its certificate (DER), sent as the token's x5c chain. */
  key: KeyObject;
  certificateDer: Buffer;
}

/** The bearer token distribution's `auth: token` verifies: ES256 JWT, x5c header, single audience. */
export function registryToken(input: RegistryTokenInput): string {
  const header = { typ: 'JWT', alg: 'ES256', x5c: [input.certificateDer.toString('base64')] };
  const claims = {
    iss: input.issuer,
    sub: input.subject,
    aud: input.service,
    exp: input.nowSeconds + input.ttlSeconds,
    nbf: input.nowSeconds - 10,
    iat: input.nowSeconds,
    jti: randomUUID(),
    access: input.access,
  };
  const signed = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = sign('sha256', Buffer.from(signed), { key: input.key, dsaEncoding: 'ieee-p1363' });
  return `${signed}.${base64url(signature)}`;
}

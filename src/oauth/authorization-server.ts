// RFC 8414 authorization-server metadata, with the OpenID Connect discovery document as the fallback
// that many providers publish instead: where to authorize, where to get tokens, where to register.
import { z } from 'zod';
import { OAuthPeerError, describeOAuthErrorBody, describeUrl, insecureUrlProblem, requestJson, type PeerRequestOptions } from './http.ts';
import { describeIssues } from './validation.ts';

const authorizationServerMetadataSchema = z.looseObject({
  issuer: z.string().min(1),
  authorization_endpoint: z.string().min(1).optional(),
  token_endpoint: z.string().min(1),
  registration_endpoint: z.string().min(1).optional(),
  response_types_supported: z.array(z.string()).optional(),
  grant_types_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  scopes_supported: z.array(z.string()).optional(),
});

export type AuthorizationServerMetadata = z.infer<typeof authorizationServerMetadataSchema>;

function normalizeIssuer(issuer: string): string {
  return issuer.replace(/\/+$/, '');
}

/**
 * Where the metadata of `issuer` may live, in the order clients look: RFC 8414's path-inserted
 * well-known URL, then OpenID Connect discovery with the path inserted and, as OIDC Discovery 1.0
 * itself specifies, appended.
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path) {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Reads the metadata of `issuer`. The document must name the issuer it was fetched for (RFC 8414
 * section 3.3), and its endpoints must be secure: Berth sends client secrets to them.
 */
export async function fetchAuthorizationServerMetadata(
  issuer: string,
  options: PeerRequestOptions = {},
): Promise<AuthorizationServerMetadata> {
  const problem = insecureUrlProblem(issuer, options.allowHttp);
  if (problem) throw new OAuthPeerError('rejected', `authorization server ${problem}`);
  const tried: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const response = await requestJson('GET', url, options);
    if (response.status !== 200) {
      // Any refusal here usually means "not published at this URL": the next candidate may have it.
      const detail = describeOAuthErrorBody(response.body);
      tried.push(`${describeUrl(url)} answered ${response.status}${detail ? ` (${detail})` : ''}`);
      continue;
    }
    const parsed = authorizationServerMetadataSchema.safeParse(response.body);
    if (!parsed.success) {
      throw new OAuthPeerError(
        'invalid_response',
        `authorization-server metadata at ${describeUrl(url)} is invalid: ${describeIssues(parsed.error)}`,
      );
    }
    const metadata = parsed.data;
    if (normalizeIssuer(metadata.issuer) !== normalizeIssuer(issuer)) {
      throw new OAuthPeerError(
        'invalid_response',
        `authorization-server metadata at ${describeUrl(url)} names issuer ${describeUrl(metadata.issuer)}, not ${describeUrl(issuer)}`,
      );
    }
    for (const [field, endpoint] of [
      ['authorization_endpoint', metadata.authorization_endpoint],
      ['token_endpoint', metadata.token_endpoint],
      ['registration_endpoint', metadata.registration_endpoint],
    ] as const) {
      const endpointProblem = endpoint === undefined ? undefined : insecureUrlProblem(endpoint, options.allowHttp);
      if (endpointProblem) {
        throw new OAuthPeerError('invalid_response', `authorization-server metadata at ${describeUrl(url)}: ${field} ${endpointProblem}`);
      }
    }
    return metadata;
  }
  throw new OAuthPeerError('http_status', `no authorization-server metadata for ${describeUrl(issuer)}: ${tried.join('; ')}`);
}

// RFC 7591 dynamic client registration: Berth asks the authorization server for a client of its own
// and gets back an id and, for a confidential client, a secret. The response is the only place the
// secret is seen before it goes into a Secret, so nothing here ever quotes a response body.
import { z } from 'zod';
import { OAuthPeerError, describeOAuthErrorBody, describeUrl, insecureUrlProblem, requestJson, type PeerRequestOptions } from './http.ts';
import { describeIssues } from './validation.ts';

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

export interface ClientRegistrationRequest {
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  scope?: string;
}

const registrationResponseSchema = z.looseObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  client_secret_expires_at: z.number().int().min(0).optional(),
  registration_access_token: z.string().min(1).optional(),
  registration_client_uri: z.string().min(1).optional(),
  token_endpoint_auth_method: z.string().optional(),
});

export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** Seconds since the epoch; 0 or absent means the secret does not expire (RFC 7591 section 3.2.1). */
  clientSecretExpiresAt?: number;
  registrationAccessToken?: string;
  registrationClientUri?: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
}

export function needsClientSecret(method: TokenEndpointAuthMethod): boolean {
  return method === 'client_secret_basic' || method === 'client_secret_post';
}

/**
 * What Berth asks to be registered as. Without redirect URIs only machine-to-machine grants make
 * sense, so the client asks for client_credentials; with them, the authorization-code flow.
 */
export function clientRegistrationRequest(input: {
  clientName: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  redirectUris?: readonly string[];
  grantTypes?: readonly string[];
  scope?: string;
}): ClientRegistrationRequest {
  const redirectUris = [...(input.redirectUris ?? [])];
  const grantTypes = input.grantTypes?.length
    ? [...input.grantTypes]
    : redirectUris.length
      ? ['authorization_code', 'refresh_token']
      : ['client_credentials'];
  return {
    client_name: input.clientName,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: input.tokenEndpointAuthMethod,
    ...(input.scope ? { scope: input.scope } : {}),
  };
}

/** Registers one client at `registrationEndpoint`; throws OAuthPeerError with the peer's OAuth error. */
export async function registerClient(
  registrationEndpoint: string,
  request: ClientRegistrationRequest,
  options: PeerRequestOptions = {},
): Promise<RegisteredClient> {
  const where = `registration at ${describeUrl(registrationEndpoint)}`;
  const problem = insecureUrlProblem(registrationEndpoint, options.allowHttp);
  if (problem) throw new OAuthPeerError('rejected', `registration endpoint ${problem}`);
  const response = await requestJson('POST', registrationEndpoint, { ...options, json: request });
  if (response.status !== 201 && response.status !== 200) {
    const detail = describeOAuthErrorBody(response.body);
    throw new OAuthPeerError('http_status', `${where} answered ${response.status}${detail ? ` (${detail})` : ''}`, response.status);
  }
  const parsed = registrationResponseSchema.safeParse(response.body);
  if (!parsed.success) {
    throw new OAuthPeerError('invalid_response', `${where} answered an invalid client: ${describeIssues(parsed.error)}`);
  }
  const issued = parsed.data;
  // The server may assign another method than asked (RFC 7591 section 3.2.1); the client must use it.
  const method = (issued.token_endpoint_auth_method ?? request.token_endpoint_auth_method) as TokenEndpointAuthMethod;
  if (!['none', 'client_secret_basic', 'client_secret_post'].includes(method)) {
    throw new OAuthPeerError(
      'invalid_response',
      `${where} assigned token_endpoint_auth_method ${quoteMethod(method)}, which Berth cannot use`,
    );
  }
  if (needsClientSecret(method) && !issued.client_secret) {
    throw new OAuthPeerError('invalid_response', `${where} issued no client_secret for ${method}`);
  }
  return {
    clientId: issued.client_id,
    tokenEndpointAuthMethod: method,
    ...(issued.client_secret ? { clientSecret: issued.client_secret } : {}),
    ...(issued.client_secret_expires_at !== undefined ? { clientSecretExpiresAt: issued.client_secret_expires_at } : {}),
    ...(issued.registration_access_token ? { registrationAccessToken: issued.registration_access_token } : {}),
    ...(issued.registration_client_uri ? { registrationClientUri: issued.registration_client_uri } : {}),
  };
}

function quoteMethod(method: string): string {
  return JSON.stringify(method.slice(0, 40));
}

// OAuthProvider: an organization's OAuth provider configuration. The client secret lives only in the
// Secret that clientSecretRef names, never in the CR.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import { httpUrl, observedGenerationSchema, secretKeySelectorSchema, updatedAtSchema, type KindObject } from './common.ts';
import { apiVersion, type KindDescriptor } from './group.ts';

export const providerTypes = ['vendor_a', 'vendor_b'] as const;
const tokenEndpointAuthMethods = ['none', 'client_secret_basic', 'client_secret_post'] as const;
const codeChallengeMethods = ['S256', 'plain'] as const;

export const oauthProviderSpecSchema = z
  .object({
    providerId: z
      .string()
      .min(1)
      .max(253)
      .describe('Identifier of the provider, unique within the organization; metadata.name is derived from it. Immutable.')
      .meta({ 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.providerId is immutable' }] }),
    name: z.string().min(1).max(253).describe('Display name of the provider.'),
    clientId: z.string().min(1).max(1024).describe('OAuth client ID registered with the provider.'),
    authUrl: httpUrl('Authorization endpoint URL.'),
    tokenUrl: httpUrl('Token endpoint URL.'),
    clientSecretRef: secretKeySelectorSchema
      .describe('The Secret key that holds the OAuth client secret. The secret itself is never in this object.')
      .optional(),
    usesPkce: z.boolean().default(false).describe('Use PKCE (RFC 7636) in the authorization code flow.'),
    codeChallengeMethod: z.enum(codeChallengeMethods).default('S256').describe('PKCE code challenge method: S256 or plain.'),
    providerType: z.enum(providerTypes).optional().describe('Vendor-specific kind of provider: vendor_a or vendor_b.'),
    tokenEndpointAuthMethod: z
      .enum(tokenEndpointAuthMethods)
      .default('client_secret_post')
      .describe('How the client authenticates at the token endpoint: none, client_secret_basic or client_secret_post.'),
    mcpServerUrl: httpUrl('URL of the MCP server this provider authorizes, used for discovery.').optional(),
    isDynamicClient: z.boolean().default(false).describe('The client is registered dynamically (RFC 7591) rather than by hand.'),
  })
  .describe('Desired state of the OAuthProvider.');
export type OAuthProviderSpec = z.infer<typeof oauthProviderSpecSchema>;

export const oauthProviderStatusSchema = z
  .object({
    observedGeneration: observedGenerationSchema.optional(),
    updatedAt: updatedAtSchema.optional(),
    conditions: conditionsSchema.optional(),
    authorizationEndpoint: z.string().max(2048).optional().describe('Authorization endpoint found by discovery.'),
    tokenEndpoint: z.string().max(2048).optional().describe('Token endpoint found by discovery.'),
    registrationEndpoint: z.string().max(2048).optional().describe('Dynamic client registration endpoint found by discovery.'),
    issuer: z.string().max(2048).optional().describe('Issuer found by discovery.'),
    dynamicClientId: z.string().max(1024).optional().describe('Client ID obtained by dynamic registration.'),
    dynamicClientSecretRef: secretKeySelectorSchema
      .describe('The Secret key that holds the client secret obtained by dynamic registration.')
      .optional(),
  })
  .describe('Observed state of the OAuthProvider, written by the controller.');
export type OAuthProviderStatus = z.infer<typeof oauthProviderStatusSchema>;

export type OAuthProvider = KindObject<'OAuthProvider', OAuthProviderSpec, OAuthProviderStatus>;

export const oauthProviderKind = {
  kind: 'OAuthProvider',
  plural: 'oauthproviders',
  singular: 'oauthprovider',
  shortNames: ['oauthprovider'],
  apiVersion,
} as const satisfies KindDescriptor;

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const maxNameLength = 63;

/**
 * metadata.name of the OAuthProvider for a providerId, so that the API server itself enforces that a
 * providerId is unique within an organization. An id that is already a DNS-1123 label is the name;
 * any other gets a readable prefix plus a hash of the whole id, so two ids never share a name.
 */
export function oauthProviderObjectName(providerId: string): string {
  if (dnsLabel.test(providerId) && providerId.length <= maxNameLength) return providerId;
  const hash = createHash('sha256').update(providerId).digest('hex').slice(0, 10);
  const readable = providerId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, maxNameLength - hash.length - 1)
    .replace(/-+$/, '');
  return readable ? `${readable}-${hash}` : `p-${hash}`;
}

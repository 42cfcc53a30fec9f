// CodeHostIntegration: a connection to a code host whose repositories can be listed. Credentials sit in
// a Secret: key `token`, or keys `appId`, `privateKey` and `installationId` for a GitHub App.
import { z } from 'zod';
import { codeHostProvider, codeHostProviderNames, type CodeHostProviderName } from './codehost-providers.ts';
import { conditionsSchema } from './conditions.ts';
import { httpUrl, localObjectReferenceSchema, observedGenerationSchema, updatedAtSchema, type KindObject } from './common.ts';
import { apiVersion, type KindDescriptor } from './group.ts';

/** Keys read from the credentials Secret. */
export const codeHostCredentialKeys = {
  token: 'token',
  appId: 'appId',
  privateKey: 'privateKey',
  installationId: 'installationId',
  /** The secret the code host signs webhook deliveries with (optional): with it, deliveries make Berth read the host at once. */
  webhookSecret: 'webhookSecret',
} as const;

/**
 * On a Deployment: the last verified webhook delivery about its repository (an id, or a time). A new
 * value makes the next pass read the host again rather than answer from what it read within the poll
 * interval; the delivery's content decides nothing.
 */
export const codeHostEventAnnotation = 'berth.dev/code-host-event';

export const codeHostIntegrationSpecSchema = z
  .object({
    provider: z.enum(codeHostProviderNames).default('github').describe('Kind of code host: github or gitlab.'),
    baseUrl: httpUrl(
      'API base URL of the code host, for GitHub Enterprise or a self-managed GitLab. Absent: the public service.',
    ).optional(),
    credentialsSecretRef: localObjectReferenceSchema.describe(
      'Secret holding the credentials: key token, or keys appId, privateKey and installationId (a GitHub App).',
    ),
  })
  .describe('Desired state of the CodeHostIntegration.');
export type CodeHostIntegrationSpec = z.infer<typeof codeHostIntegrationSpecSchema>;

export const codeHostIntegrationStatusSchema = z
  .object({
    observedGeneration: observedGenerationSchema.optional(),
    updatedAt: updatedAtSchema.optional(),
    conditions: conditionsSchema.optional(),
    account: z.string().max(253).optional().describe('Account or installation owner the credentials act as.'),
  })
  .describe('Observed state of the CodeHostIntegration, written by the controller.');
export type CodeHostIntegrationStatus = z.infer<typeof codeHostIntegrationStatusSchema>;

export type CodeHostIntegration = KindObject<'CodeHostIntegration', CodeHostIntegrationSpec, CodeHostIntegrationStatus>;

/**
 * Where an integration's credentials belong: its base URL's origin, scheme, host and port (GitHub
 * Enterprise and a self-managed GitLab serve repositories and API there), or the public service's.
 */
export function repositoryOriginOf(spec: { readonly provider?: CodeHostProviderName; readonly baseUrl?: string }): string {
  if (spec.baseUrl && URL.canParse(spec.baseUrl)) return new URL(spec.baseUrl).origin;
  return codeHostProvider(spec.provider).publicRepositoryOrigin;
}

/**
 * Why an integration's credentials must not go to `repoUrl`, or undefined: its origin (scheme, host and
 * port alike: http://github.com:8080 is not https://github.com) is not the integration's. The token is
 * then sent nowhere: not to read the branch, not to the clone step. `field` names repoUrl as the reader
 * spells it. Pure.
 */
export function repositoryHostRefusal(
  repoUrl: string,
  spec: { readonly provider?: CodeHostProviderName; readonly baseUrl?: string },
  field = 'repo_url',
): string | undefined {
  const origin = URL.canParse(repoUrl) ? new URL(repoUrl).origin : undefined;
  const expected = repositoryOriginOf(spec);
  return origin === expected ? undefined : `${field} must be on the integration's host ${expected}: its credentials go nowhere else`;
}

export const codeHostIntegrationKind = {
  kind: 'CodeHostIntegration',
  plural: 'codehostintegrations',
  singular: 'codehostintegration',
  shortNames: ['codehost'],
  apiVersion,
} as const satisfies KindDescriptor;

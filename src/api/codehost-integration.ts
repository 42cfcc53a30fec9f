// CodeHostIntegration: a connection to a code host whose repositories can be listed. Credentials sit in
// a Secret: key `token`, or keys `appId`, `privateKey` and `installationId` for a GitHub App.
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import { httpUrl, localObjectReferenceSchema, observedGenerationSchema, updatedAtSchema, type KindObject } from './common.ts';
import { apiVersion, type KindDescriptor } from './group.ts';

const codeHostProviders = ['github', 'gitlab'] as const;

/** Keys read from the credentials Secret. */
export const codeHostCredentialKeys = {
  token: 'token',
  appId: 'appId',
  privateKey: 'privateKey',
  installationId: 'installationId',
} as const;

export const codeHostIntegrationSpecSchema = z
  .object({
    provider: z.enum(codeHostProviders).default('github').describe('Kind of code host: github or gitlab.'),
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

/** The public services' hosts of repositories, when an integration names no base URL. */
const publicRepositoryHosts: Record<(typeof codeHostProviders)[number], string> = { github: 'github.com', gitlab: 'gitlab.com' };

/**
 * The host an integration's credentials belong to: its base URL's host (GitHub Enterprise and a
 * self-managed GitLab serve repositories and API on one host), or the public service's.
 */
export function repositoryHostOf(spec: { readonly provider?: string; readonly baseUrl?: string }): string {
  if (spec.baseUrl && URL.canParse(spec.baseUrl)) return new URL(spec.baseUrl).hostname.toLowerCase();
  return publicRepositoryHosts[(spec.provider ?? 'github') as keyof typeof publicRepositoryHosts] ?? publicRepositoryHosts.github;
}

/**
 * Why an integration's credentials must not go to `repoUrl`, or undefined: its host is not the
 * integration's. The token is then sent nowhere: not to read the branch, not to the clone step. `field`
 * names repoUrl as the reader spells it. Pure.
 */
export function repositoryHostRefusal(
  repoUrl: string,
  spec: { readonly provider?: string; readonly baseUrl?: string },
  field = 'repo_url',
): string | undefined {
  const host = URL.canParse(repoUrl) ? new URL(repoUrl).hostname.toLowerCase() : undefined;
  const expected = repositoryHostOf(spec);
  return host === expected ? undefined : `${field} must be on the integration's host ${expected}: its credentials go nowhere else`;
}

export const codeHostIntegrationKind = {
  kind: 'CodeHostIntegration',
  plural: 'codehostintegrations',
  singular: 'codehostintegration',
  shortNames: ['codehost'],
  apiVersion,
} as const satisfies KindDescriptor;

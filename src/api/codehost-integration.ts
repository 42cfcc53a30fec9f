// CodeHostIntegration: a connection to a code host whose repositories can be listed. Credentials sit in
// a Secret: key `token`, or keys `appId`, `privateKey` and `installationId` for a GitHub App.
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import { httpUrl, localObjectReferenceSchema, observedGenerationSchema, updatedAtSchema, type KindObject } from './common.ts';
import { apiVersion, type KindDescriptor } from './group.ts';

const codeHostProviders = ['github', 'gitlab'] as const;

/** Keys read from the credentials Secret. */
export const codeHostCredentialKeys = { token: 'token', appId: 'appId', privateKey: 'privateKey', installationId: 'installationId' } as const;

export const codeHostIntegrationSpecSchema = z
  .object({
    provider: z.enum(codeHostProviders).default('github').describe('Kind of code host: github or gitlab.'),
    baseUrl: httpUrl('API base URL of the code host, for GitHub Enterprise or a self-managed GitLab. Absent: the public service.').optional(),
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

export const codeHostIntegrationKind = {
  kind: 'CodeHostIntegration',
  plural: 'codehostintegrations',
  singular: 'codehostintegration',
  shortNames: ['codehost'],
  apiVersion,
} as const satisfies KindDescriptor;

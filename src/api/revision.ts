// Revision: an immutable snapshot of a Deployment's revision config, created only by the controller and
// named after its digest. Its spec never changes (CEL self == oldSelf); its status follows the lifecycle.
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import { observedGenerationSchema, type KindObject } from './common.ts';
import { deploymentSourceSchema, sourceRevisionConfigSchema, trackedPackagesSchema } from './deployment.ts';
import { apiVersion, type KindDescriptor } from './group.ts';

/** The Deployment's revision settings (declared once, in deployment.ts) and the commit a build resolved. */
export const revisionSourceConfigSchema = sourceRevisionConfigSchema
  .extend({
    repoCommitSha: z.string().min(1).max(64).optional().describe('Commit of the repository this revision was built from.'),
  })
  .describe("The Deployment's sourceRevisionConfig when this revision was made, plus the commit it resolved to.");
export type RevisionSourceConfig = z.infer<typeof revisionSourceConfigSchema>;

export const revisionSpecSchema = z
  .object({
    deploymentName: z.string().min(1).max(253).describe('Name of the Deployment this revision belongs to.'),
    source: deploymentSourceSchema,
    sourceRevisionConfig: revisionSourceConfigSchema.default({}),
    digest: z
      .string()
      .min(1)
      .max(128)
      .describe('Digest of the canonical revision config and secrets: equal digests mean the same revision.'),
    trackedPackages: trackedPackagesSchema.optional(),
    secretNames: z
      .array(z.string().min(1).max(253).describe("A secret environment variable's name."))
      .max(256)
      .optional()
      .describe('Names of the secret environment variables the revision was made with, sorted. Their values are never kept here.'),
    secretSnapshot: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe(
        "Name of the immutable Secret holding the values of the revision's secret environment variables as they were when it was made: its pods read them there, so a later change or removal of a secret never reaches them. Unset on a revision made by an earlier Berth, whose pods read the Deployment's Secrets.",
      ),
  })
  .describe('What this revision is. Immutable: a changed config makes a new Revision.')
  .meta({
    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec is immutable: a Revision never changes, a new one is made' }],
  });
export type RevisionSpec = z.infer<typeof revisionSpecSchema>;

export const revisionPhases = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'DEPLOYED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const;
export type RevisionPhase = (typeof revisionPhases)[number];

/** The phases a revision ends in: it leaves them only through a spec change, and is no longer interruptible. */
export const settledRevisionPhases: ReadonlySet<RevisionPhase> = new Set([
  'DEPLOYED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
]);

/**
 * Set on a Revision that is building or deploying to stop it (the HTTP API's interrupt, or `kubectl
 * annotate`): its build Job goes, its rollout goes back to the revision serving before, and it ends
 * INTERRUPTED. The value is when it was asked (RFC 3339). On a settled revision it does nothing.
 */
export const interruptedAnnotation = 'berth.dev/interrupted-at';

/** When the revision was asked to stop, if it was while it was still on its way. */
export function interruptionOf(revision: {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> | undefined } | undefined;
  readonly status?: { readonly status?: RevisionPhase | undefined } | undefined;
}): string | undefined {
  const asked = revision.metadata?.annotations?.[interruptedAnnotation];
  const phase = revision.status?.status;
  if (!asked || (phase && phase !== 'INTERRUPTED' && settledRevisionPhases.has(phase))) return undefined;
  return asked;
}

export const revisionStatusSchema = z
  .object({
    status: z
      .enum(revisionPhases)
      .optional()
      .describe(`Lifecycle state: ${revisionPhases.join(', ')}.`),
    imageUri: z.string().max(1024).optional().describe('Image this revision runs (built, or taken from the spec).'),
    repoCommitSha: z.string().max(64).optional().describe('Commit this revision was built from.'),
    buildKey: z
      .string()
      .max(64)
      .optional()
      .describe(
        'What its image was built from (sources pinned by content, commands, configuration file, build images), as a digest: a later revision with the same one runs this image without a build.',
      ),
    message: z.string().max(32768).optional().describe('Details of the current state, e.g. why a build failed.'),
    reason: z
      .string()
      .max(256)
      .optional()
      .describe(
        'Why the revision failed, in the words of the part that said so: ImagePullBackOff, CrashLoopBackOff, CreateContainerConfigError, Unschedulable, ProgressDeadlineExceeded, ...',
      ),
    backupName: z
      .string()
      .max(253)
      .optional()
      .describe(
        'The DatabaseBackup taken before this revision rolled out, as it migrates the database (sourceConfig.backups.beforeRevision).',
      ),
    observedGeneration: observedGenerationSchema.optional(),
    conditions: conditionsSchema.optional(),
  })
  .describe('Observed state of the Revision, written by the controller.');
export type RevisionStatus = z.infer<typeof revisionStatusSchema>;

export type Revision = KindObject<'Revision', RevisionSpec, RevisionStatus>;

export const revisionKind = {
  kind: 'Revision',
  plural: 'revisions',
  singular: 'revision',
  shortNames: ['brev'],
  apiVersion,
} as const satisfies KindDescriptor;

// The facade's request and response bodies, in the interface's snake_case, derived from the API's
// schemas (src/api is where a field is declared; here is only how the HTTP interface carries it).
// Requests are strict: undeclared members answer 422. The OpenAPI document is generated from these.
import { z } from 'zod';
import {
  databaseBackupPhases,
  databaseBackupReasons,
  databaseRestorePhases,
  deploymentPhases,
  canaryStatusSchema,
  conditionsSchema,
  deploymentSourceSchema,
  oauthProviderSpecSchema,
  previewOfSchema,
  providerTypes,
  revisionPhases,
  revisionSourceConfigSchema,
  secretReferenceSchema,
  secretValueSchema,
  sourceConfigSchema,
  sourceRevisionConfigSchema,
  trackedPackagesSchema,
  wireObjectSchema,
  wireSchema,
  type OAuthProviderSpec,
  type PreviewOf,
  type SnakeKey,
  sourcesWhere,
  type SourceName,
  isRouteServiceName,
  reservedNameMessage,
} from '../api/index.ts';
import { patchForm, strictDeep } from './strict-schema.ts';

/** An object type with its keys spelled as on the wire (one level). */
export type SnakeKeys<T> = { [K in keyof T as K extends string ? SnakeKey<K> : K]: T[K] };

const dateTime = (description: string) => z.string().describe(description).meta({ format: 'date-time' });
const uuidString = (description: string) => z.string().describe(description).meta({ format: 'uuid' });

// --- OAuth providers ---------------------------------------------------------------------------

const providerSpecWire = strictDeep(wireObjectSchema(oauthProviderSpecSchema));
const providerTypeSchema = z.enum(providerTypes).nullable().optional().describe('Vendor-specific kind of provider: vendor_a or vendor_b.');
const clientSecretSchema = z
  .string()
  .min(1)
  .max(4096)
  .nullable()
  .optional()
  .describe('OAuth client secret; stored in a Secret, never returned.');

export const providerCreateSchema = providerSpecWire
  .pick({
    provider_id: true,
    name: true,
    client_id: true,
    auth_url: true,
    token_url: true,
    uses_pkce: true,
    code_challenge_method: true,
    token_endpoint_auth_method: true,
  })
  .extend({ client_secret: clientSecretSchema, provider_type: providerTypeSchema })
  .strict()
  .describe('An OAuth provider to create.');
/** The parsed create body (defaults applied). */
export type ProviderCreate = SnakeKeys<
  Pick<
    OAuthProviderSpec,
    'providerId' | 'name' | 'clientId' | 'authUrl' | 'tokenUrl' | 'usesPkce' | 'codeChallengeMethod' | 'tokenEndpointAuthMethod'
  >
> & { client_secret?: string | null; provider_type?: OAuthProviderSpec['providerType'] | null };

export const providerUpdateSchema = patchForm(
  (providerCreateSchema as z.ZodObject<Record<string, z.ZodType>>).omit({ provider_id: true }),
).describe('Members to change; absent or null members are left as they are. provider_id cannot change.');
export type ProviderUpdate = { [K in keyof Omit<ProviderCreate, 'provider_id'>]?: ProviderCreate[K] | null };

export const providerResponseSchema = wireObjectSchema(oauthProviderSpecSchema)
  .omit({ client_secret_ref: true })
  .extend({
    id: uuidString('ID of the provider (metadata.uid of the OAuthProvider).'),
    organization_id: uuidString('Organization that owns the provider.'),
    code_challenge_method: z.string().nullable(),
    provider_type: z.string().nullable(),
    mcp_server_url: z.string().nullable(),
    created_at: dateTime('When the provider was created.'),
    updated_at: dateTime('When the provider last changed.'),
  })
  .describe('An OAuth provider. The client secret is never part of it.');
/** The provider's spec members as the wire spells them, and what the response adds. */
export type ProviderResponse = SnakeKeys<
  Omit<OAuthProviderSpec, 'clientSecretRef' | 'codeChallengeMethod' | 'providerType' | 'mcpServerUrl'>
> & {
  id: string;
  organization_id: string;
  code_challenge_method: string | null;
  provider_type: string | null;
  mcp_server_url: string | null;
  created_at: string;
  updated_at: string;
};

// --- Deployments -------------------------------------------------------------------------------

const sourceConfigWire = strictDeep(wireSchema(sourceConfigSchema));
/**
 * Members the wire takes under a second name, and the name each is stored under: the reference's deploy
 * tooling sends the application configuration file's path as langgraph_config_path.
 */
export const revisionConfigAliases = { langgraph_config_path: 'graph_config_path' } as const;
const aliasMembers = {
  langgraph_config_path: z
    .string()
    .min(1)
    .max(1024)
    .nullable()
    .optional()
    .describe(
      'The name the reference tooling gives graph_config_path: either may be sent (equal when both are), and it is stored as graph_config_path.',
    ),
};
const sourceRevisionConfigWire = strictDeep(wireObjectSchema(sourceRevisionConfigSchema)).extend(aliasMembers);
const secretValueWire = strictDeep(wireSchema(secretValueSchema));
const secretReferenceWire = strictDeep(wireObjectSchema(secretReferenceSchema));
const secretReferencesDescription =
  "Environment variables from keys of Secrets of the organization's namespace that share themselves with Deployments (label berth.dev/secret): " +
  'the values stay there, and a change of one makes a new revision, as secrets do.';

/** Names of deployments become object names (Deployment, Service, TracingProject): a DNS-1035 label. */
const deploymentNameSchema = z
  .string()
  .min(1)
  .max(48)
  .regex(/^[a-z]([-a-z0-9]*[a-z0-9])?$/, {
    message: 'must be lowercase letters, digits and dashes, start with a letter and end with a letter or digit',
  })
  .refine((name) => !isRouteServiceName(name), { message: reservedNameMessage })
  .describe('Name of the deployment (and of its tracing project). Immutable.');

export const deploymentCreateSchema = z
  .strictObject({
    name: deploymentNameSchema,
    source: deploymentSourceSchema,
    source_config: sourceConfigWire.optional(),
    source_revision_config: sourceRevisionConfigWire.optional(),
    secrets: z.array(secretValueWire).max(256).optional().describe('Secret environment variables and their values.'),
    secret_references: z.array(secretReferenceWire).max(256).nullable().optional().describe(secretReferencesDescription),
  })
  .describe('A deployment to create.');
export type DeploymentCreate = z.infer<typeof deploymentCreateSchema>;

/** What reads answer in place of a secret's value. */
export const maskedSecretValue = '********';

/** What a PATCH may name as the way its revision is made (the reference control plane's revision_source). */
const revisionSources = sourcesWhere((kind) => kind.revisionSource) as [SourceName, ...SourceName[]];

export const deploymentPatchSchema = z
  .strictObject({
    name: z.string().optional().describe('Accepted only when equal to the current name: a name cannot change.'),
    source: z.string().optional().describe('Accepted only when equal to the current source: a source cannot change.'),
    revision_source: z
      .enum(revisionSources)
      .nullable()
      .optional()
      .describe(
        "How the new revision is made: from the image in source_revision_config (external_docker, internal_docker: the deployment's own source) " +
          'or from an uploaded source archive (internal_source: source_revision_config.source_tarball_path names the upload).',
      ),
    tracked_packages: trackedPackagesSchema
      .nullable()
      .optional()
      .describe(
        'Packages the new revision is made with (name:version), as the deploy tool reports them: stored on the revisions made from now on and shown back.',
      ),
    source_config: patchForm(sourceConfigWire, ['resource_spec', 'listener_config'])
      .nullable()
      .optional()
      .describe('Settings applied in place (no new revision). Absent or null members are left as they are.'),
    source_revision_config: patchForm(sourceRevisionConfigWire)
      .nullable()
      .optional()
      .describe('Settings of the revision: a change makes a new revision. Absent or null members are left as they are.'),
    secrets: z
      .array(secretValueWire)
      .max(256)
      .nullable()
      .optional()
      .describe(`The complete set of secrets. A value equal to the mask that reads return (${maskedSecretValue}) keeps the stored value.`),
    secret_references: z
      .array(secretReferenceWire)
      .max(256)
      .nullable()
      .optional()
      .describe(`The complete set of secret references (absent or null: left as they are). ${secretReferencesDescription}`),
  })
  .describe('Changes to a deployment.');
export type DeploymentPatch = z.infer<typeof deploymentPatchSchema>;

const revisionConfigResponse = wireSchema(revisionSourceConfigSchema);

export const deploymentResponseSchema = z
  .object({
    name: z.string(),
    source: deploymentSourceSchema,
    source_config: wireSchema(sourceConfigSchema),
    source_revision_config: revisionConfigResponse,
    secrets: z
      .array(z.object({ name: z.string(), value: z.string().describe(`Always ${maskedSecretValue}: values are never returned.`) }))
      .describe('Secret names; values are masked.'),
    secret_references: z.array(wireObjectSchema(secretReferenceSchema)).describe(secretReferencesDescription),
    id: uuidString('ID of the deployment (metadata.uid).'),
    created_at: dateTime('When the deployment was created.'),
    updated_at: dateTime('When the controller last recorded a change.'),
    status: z.enum(deploymentPhases),
    latest_revision_id: uuidString('ID of the newest revision.').nullable(),
    latest_revision_status: z
      .enum(revisionPhases)
      .nullable()
      .describe('Where the newest revision stands (BUILDING, DEPLOYING, DEPLOYED, BUILD_FAILED, ...). Null until there is one.'),
    active_revision_id: uuidString('ID of the revision being served.').nullable(),
    image_version: z.string().nullable(),
    tenant_id: uuidString('Organization that owns the deployment (the X-Tenant-Id that reaches it).'),
    url: z
      .string()
      .nullable()
      .describe("Where the application answers: its custom_url when set, otherwise its Service's cluster address. Null until known."),
    is_preview: z
      .boolean()
      .describe(
        "A preview of a pull request, made by Berth for the deployment that asks for previews (source_config.previews): the reference's clients skip these.",
      ),
    preview_of: wireObjectSchema(previewOfSchema)
      .extend({
        pull_request_url: z
          .string()
          .nullable()
          .describe("The pull (merge) request's web page on its code host. Null when the repository's address is not an http(s) URL."),
      })
      .nullable()
      .describe('The deployment and pull (merge) request this preview is of (is_preview). Null on any other deployment.'),
    canary: wireSchema(canaryStatusSchema)
      .nullable()
      .describe("Where the new revision's canary rollout stands (source_config.canary). Null when none runs or failed for it."),
    conditions: wireSchema(conditionsSchema).describe(
      'What the controller last observed, as kubectl shows it: Ready, Reconciling and Stalled, each with a reason and a message (e.g. Stalled, PathBlocked). Empty until the controller has looked.',
    ),
  })
  .describe('A deployment.');
/** A preview's origin as the wire spells it, and its request's page. */
export type PreviewOfResponse = SnakeKeys<PreviewOf> & { pull_request_url: string | null };
export type DeploymentResponse = Omit<z.infer<typeof deploymentResponseSchema>, 'preview_of'> & { preview_of: PreviewOfResponse | null };

// --- Events ------------------------------------------------------------------------------------

export const deploymentEventSchema = z
  .object({
    type: z.enum(['Normal', 'Warning']),
    reason: z.string().describe('Why, in CamelCase: BuildFailed, PathBlocked, BackOff, ...'),
    message: z.string(),
    object: z
      .object({ kind: z.string(), name: z.string() })
      .describe('What it is about: the Deployment, a Revision, a Pod, a ReplicaSet, ...'),
    count: z.number().int().min(1).describe('How many times it was said.'),
    first_seen: dateTime('When it was first said.'),
    last_seen: dateTime('When it was last said.'),
    source: z.string().describe('Who said it: berth, kubelet, default-scheduler, ...'),
  })
  .describe('A Kubernetes Event about a deployment or one of its objects.');

export type DeploymentEvent = z.infer<typeof deploymentEventSchema>;

export const deploymentEventsSchema = z
  .object({ resources: z.array(deploymentEventSchema).describe('Newest first.') })
  .describe("A deployment's events.");

// --- Listeners ---------------------------------------------------------------------------------

export const listenerResponseSchema = z
  .object({
    id: uuidString("ID of the listener: the metadata.uid of the organization's namespace."),
    tenant_id: uuidString('Organization the listener deploys for.'),
    compute_type: z.literal('k8s').describe('What the listener deploys to: the Kubernetes cluster Berth runs in.'),
    compute_config: z
      .object({ k8s_namespaces: z.array(z.string()).describe("Namespaces the organization's deployments run in.") })
      .describe('Where the listener deploys.'),
    created_at: dateTime('When the namespace was created.'),
    updated_at: dateTime('When the namespace was created (a listener does not change).'),
  })
  .describe('The cluster Berth runs in, as one organization sees it: the namespace its deployments run in.');
export type ListenerResponse = z.infer<typeof listenerResponseSchema>;

export const revisionResponseSchema = z
  .object({
    id: uuidString('ID of the revision (metadata.uid).'),
    deployment_id: uuidString('ID of the deployment the revision belongs to.'),
    name: z.string(),
    source: deploymentSourceSchema,
    source_revision_config: revisionConfigResponse,
    status: z.enum(revisionPhases),
    status_message: z.string().nullable(),
    image_uri: z.string().nullable(),
    tracked_packages: z.array(z.string()).describe('Packages the revision was made with (name:version), as the deploy tool reported them.'),
    secret_names: z
      .array(z.string())
      .describe(
        'Names of the secrets the revision was made with, sorted (never their values); empty for a revision made before Berth kept them.',
      ),
    backup_id: uuidString(
      'ID of the backup of its database taken before it rolled out, as it migrates the database (/v2/deployments/{deployment_id}/backups/{backup_id}); null without one.',
    ).nullable(),
    created_at: dateTime('When the revision was made.'),
    updated_at: dateTime('When the revision last changed state.'),
  })
  .describe('An immutable revision of a deployment.');
export type RevisionResponse = z.infer<typeof revisionResponseSchema>;

/** A DatabaseBackup's phase as the API spells states. */
export const backupStates = databaseBackupPhases.map((phase) => phase.toUpperCase()) as Uppercase<(typeof databaseBackupPhases)[number]>[];

/** A DatabaseBackup's phase as the API spells its state: PENDING until it has one. */
export function backupStateOf(phase: string | undefined): string {
  return (phase ?? 'Pending').toUpperCase();
}

export const databaseBackupResponseSchema = z
  .object({
    id: uuidString('ID of the backup (metadata.uid of the DatabaseBackup).'),
    deployment_id: uuidString('ID of the deployment whose database it backs up.'),
    name: z.string().describe('Name of the DatabaseBackup (kubectl get dbbackup).'),
    reason: z.enum(databaseBackupReasons).describe('Why it was taken.'),
    revision_id: z.string().nullable().describe('The revision it was taken before, for reason before-revision.'),
    status: z.enum(backupStates as [string, ...string[]]).describe(`Where the backup is: ${backupStates.join(', ')}.`),
    status_message: z.string().nullable().describe('Why it waits or failed.'),
    begin_lsn: z.string().nullable().describe('The write-ahead log position the backup begins at.'),
    end_lsn: z.string().nullable().describe('The position it ends at: a restore from it has everything written before.'),
    started_at: dateTime('When the backup began.').nullable(),
    stopped_at: dateTime('When it completed or failed.').nullable(),
    created_at: dateTime('When it was asked for.'),
  })
  .describe("One backup of a deployment's database, in its organization's bucket.");
export type DatabaseBackupResponse = z.infer<typeof databaseBackupResponseSchema>;

export const redeploymentResponseSchema = deploymentResponseSchema
  .extend({
    crosses_migration: z
      .object({
        revision_id: uuidString('ID of the first revision after the one redeployed that migrated the database.'),
        backup_id: uuidString(
          'ID of the backup taken before it migrated: restoring it (POST /v2/deployments/{deployment_id}/backups/{backup_id}/restore) brings back the data from before every migration since. Null when it is no longer listed.',
        ).nullable(),
        backup_status: z
          .enum(backupStates as [string, ...string[]])
          .nullable()
          .describe('Where that backup is: only a COMPLETED one can be restored. Null when it is no longer listed.'),
      })
      .nullable()
      .describe(
        'Set when the revision redeployed is older than one that migrated the database: the app may now run on a schema newer than its own. Berth never restores by itself. Null when the rollback crosses no migration.',
      ),
  })
  .describe('The deployment, serving the revision asked for, and what the rollback crosses.');
export type RedeploymentResponse = z.infer<typeof redeploymentResponseSchema>;

/** A DatabaseRestore's phase as the API spells states (BackingUp is BACKING_UP). */
export function restoreStateOf(phase: string): string {
  return phase.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase();
}
export const restoreStates = databaseRestorePhases.map(restoreStateOf) as [string, ...string[]];

export const databaseRestoreRequestSchema = z
  .object({
    backup_first: z
      .boolean()
      .default(true)
      .describe(
        'Back up the serving database first (a backup of reason before-restore), so the restore can itself be undone. A database that does not serve is restored without one.',
      ),
    target_time: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        "A point in time (RFC 3339), a second or more after the backup's end, to restore to: the backup, then its database's archive replayed up to the first transaction after that time. Unset: the database as the backup ended. " +
          "One ahead of now or not past the backup's end is a 422; one with no transaction after it in the archive (its newest segment is shipped when full or within 5 minutes) fails the restore, and the deployment stays on its database.",
      ),
  })
  .strict()
  .describe('How to restore; every field is optional, and so is the body.');
export type DatabaseRestoreRequest = z.infer<typeof databaseRestoreRequestSchema>;

export const databaseRestoreResponseSchema = z
  .object({
    id: uuidString('ID of the restore (metadata.uid of the DatabaseRestore).'),
    deployment_id: uuidString('ID of the deployment whose database it restores.'),
    name: z.string().describe('Name of the DatabaseRestore (kubectl get dbrestore).'),
    backup_id: uuidString('ID of the backup it restores.').nullable(),
    backup_first: z.boolean().describe('Whether the serving database is backed up first.'),
    target_time: dateTime("The point in time it restores to; null: the backup's end.").nullable(),
    backup_before_id: uuidString('ID of the backup of the serving database taken before the restore; null without one.').nullable(),
    status: z.enum(restoreStates).describe(`Where the restore is: ${restoreStates.join(', ')}.`),
    status_message: z.string().nullable().describe('Why it waits or failed.'),
    database_name: z.string().nullable().describe('The database (CloudNativePG Cluster) the backup is restored into.'),
    retired_database_name: z
      .string()
      .nullable()
      .describe('The database that served before the switch: hibernated, its volume kept until this restore is deleted.'),
    switched_at: dateTime('When the deployment was switched to the restored database.').nullable(),
    created_at: dateTime('When it was asked for.'),
  })
  .describe("A restore of a deployment's database from one of its backups: into a new database, then switched to.");
export type DatabaseRestoreResponse = z.infer<typeof databaseRestoreResponseSchema>;

export const repositoryResponseSchema = z
  .object({
    host_integration_id: uuidString('ID of the code-host integration; integration_id when creating a deployment.'),
    id: z.number().int().describe('Repository ID on the code host.'),
    name: z.string(),
    owner: z.string(),
    url: z.string().describe('Repository URL; source_config.repo_url when creating a deployment.'),
    default_branch: z.string().describe('Default branch; source_revision_config.repo_ref when creating a deployment.'),
  })
  .describe('A repository reachable through a code-host integration.');

export const pageSchema = (item: z.ZodType) =>
  z.object({ resources: z.array(item), offset: z.number().int().describe('Offset of the next page.') }).describe('One page of a list.');

export const errorResponseSchema = z
  .object({
    detail: z.union([
      z.string(),
      z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })),
    ]),
  })
  .describe('What went wrong: a sentence, or one entry per invalid member.');

// --- Registry and uploads -----------------------------------------------------------------------

export const pushTokenResponseSchema = z
  .object({
    registry_url: z.string().describe("host[:port] of Berth's registry for pushed images."),
    repository_url: z.string().describe('The one repository the credential pushes: <registry_url>/<namespace>/<deployment>.'),
    username: z.string(),
    token: z.string().describe('The password of docker login.'),
    expires_at: dateTime('When the credential stops working.'),
  })
  .describe('A push credential for one internal_docker deployment.');

export const registryTokenQuerySchema = z.object({
  service: z.string().optional().describe("The registry's auth.token.service."),
  scope: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('repository:<name>:pull,push; repeatable.'),
});

export const registryTokenResponseSchema = z
  .object({ token: z.string(), access_token: z.string(), expires_in: z.number().int(), issued_at: dateTime('When the token was issued.') })
  .describe('A bearer token for the granted scopes.');

export const uploadUrlResponseSchema = z
  .object({
    upload_url: z.string().describe('Where to PUT the archive: this API, a signed single-use path.'),
    object_path: z.string().describe('What to PATCH as source_revision_config.source_tarball_path once uploaded.'),
    upload_headers: z.record(z.string(), z.string()).describe('Headers the PUT sends.'),
    expires_at: dateTime('When the upload URL stops working.'),
  })
  .describe('An upload URL for one source archive.');

export const uploadResponseSchema = z
  .object({
    object_path: z.string(),
    digest: z.string().describe('sha256 of the archive as stored.'),
    size: z.number().int().describe('Bytes stored.'),
  })
  .describe('The stored archive.');

// --- Metrics -------------------------------------------------------------------------------------

const usageSchema = {
  cpu_cores: z.number().min(0).nullable().describe('CPU in use now, in cores, summed over the pods (metrics-server).'),
  memory_bytes: z.number().int().min(0).nullable().describe('Memory in use now (working set), summed over the pods.'),
};

export const deploymentMetricsResponseSchema = z
  .object({
    deployment_id: uuidString('ID of the deployment.'),
    measured_at: dateTime('When the figures were read.'),
    application: z
      .object({
        replicas: z.number().int().min(0).describe('Pods of the API server and queue worker that exist now.'),
        ready_replicas: z.number().int().min(0).describe('Of those, the ready ones.'),
        restarts: z.number().int().min(0).describe("Container restarts of those pods, summed (each pod's count since it started)."),
        ...usageSchema,
      })
      .describe('The API server and queue worker.'),
    database: z
      .object({
        ...usageSchema,
        disk_capacity_bytes: z.number().int().min(0).nullable().describe("Size of the database's volume."),
      })
      .nullable()
      .describe('The Postgres the deployment has, or null without one.'),
    api: z
      .object({
        window_seconds: z.number().int().describe('The figures are rates and quantiles over this many seconds, up to now.'),
        requests_per_second: z.number().min(0),
        success_ratio: z.number().min(0).max(1).nullable().describe('Share of answers that were not 5xx; null without requests.'),
        errors_per_second: z.number().min(0).describe('5xx answers per second.'),
        latency_p50_seconds: z.number().min(0).nullable(),
        latency_p99_seconds: z.number().min(0).nullable(),
      })
      .nullable()
      .describe("The requests at the deployment's URL, as the Gateway measured them; null where they cannot be read."),
    queue: z
      .object({
        pending_runs: z.number().int().min(0).describe('Runs waiting for a worker.'),
        active_runs: z.number().int().min(0).describe('Runs a worker runs now.'),
      })
      .nullable()
      .describe(
        "An agent server's run queue, as KEDA reads it from the deployment's Postgres for its queue worker; null without a queue worker, or where it cannot be read.",
      ),
    unavailable: z
      .array(z.object({ metric: z.string(), reason: z.string() }))
      .describe('Figures that could not be read, and why (e.g. no resource metrics on this cluster).'),
  })
  .describe("A deployment's figures now: its pods' CPU, memory, replicas and restarts, its database, its requests, its run queue.");
export type DeploymentMetricsResponse = z.infer<typeof deploymentMetricsResponseSchema>;

/** The figures a range answer charts: the Gateway's (rates and quantiles over 5 minutes at each point),
 * and those that have no history here, listed in `unavailable` with why. */
export const rangeMetrics = [
  'requests_per_second',
  'errors_per_second',
  'latency_p50_seconds',
  'latency_p99_seconds',
  'cpu_cores',
  'memory_bytes',
  'pending_runs',
  'active_runs',
] as const;

/** Most points a range answer has per series: (end - start) / step. */
export const rangePointLimit = 1000;

export const metricsRangeQuerySchema = z
  .object({
    start: z.iso.datetime({ offset: true }).optional().describe('Start of the range (RFC 3339); with end and step.'),
    end: z.iso.datetime({ offset: true }).optional().describe('End of the range (RFC 3339); with start and step.'),
    step: z.coerce
      .number()
      .int()
      .min(5)
      .max(3600)
      .optional()
      .describe(`Seconds between points (5-3600); at most ${rangePointLimit} points.`),
  })
  .superRefine((query, context) => {
    const given = [query.start, query.end, query.step].filter((value) => value !== undefined).length;
    if (given === 0) return;
    if (given < 3) {
      for (const key of ['start', 'end', 'step'] as const)
        if (query[key] === undefined) context.addIssue({ code: 'custom', path: [key], message: 'start, end and step come together' });
      return;
    }
    const span = (Date.parse(query.end!) - Date.parse(query.start!)) / 1000;
    if (span <= 0) context.addIssue({ code: 'custom', path: ['end'], message: 'must be after start' });
    else if (span / query.step! > rangePointLimit)
      context.addIssue({ code: 'custom', path: ['step'], message: `gives more than ${rangePointLimit} points: take a longer step` });
  });

export const deploymentMetricsRangeSchema = z
  .object({
    deployment_id: uuidString('ID of the deployment.'),
    start: dateTime('Start of the range.'),
    end: dateTime('End of the range.'),
    step_seconds: z.number().int().describe('Seconds between points.'),
    series: z
      .array(
        z.object({
          metric: z.enum(rangeMetrics),
          points: z
            .array(z.tuple([z.number().describe('Unix seconds.'), z.number().nullable().describe('Null where nothing was measured.')]))
            .describe('A point per step, oldest first.'),
        }),
      )
      .describe('Each figure the store holds over time.'),
    revisions: z
      .array(z.object({ id: z.string(), name: z.string(), status: z.enum(revisionPhases), created_at: z.string() }))
      .describe('Revisions made within the range, oldest first: where the chart marks a change.'),
    unavailable: z
      .array(z.object({ metric: z.enum(rangeMetrics), reason: z.string() }))
      .describe('Figures that have no history here, and why.'),
  })
  .describe("A deployment's figures over a range: its requests as the Gateway measured them, with its revisions as markers.");
export type DeploymentMetricsRange = z.infer<typeof deploymentMetricsRangeSchema>;

// Deployment: an application deployed from a code-host repository or a container image.
// sourceConfig is applied to running workloads in place; sourceRevisionConfig (and the secrets) make a
// new Revision when they change. Rules the schema cannot say are CEL rules next to the field they guard.
import { Cron } from 'croner';
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import {
  httpUrl,
  observedGenerationSchema,
  repositoryUrl,
  secretKeySelectorSchema,
  updatedAtSchema,
  uuid,
  type KindObject,
} from './common.ts';
import { idleSecondsBeforeZero } from './activator.ts';
import { apiVersion, type KindDescriptor } from './group.ts';
import { containerSchema, envVarSchema, volumeMountSchema, volumeSchema } from './workload.ts';
import { databaseSizeSchema, serverSizeSchema } from './sizes.ts';
import { notificationsSchema } from './notifications.ts';
import { previewDatabases } from './preview-database.ts';
import { sourceKind, sourceNames, sourceOnlyMembers } from './sources/index.ts';

export const deploymentSourceSchema = z
  .enum(sourceNames)
  .describe(
    `Where the application comes from: ${sourceNames.map((name) => `${name} (${sourceKind(name)?.summary})`).join(', ')}. Immutable.`,
  );
export type DeploymentSource = z.infer<typeof deploymentSourceSchema>;

/** Where an uploaded source archive is, relative to its deployment (POST /v2/deployments/{id}/upload-url). */
export const sourceArchivePathPattern = /^sources\/[a-z0-9]{32}\.tar\.gz$/;

/** What tools record of the packages a revision was built with: `name:version` each. */
export const trackedPackagesSchema = z
  .array(z.string().min(1).max(256).describe('A package and its version, name:version.'))
  .max(256)
  .describe('Packages the revision was made with, as the deploy tool reported them (name:version). Stored and shown back.');

/** The tiers. serverless and dedicated are what newer reference clients send (serverless their default). */
const deploymentTypes = ['dev_free', 'dev', 'dev_zero', 'prod', 'serverless', 'dedicated'] as const;

/** The tiers that scale to zero when idle, where the installation can (the reconciler's tier.ts). */
export const scaleToZeroTiers: ReadonlySet<string> = new Set(['dev_zero', 'serverless']);

/** The tiers for development: their database is sized small unless db* fields say otherwise. */
export const devTiers: ReadonlySet<string> = new Set(['dev_free', 'dev', 'dev_zero', 'serverless']);

/** The fewest API replicas a tier keeps (its minScale counts above this). */
export function tierMinReplicas(deploymentType: string | null | undefined): number {
  return deploymentType === 'dedicated' ? 2 : 1;
}

/** Older spellings of the tiers that clients still send: the long names, and any case or dashes. */
const deploymentTypeAliases: Record<string, (typeof deploymentTypes)[number]> = { development: 'dev', production: 'prod' };

/** The tier a client's spelling means, or the value as it came (validation then names the accepted ones). */
export function canonicalDeploymentType(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const spelled = value.trim().toLowerCase().replaceAll('-', '_');
  if ((deploymentTypes as readonly string[]).includes(spelled)) return spelled;
  return deploymentTypeAliases[spelled] ?? value;
}

const scale = (description: string) => z.number().int().min(0).max(10000).optional().describe(description);
const cpu = (description: string) => z.number().min(0).max(1024).optional().describe(`${description}, in CPU cores (0.5 is half a core).`);
const megabytes = (description: string) => z.number().int().min(0).max(16_777_216).optional().describe(`${description}, in megabytes.`);
/** Fields of the reference's distributed runtime, which Berth does not run: kept and shown back, never rendered. */
const storedOnly = <T extends z.ZodType>(schema: T): T =>
  schema.describe(
    `${schema.description ?? ''} Stored and returned as sent: Berth runs no orchestrator or executor workload, so nothing is sized by it.`,
  );

type CelRule = { rule: string; message: string; fieldPath?: string; reason?: string };

const resourceSpecPath = 'spec.sourceConfig.resourceSpec';

/** `low` may not exceed `high` when both are set; the message names the field to fix. */
function atMost(low: string, high: string, offending: string, what: string): CelRule {
  return {
    rule: `!has(self.${low}) || !has(self.${high}) || self.${low} <= self.${high}`,
    message: `${resourceSpecPath}.${offending} ${what}`,
    fieldPath: `.${offending}`,
  };
}

const scaleRule = (prefix: string): CelRule => {
  const min = prefix ? `${prefix}MinScale` : 'minScale';
  const max = prefix ? `${prefix}MaxScale` : 'maxScale';
  return atMost(min, max, min, `must be less than or equal to ${max}`);
};

const limitRules = (prefix: string): CelRule[] => {
  const name = (field: string) => (prefix ? `${prefix}${field[0]!.toUpperCase()}${field.slice(1)}` : field);
  return [
    atMost(name('cpu'), name('cpuLimit'), name('cpuLimit'), `must be greater than or equal to ${name('cpu')}`),
    atMost(name('memoryMb'), name('memoryLimitMb'), name('memoryLimitMb'), `must be greater than or equal to ${name('memoryMb')}`),
  ];
};

const resourceSpecSchema = z
  .object({
    size: serverSizeSchema.optional(),
    minScale: scale('Fewest replicas of the application server.'),
    maxScale: scale('Most replicas of the application server.'),
    cpu: cpu('CPU request of the application server'),
    cpuLimit: cpu('CPU limit of the application server'),
    memoryMb: megabytes('Memory request of the application server'),
    memoryLimitMb: megabytes('Memory limit of the application server'),
    queueMinScale: scale('Fewest replicas of the queue worker.'),
    queueMaxScale: scale('Most replicas of the queue worker.'),
    queueCpu: cpu('CPU request of the queue worker'),
    queueCpuLimit: cpu('CPU limit of the queue worker'),
    queueMemoryMb: megabytes('Memory request of the queue worker'),
    queueMemoryLimitMb: megabytes('Memory limit of the queue worker'),
    orchestratorCpu: storedOnly(cpu('CPU request of the orchestrator')),
    orchestratorCpuLimit: storedOnly(cpu('CPU limit of the orchestrator')),
    orchestratorMemoryMb: storedOnly(megabytes('Memory request of the orchestrator')),
    orchestratorMemoryLimitMb: storedOnly(megabytes('Memory limit of the orchestrator')),
    orchestratorMinScale: storedOnly(scale('Fewest replicas of the orchestrator.')),
    orchestratorMaxScale: storedOnly(scale('Most replicas of the orchestrator.')),
    executorCpu: storedOnly(cpu('CPU request of the executor')),
    executorCpuLimit: storedOnly(cpu('CPU limit of the executor')),
    executorMemoryMb: storedOnly(megabytes('Memory request of the executor')),
    executorMemoryLimitMb: storedOnly(megabytes('Memory limit of the executor')),
    redisMemoryMb: megabytes('Memory of the Redis cache'),
    dbSize: databaseSizeSchema.optional(),
    dbCpu: cpu('CPU request of the Postgres database'),
    dbCpuLimit: cpu('CPU limit of the Postgres database'),
    dbMemoryMb: megabytes('Memory request of the Postgres database'),
    dbMemoryLimitMb: megabytes('Memory limit of the Postgres database'),
    dbStorageGi: z.number().int().min(0).max(65536).optional().describe('Storage of the Postgres database, in gibibytes.'),
    dbMaxConnections: z.number().int().min(0).max(100000).optional().describe('Most connections the Postgres database accepts.'),
    labels: z.record(z.string(), z.string()).optional().describe('Labels added to every workload and pod of the deployment.'),
    annotations: z.record(z.string(), z.string()).optional().describe('Annotations added to every workload and pod of the deployment.'),
    serviceAccountName: z.string().max(253).optional().describe('Service account the pods run as.'),
    imagePullSecrets: z
      .array(
        z
          .object({ name: z.string().min(1).max(253).describe('Name of a Secret of type kubernetes.io/dockerconfigjson.') })
          .describe('A registry credential.'),
      )
      .max(16)
      .optional()
      .describe('Secrets holding registry credentials used to pull the images.'),
    volumes: z
      .array(volumeSchema)
      .max(64)
      .optional()
      .describe('Volumes added to the pods.')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    volumeMounts: z.array(volumeMountSchema).max(64).optional().describe('Volumes mounted into the application container.'),
    initContainers: z
      .array(containerSchema)
      .max(16)
      .optional()
      .describe('Containers that run to completion before the application starts.')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    sidecars: z
      .array(containerSchema)
      .max(16)
      .optional()
      .describe('Containers that run beside the application container.')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
  })
  .describe('Sizes, scale and pod settings of the workloads. Numeric fields ending in Mb are megabytes, in Gi gibibytes.')
  .meta({
    'x-kubernetes-validations': [
      scaleRule(''),
      scaleRule('queue'),
      scaleRule('orchestrator'),
      ...limitRules(''),
      ...limitRules('queue'),
      ...limitRules('orchestrator'),
      ...limitRules('executor'),
      ...limitRules('db'),
    ],
  });
export type ResourceSpec = z.infer<typeof resourceSpecSchema>;

/** The members of resourceSpec that size and scale the workloads: nothing that reaches a pod's identity,
 * mounts or neighbours (service account, volumes, sidecars, init containers, labels, annotations, pull
 * secrets). The stored-only orchestrator and executor members are left out: nothing renders them. */
export const resourceSizingFields = [
  'size',
  'minScale',
  'maxScale',
  'cpu',
  'cpuLimit',
  'memoryMb',
  'memoryLimitMb',
  'queueMinScale',
  'queueMaxScale',
  'queueCpu',
  'queueCpuLimit',
  'queueMemoryMb',
  'queueMemoryLimitMb',
  'redisMemoryMb',
  'dbSize',
  'dbCpu',
  'dbCpuLimit',
  'dbMemoryMb',
  'dbMemoryLimitMb',
  'dbStorageGi',
  'dbMaxConnections',
] as const satisfies readonly (keyof ResourceSpec)[];

const listenerConfigSchema = z
  .object({
    k8sNamespace: z.string().min(1).max(63).optional().describe('Namespace the listener deploys into. Immutable once set.'),
  })
  .describe('Settings of the listener that runs a self-hosted deployment.');

const seconds = (description: string, max: number) => z.number().int().min(1).max(max).optional().describe(description);

const healthCheckSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^\//, { message: 'must start with /' })
      .optional()
      .describe(
        'HTTP path on the app port that answers 2xx or 3xx once the app can serve. Absent: a TCP connection to the app port is the check.',
      ),
    periodSeconds: seconds('Seconds between checks. Default 1: a new pod gets traffic within a second of listening.', 300),
    timeoutSeconds: seconds('Seconds a check may take. Default 1.', 60),
    failureThreshold: seconds('Failed checks in a row that take a pod out of the Service. Default 3.', 100),
  })
  .describe(
    'How Berth tells that a pod of the application serves: it receives traffic, and a rollout moves on, only once the check passes. ' +
      'A failing check never restarts the container, so a slow starter is not killed.',
  );
export type HealthCheck = z.infer<typeof healthCheckSchema>;

/** What a canary is held to when its spec leaves it out: the alert thresholds' success ratio (metrics-views.ts). */
export const canaryDefaults = { pauseSeconds: 60, minRequests: 50, minSuccessRatio: 0.99, maxLatencyRatio: 1.5 } as const;

/** A p99 that differs from the stable one's by less than this is noise of the histogram's buckets: the
 * Gateway's request histogram steps at 0.1, 0.3, 1.2 and 5 s (Traefik's default bounds), so a few slow
 * requests put a p99 read as 0.1 s at 0.2 s, inside the next bucket, with no change in the revision. */
export const canaryLatencyNoiseSeconds = 0.25;

const canarySchema = z
  .object({
    steps: z
      .array(z.number().int().min(1).max(99).describe('Percent of requests the new revision takes at this step.'))
      .max(10)
      .describe(
        'Traffic weights, ascending and each below 100, that a new revision takes in turn before it serves all traffic. Empty: no canary (how a PATCH removes it).',
      ),
    pauseSeconds: seconds(`Seconds each step lasts before its analysis. Default ${canaryDefaults.pauseSeconds}.`, 3600),
    minRequests: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe(
        `Requests the new revision must have answered in a step for its analysis to count. Default ${canaryDefaults.minRequests}. ` +
          'A step that has too few by the end of the progress deadline fails.',
      ),
    minSuccessRatio: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        `Share of the new revision's requests in a step that must answer other than 5xx. Default ${canaryDefaults.minSuccessRatio}.`,
      ),
    maxLatencyRatio: z
      .number()
      .min(1)
      .max(100)
      .optional()
      .describe(
        `How many times the stable revision's p99 latency the new revision's may be in a step. Default ${canaryDefaults.maxLatencyRatio}. ` +
          `A p99 within ${canaryLatencyNoiseSeconds} s of the stable one's always passes (the Gateway's histogram buckets).`,
      ),
  })
  .describe(
    "A canary rollout (needs the installation's Gateway and metrics store): a new revision first takes each step's share of requests, " +
      'and after each pause its success ratio and p99 latency, as the Gateway measured them, are held to the thresholds. A step that fails sends all traffic back ' +
      'to the revision that served, and the new one is DEPLOY_FAILED (CanaryAnalysisFailed) with the figures; after the last step it serves all traffic. ' +
      'Not for a rollback (spec.revisionName), a first revision, or an app that scales to zero. Applied in place (no new revision).',
  )
  .meta({
    'x-kubernetes-validations': [
      {
        rule: 'self.steps.isSorted() && self.steps.all(s, self.steps.filter(t, t == s).size() == 1)',
        message: 'steps must be ascending, each once',
      },
    ],
  });
export type CanarySpec = z.infer<typeof canarySchema>;

/** How long an app that scales to zero waits without a request, a minute to a day. */
const idleTime = (description: string) =>
  z.number().int().min(idleSecondsBeforeZero).max(86_400).optional().describe(`${description} (default ${idleSecondsBeforeZero}).`);

/** An environment variable a secret fills: a valid Secret key. */
const secretVariableName = (description: string) =>
  z
    .string()
    .min(1)
    .max(253)
    .regex(/^[-._a-zA-Z0-9]+$/, { message: 'must be a valid Secret key' })
    .describe(description);

/** Which open pull requests get a preview. */
export const previewTriggers = ['all', 'label', 'off'] as const;

/** How many previews a Deployment runs at once when its spec does not say. */
export const defaultMaxPreviews = 5;
/** Which requests from forks get a preview: those a maintainer labelled (the default), all, or none. */
export const previewForkModes = ['label', 'all', 'off'] as const;
export type PreviewForkMode = (typeof previewForkModes)[number];
/** The label a maintainer puts on a fork's request to let it have a preview (previews.forkLabel). */
export const defaultPreviewForkLabel = 'ok-to-preview';

const previewsSchema = z
  .object({
    trigger: z
      .enum(previewTriggers)
      .optional()
      .describe(
        'Which open pull (merge) requests get a preview: all but drafts (the default), those that carry `label`, or none (off: how a PATCH removes the previews).',
      ),
    label: z.string().min(1).max(50).optional().describe('The label a pull request must carry for a preview, with trigger label.'),
    forks: z
      .enum(previewForkModes)
      .optional()
      .describe(
        'Which requests from forks get a preview, once `trigger` admits them: those that carry `forkLabel` (the default: only a maintainer can label a request), all, or none (off). ' +
          "A fork's preview runs as a minimal pod: no ServiceAccount token, none of the deployment's volumes, sidecars, init containers, labels, annotations or pull secrets; " +
          "the label admits the request's code as it is then and after every push, so take it away to stop one.",
      ),
    forkLabel: z
      .string()
      .min(1)
      .max(50)
      .optional()
      .describe(`The label that lets a request from a fork have a preview, with forks label (default ${defaultPreviewForkLabel}).`),
    idleSeconds: idleTime('Seconds without a request before a preview scales to zero, where the installation can'),
    secrets: z
      .array(
        z
          .object({
            name: secretVariableName('Name of the environment variable.'),
            valueFrom: z
              .object({
                secretKeyRef: secretKeySelectorSchema.describe('The Secret key that holds the value (a Secret shared with Berth).'),
              })
              .describe('Where the value comes from.'),
          })
          .describe("A secret of the previews: in place of the deployment's of the same name, or beside them."),
      )
      .max(64)
      .optional()
      .describe(
        "Secrets the previews read in place of the deployment's of the same name (a staging database's address, say), or in addition: keys of Secrets shared with Berth. " +
          "A fork's preview gets none of them unless the installation allows it, as with the deployment's own.",
      )
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    database: z
      .enum(previewDatabases)
      .optional()
      .describe(
        "Where each preview's database begins: empty (the default), or clone: recovered from the deployment's newest completed backup (DatabaseBackup; one is taken when there is none), where the installation's organization policy lists the repository (previewDatabaseClone) and the database is backed up (CloudNativePG and a backup store). " +
          "A request from a fork always gets an empty one. Read when a preview's database is made: a preview keeps the data it began with.",
      ),
    maxConcurrent: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe(
        `Most previews at once (default ${defaultMaxPreviews}): the lowest-numbered requests get them, and one that has a preview keeps it while its request is open.`,
      ),
  })
  .describe(
    "A preview Deployment per open pull request of the repository (GitHub; merge request on GitLab): built from the request's head and rebuilt on every push to it, " +
      "at its own URL, with its own revisions, tracing project and database (empty, or a clone: database), removed when the request closes or merges. It takes the deployment's settings but " +
      "its custom URL, and its secrets unless the request comes from a fork (the installation decides: --preview-fork-secrets). A fork's request waits for a maintainer's label (forks). " +
      'Previews build in slots of their own (--preview-builds-per-organization). It scales to zero when idle where the installation can. ' +
      'Applied in place (no new revision).',
  )
  .meta({
    'x-kubernetes-validations': [
      {
        rule: "!has(self.trigger) || self.trigger != 'label' || has(self.label)",
        message: 'trigger label needs a label',
        fieldPath: '.label',
      },
    ],
  });
export type PreviewsSpec = z.infer<typeof previewsSchema>;

/** What makes a Deployment a preview, set by the controller that makes it. */
export const previewOfSchema = z
  .object({
    deploymentName: z.string().min(1).max(253).describe('The Deployment whose preview this is.'),
    pullRequest: z.number().int().min(1).describe('The number of its pull (merge) request.'),
    fromFork: z
      .boolean()
      .describe("The request comes from a fork: the preview has none of the deployment's secrets unless the installation allows them."),
  })
  .describe('Set on a preview by the controller that made it (absent on any other Deployment). Immutable.')
  .meta({ 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.previewOf is immutable' }] });
export type PreviewOf = z.infer<typeof previewOfSchema>;

const queueWorkerSchema = z
  .object({
    command: z
      .array(z.string().max(4096).describe('A word of the command.'))
      .min(1)
      .max(64)
      .optional()
      .describe(
        "Entrypoint of the queue worker's container, replacing the image's. Absent: the image's own entrypoint, which tells the roles apart by BERTH_ROLE.",
      ),
    args: z
      .array(z.string().max(4096).describe('An argument.'))
      .max(256)
      .optional()
      .describe("Arguments of the queue worker's container, replacing the image's."),
    env: z
      .array(envVarSchema)
      .max(128)
      .optional()
      .describe(
        "Environment of the queue worker only, on top of what the application's containers get (BERTH_ROLE=queue, PORT, the backing services, the secrets): a name given here wins.",
      )
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
  })
  .describe(
    "How the queue worker starts: it runs the application's image (the same revision) with this command and environment, and scales by the queue* fields of resourceSpec. " +
      'Applied in place (no new revision).',
  );

/** An immutable-once-set field of sourceConfig: it may be set later, never changed or removed. */
function immutableOnceSet(path: string): CelRule {
  const parts = path.split('.');
  const hasAll = (root: string) => parts.map((_, i) => `has(${root}.${parts.slice(0, i + 1).join('.')})`).join(' && ');
  return {
    rule: `!(${hasAll('oldSelf')}) || (${hasAll('self')} && self.${path} == oldSelf.${path})`,
    message: `spec.sourceConfig.${path} is immutable once set`,
    fieldPath: `.${path}`,
  };
}

/** How long an agent server's pod told to stop finishes its runs by default: the reference's grace. */
export const defaultRunDrainSeconds = 180;

/** What deleting a Deployment does to its database: kept unless the user chose otherwise. */
/** The installation's backup schedule where a deployment names none (--backup-schedule). */
export const defaultBackupSchedule = '0 3 * * *';
/** How long the records of scheduled backups are kept: their files are kept 14 days (render/database-archive.ts). */
export const scheduledBackupRecordDays = 15;

/** A deployment's backup schedule: five cron fields (UTC), or off. */
export const backupScheduleSchema = z
  .string()
  .max(100)
  .regex(/^(off|[0-9A-Za-z*/,?#-]+( [0-9A-Za-z*/,?#-]+){4})$/, {
    message: 'must be five cron fields (minute hour day month weekday) or off',
  })
  .refine((schedule) => schedule === 'off' || cronAccepts(schedule), { message: 'is not a cron expression croner can read' });

/** Whether croner reads the pattern (in UTC). */
export function cronAccepts(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true, timezone: 'UTC' });
    return true;
  } catch {
    return false;
  }
}

/** Whether a revision that migrates the database waits for a backup of it first (docs/data.md §2.5). */
export const beforeRevisionBackupPolicies = ['required', 'best_effort', 'off'] as const;
export type BeforeRevisionBackupPolicy = (typeof beforeRevisionBackupPolicies)[number];
export const defaultBeforeRevisionBackup: BeforeRevisionBackupPolicy = 'required';

export const databaseBackupsSchema = z
  .object({
    beforeRevision: z
      .enum(beforeRevisionBackupPolicies)
      .optional()
      .describe(
        'Whether a revision that migrates the database (one with a preDeployCommand, or an agent server, whose image differs from the serving one) rolls out only after a backup of it (a DatabaseBackup, reason before-revision, named on the Revision). ' +
          `required (the default): a backup that fails stops the rollout (DEPLOY_FAILED, the backup's words). best_effort: the rollout goes on without it, with a Warning Event BackupSkipped. off: no backup. ` +
          'Only for a database CloudNativePG holds with a backup store; other databases roll out without one.',
      ),
    schedule: backupScheduleSchema
      .optional()
      .describe(
        `When backups of the database are taken: a cron expression of five fields in UTC (minute hour day-of-month month day-of-week), or off. Default: the installation's (--backup-schedule, ${defaultBackupSchedule}). ` +
          `At most one scheduled backup an hour: a tick sooner than that after the last one is passed over (the installation's schedule may have six fields, seconds first, under the same bound). Each is a DatabaseBackup of reason scheduled; those older than ${scheduledBackupRecordDays} days are deleted, as their files are gone from the bucket.`,
      ),
  })
  .describe("Backups of the deployment's database. Applied in place (no new revision).");
export type DatabaseBackups = z.infer<typeof databaseBackupsSchema>;

export const databaseRetentions = ['retain', 'delete'] as const;
export type DatabaseRetention = (typeof databaseRetentions)[number];

/**
 * Databases a team runs itself, each named by a key of a Secret shared with Berth that holds its URI:
 * Berth then runs none of its own for that role. Chosen when the deployment is made (a switch would
 * leave the data behind); the Secret and key named may change.
 */
export const externalDatabaseSchema = z
  .object({
    postgresUri: secretKeySelectorSchema
      .optional()
      .describe(
        'The key of a Secret (labelled berth.dev/secret=shared) whose value is a Postgres URI (postgres://user:password@host:port/db?sslmode=...). ' +
          'Berth runs no Postgres for the deployment, gives the URI to its containers as DATABASE_URI, and holds each new pod until the database accepts it: ' +
          "a revision whose pods cannot reach it is DEPLOY_FAILED with the database's own words, and the previous revision keeps serving. " +
          'Set when the deployment is made, never added or removed later. Previews get a database of their own.',
      ),
    redisUri: secretKeySelectorSchema
      .optional()
      .describe(
        'The key of a Secret (labelled berth.dev/secret=shared) whose value is a Redis URI (redis://:password@host:port/db). ' +
          'Berth runs no Redis for the deployment and gives the URI to its containers as REDIS_URI. Set when the deployment is made, never added or removed later.',
      ),
  })
  .describe("Databases the deployment uses in place of Berth's own. Applied in place (no new revision).")
  .meta({
    'x-kubernetes-validations': [
      { rule: 'has(self.postgresUri) == has(oldSelf.postgresUri)', message: externalChoiceMessage('postgresUri') },
      { rule: 'has(self.redisUri) == has(oldSelf.redisUri)', message: externalChoiceMessage('redisUri') },
    ],
  });
export type ExternalDatabase = z.infer<typeof externalDatabaseSchema>;

function externalChoiceMessage(member: string): string {
  return `spec.sourceConfig.externalDatabase.${member} is chosen when the deployment is made: it cannot be added or removed later (the Secret and key it names may change)`;
}

export const sourceConfigSchema = z
  .object({
    integrationId: uuid('ID of the CodeHostIntegration (its metadata.uid) that reaches the repository. Immutable once set.').optional(),
    repoUrl: repositoryUrl(
      'URL of the repository to build from (no user information, query or fragment), on the host of its integration. A change makes no new revision: ' +
        'the next build (a push with buildOnPush, or a change of sourceRevisionConfig) reads the new repository.',
    ).optional(),
    deploymentType: z
      .enum(deploymentTypes)
      .optional()
      .describe(
        'Tier of the deployment: dev_free, dev, dev_zero, prod, serverless or dedicated. dev_zero and serverless scale to zero after idleSeconds (60) without a request where the installation has a request-driven activator ' +
          'and the deployment a URL; its next request waits while a pod starts. Elsewhere they run as dev. The ScaleToZero condition says which. dedicated keeps at least two API replicas. Immutable once set.',
      ),
    buildOnPush: z
      .boolean()
      .optional()
      .describe('Build and deploy a new revision when the branch moves. Not allowed with a tag as repoRef.'),
    customUrl: httpUrl('URL the deployment is also served at (an Ingress is made for it).').optional(),
    healthCheck: healthCheckSchema.optional(),
    queueWorker: queueWorkerSchema.optional(),
    resourceSpec: resourceSpecSchema.optional(),
    externalDatabase: externalDatabaseSchema.optional(),
    notifications: notificationsSchema.optional(),
    databaseRetention: z
      .enum(databaseRetentions)
      .optional()
      .describe(
        "What becomes of the deployment's Postgres data when the deployment is deleted. retain (the default): its volume claim and password " +
          'stay in the namespace, and a deployment of the same name made there later takes them back. delete: the data is deleted with the deployment. ' +
          'Applied in place (no new revision).',
      ),
    backups: databaseBackupsSchema.optional(),
    listenerId: uuid('ID of the listener that runs a self-hosted deployment. Immutable once set.').optional(),
    listenerConfig: listenerConfigSchema.optional(),
    installCommand: z
      .string()
      .max(4096)
      .optional()
      .describe('Command that installs dependencies before the image is built (codehost and internal_source).'),
    buildCommand: z
      .string()
      .max(4096)
      .optional()
      .describe('Command that builds the application before the image is built (codehost and internal_source).'),
    preDeployCommand: z
      .string()
      .max(4096)
      .optional()
      .describe(
        "Command run once per revision (sh -c), in the revision's image with the application's environment, secrets and database, before any of its pods take traffic: " +
          "database migrations. The revision rolls out once it exits 0; if it fails, the revision is DEPLOY_FAILED (PreDeployFailed) with the command's last lines, and the previous revision keeps serving. " +
          'Not run for the revision that serves already. The image needs a shell. Empty: none (how a PATCH removes it).',
      ),
    smokeTestPath: z
      .string()
      .max(1024)
      .regex(/^(\/|$)/, { message: 'must start with / (or be empty: no smoke test)' })
      .optional()
      .describe(
        'HTTP path on the app port each new pod must answer (2xx or 3xx, as the kubelet counts it) within 60 s of starting, before it takes traffic. ' +
          'A pod that does not is restarted, and a revision whose pods keep failing it is DEPLOY_FAILED while the previous one serves. Empty: none.',
      ),
    canary: canarySchema.optional(),
    previews: previewsSchema.optional(),
    idleSeconds: idleTime(
      'For dev_zero and serverless where they scale to zero: seconds without a request before the deployment scales to zero. Applied in place (no new revision)',
    ),
    runDrainSeconds: z
      .number()
      .int()
      .min(0)
      .max(3600)
      .optional()
      .describe(
        `For an agent server on the installation's durable server: seconds a pod told to stop (a rollout, a scale-in, scale to zero, a node drain) takes no new run and finishes those it has, before it returns the rest to the queue, where another pod resumes each from its last checkpoint (default ${defaultRunDrainSeconds}, the reference's). ` +
          'Applied in place (no new revision).',
      ),
  })
  .describe('Settings applied to the running workloads in place: changing them makes no new revision. Some are immutable once set.')
  .meta({
    'x-kubernetes-validations': [
      immutableOnceSet('integrationId'),
      immutableOnceSet('deploymentType'),
      immutableOnceSet('listenerId'),
      immutableOnceSet('listenerConfig.k8sNamespace'),
      {
        rule: 'has(self.externalDatabase) == has(oldSelf.externalDatabase)',
        message: 'spec.sourceConfig.externalDatabase is chosen when the deployment is made: it cannot be added or removed later',
        fieldPath: '.externalDatabase',
      },
    ],
  });
export type SourceConfig = z.infer<typeof sourceConfigSchema>;

export const sourceRevisionConfigSchema = z
  .object({
    repoRef: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('Branch or reference of the repository to build (refs/tags/... for a tag). Required for codehost.'),
    graphConfigPath: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        'Path of the application configuration file in the sources. Only for codehost and internal_source: an image carries its own.',
      ),
    imageUri: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        'Container image address. Required for external_docker; for internal_docker the deployment waits for it (no revision until it is set); ' +
          'not allowed for codehost and internal_source (the build makes the image).',
      ),
    sourceTarballPath: z
      .string()
      .regex(sourceArchivePathPattern, {
        message: 'must be an object_path answered by POST /v2/deployments/{id}/upload-url (sources/<id>.tar.gz)',
      })
      .optional()
      .describe(
        'The uploaded source archive to build (the object_path of the upload URL, sources/<id>.tar.gz). Only for internal_source, ' +
          'whose deployment waits for it (no revision until it is set).',
      ),
  })
  .describe('Settings of the revision: changing them makes a new Revision.');
export type SourceRevisionConfig = z.infer<typeof sourceRevisionConfigSchema>;

const deploymentSecretSchema = z
  .object({
    name: secretVariableName(
      'Name of the environment variable, and of the key in the <deployment>-secrets Secret when valueFrom is absent.',
    ),
    valueFrom: z
      .object({
        secretKeyRef: secretKeySelectorSchema.describe('The Secret key that holds the value.'),
      })
      .optional()
      .describe('Where the value comes from. Absent: key <name> of the Secret <deployment>-secrets, written by the HTTP API.'),
  })
  .describe('A secret environment variable. The value never sits in the Deployment.');
export type DeploymentSecret = z.infer<typeof deploymentSecretSchema>;

/** A secret as the HTTP interface carries it: the value travels in the request, never into a CR. */
export const secretValueSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._a-zA-Z0-9]+$/, { message: 'must be a valid Secret key' })
      .describe('Name of the secret.'),
    value: z.string().max(1_048_576).describe('Value of the secret.'),
  })
  .describe('A secret and its value.');
export type SecretValue = z.infer<typeof secretValueSchema>;

/**
 * A secret as the HTTP interface names one that stays where it is (its secret_references): an
 * environment variable from a key of a Secret of the organization's namespace, which the Secret shares
 * with Deployments by its label berth.dev/secret. In the spec it is a secret with valueFrom.
 */
export const secretReferenceSchema = z
  .object({
    name: deploymentSecretSchema.shape.name.describe('Name of the environment variable.'),
    secretName: secretKeySelectorSchema.shape.name.describe("Name of the Secret in the organization's namespace."),
    secretKey: secretKeySelectorSchema.shape.key.describe('Key of the value in that Secret.'),
  })
  .describe("An environment variable from a key of a Secret of the organization's namespace (labelled berth.dev/secret).");
export type SecretReference = z.infer<typeof secretReferenceSchema>;

/** The spec's secret for a reference. */
export function secretOfReference(reference: SecretReference): DeploymentSecret {
  return { name: reference.name, valueFrom: { secretKeyRef: { name: reference.secretName, key: reference.secretKey } } };
}

/** The reference a spec's secret is, when its value comes from a Secret of the namespace. */
export function referenceOfSecret(secret: {
  readonly name: string;
  readonly valueFrom?: { readonly secretKeyRef: { readonly name: string; readonly key: string } } | undefined;
}): SecretReference | undefined {
  const ref = secret.valueFrom?.secretKeyRef;
  return ref ? { name: secret.name, secretName: ref.name, secretKey: ref.key } : undefined;
}

/** A member that belongs to some sources only: a Deployment of another source that sets one is refused. */
function sourceOnlyRule({ path, sources, why }: ReturnType<typeof sourceOnlyMembers>[number]): CelRule {
  return {
    rule: `self.source in [${sources.map((source) => `'${source}'`).join(', ')}] || !has(self.${path})`,
    message: `spec.${path} applies only when source is ${sources.join(' or ')}${why ? `: ${why}` : ''}`,
    fieldPath: `.${path}`,
    reason: 'FieldValueForbidden',
  };
}

const revisionConfig = 'spec.sourceRevisionConfig';

/** The members a source requires (an internal_docker deployment may instead wait for its first image). */
function requiredRules(source: DeploymentSource): CelRule[] {
  return (sourceKind(source)?.required ?? []).map((path) => ({
    rule: `self.source != '${source}' || has(self.${path})`,
    message: `spec.${path} is required when source is ${source}`,
    fieldPath: `.${path}`,
    reason: 'FieldValueRequired',
  }));
}
const sourceConfig = 'spec.sourceConfig';

export const deploymentSpecSchema = z
  .object({
    source: deploymentSourceSchema.meta({
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.source is immutable' }],
    }),
    sourceConfig: sourceConfigSchema.default({}),
    sourceRevisionConfig: sourceRevisionConfigSchema.default({}),
    secrets: z
      .array(deploymentSecretSchema)
      .max(256)
      .optional()
      .describe('Secret environment variables of the application.')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    revisionName: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe('Pins the Revision to serve (a rollback). Absent: the latest Revision is served.'),
    trackedPackages: trackedPackagesSchema
      .optional()
      .describe(
        'Packages the next revision is made with, as the deploy tool reported them (name:version): copied to each new Revision. A change alone makes no revision.',
      ),
    previewOf: previewOfSchema.optional(),
  })
  .describe('Desired state of the Deployment.')
  .meta({
    'x-kubernetes-validations': [
      ...sourceNames.flatMap(requiredRules),
      ...sourceOnlyMembers().map(sourceOnlyRule),
      {
        rule:
          "!has(self.sourceRevisionConfig.repoRef) || !self.sourceRevisionConfig.repoRef.startsWith('refs/tags/') || " +
          '!has(self.sourceConfig.buildOnPush) || !self.sourceConfig.buildOnPush',
        message: `${sourceConfig}.buildOnPush must be false when ${revisionConfig}.repoRef is a tag (refs/tags/...): a tag never moves`,
        fieldPath: '.sourceConfig.buildOnPush',
        reason: 'FieldValueForbidden',
      },
    ],
  });
export type DeploymentSpec = z.infer<typeof deploymentSpecSchema>;

export const deploymentPhases = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'] as const;
export type DeploymentPhase = (typeof deploymentPhases)[number];

export const deploymentScalingSchema = z
  .object({
    replicas: z.number().int().min(0).describe("The application's replicas now, as its autoscaler counts them."),
    desiredReplicas: z.number().int().min(0).describe('What its autoscaler asks for now, within minScale..maxScale.'),
    lastScaleTime: z.string().max(64).optional().describe('When the autoscaler last changed the number of replicas.'),
    reason: z
      .string()
      .max(128)
      .optional()
      .describe(
        "The autoscaler's reason for where it stands, e.g. SucceededRescale, TooManyReplicas, or FailedGetExternalMetric when it cannot read requests in flight.",
      ),
    message: z
      .string()
      .max(1024)
      .optional()
      .describe('What the autoscaler says about it, e.g. "the desired count is more than the maximum replica count".'),
  })
  .describe(
    "What the application's autoscaler (Berth's HorizontalPodAutoscaler, or KEDA's for a ScaledObject) is doing; absent without one (scaled to zero).",
  );
export type DeploymentScaling = z.infer<typeof deploymentScalingSchema>;

/** What a canary measured in a step: the Gateway's figures of the new revision, and the stable one's p99. */
export const canaryFiguresSchema = z
  .object({
    requests: z.number().min(0).describe("Requests the new revision answered in the step's window."),
    successRatio: z.number().min(0).max(1).optional().describe('Share of them that answered other than 5xx.'),
    latencyP99Seconds: z.number().min(0).optional().describe("The new revision's p99 latency, in seconds."),
    stableLatencyP99Seconds: z.number().min(0).optional().describe("The stable revision's p99 latency over the same window, in seconds."),
    windowSeconds: z.number().int().min(0).describe('The window the figures cover, in seconds.'),
  })
  .describe("What the step's analysis read from the Gateway's metrics.");
export type CanaryFigures = z.infer<typeof canaryFiguresSchema>;

export const canaryPhases = ['Starting', 'Analyzing', 'Promoting', 'Failed'] as const;
export type CanaryPhase = (typeof canaryPhases)[number];

export const canaryStatusSchema = z
  .object({
    revisionName: z.string().max(253).describe('The Revision on trial.'),
    phase: z
      .enum(canaryPhases)
      .describe(
        "Starting: its pods come up, with no traffic. Analyzing: it takes the step's weight. Promoting: it passed every step and rolls out to all replicas. Failed: all traffic went back.",
      ),
    step: z.number().int().min(0).max(10).describe('The step it is at, from 1 (0 while Starting).'),
    steps: z.number().int().min(1).max(10).describe('How many steps the canary has.'),
    weight: z.number().int().min(0).max(100).describe('Percent of requests it takes now.'),
    stepStartedAt: z.string().max(64).describe('When the current step (or phase) began (RFC 3339).'),
    reason: z.string().max(128).optional().describe('Why it failed: CanaryAnalysisFailed, or what its pods said (CrashLoopBackOff, ...).'),
    message: z.string().max(1024).optional().describe('What the last analysis found.'),
    figures: canaryFiguresSchema.optional(),
  })
  .describe('Where a canary rollout stands: absent when none runs and none failed for the target revision.');

export const deploymentStatusSchema = z
  .object({
    status: z
      .enum(deploymentPhases)
      .optional()
      .describe(
        'Lifecycle state: AWAITING_DATABASE, READY, UNUSED, AWAITING_DELETE or UNKNOWN (also while a NetworkPolicy keeps the relay of its requests from its pods: condition Stalled, reason PathBlocked).',
      ),
    latestRevisionName: z.string().max(253).optional().describe('Name of the newest Revision.'),
    latestRevisionId: z.string().max(64).optional().describe('metadata.uid of the newest Revision.'),
    activeRevisionName: z.string().max(253).optional().describe('Name of the Revision being served.'),
    activeRevisionId: z
      .string()
      .max(64)
      .optional()
      .describe('metadata.uid of the Revision being served; moves only when a Revision reaches DEPLOYED.'),
    imageVersion: z.string().max(1024).optional().describe('Image version of the deployment.'),
    url: z
      .string()
      .max(2048)
      .optional()
      .describe(
        "Where the application answers: the URL the installation gives every deployment (through its Gateway) when it gives one, else its customUrl when set, else its Service's cluster address.",
      ),
    clusterUrl: z
      .string()
      .max(2048)
      .optional()
      .describe("The application Service's address inside the cluster (reachable from the host under berth dev)."),
    scaling: deploymentScalingSchema.optional(),
    customHostClaim: z
      .object({
        host: z.string().max(253).describe('The host of spec.sourceConfig.customUrl.'),
        claimedAt: z.string().max(64).describe("When the controller first accepted this Deployment's claim of the host (RFC 3339)."),
      })
      .optional()
      .describe(
        'The custom URL host this Deployment holds, and since when: a host belongs to its first accepted claim, whatever the age of a Deployment that claims it later. Absent while the claim is refused.',
      ),
    canary: canaryStatusSchema.optional(),
    observedGeneration: observedGenerationSchema.optional(),
    updatedAt: updatedAtSchema.optional(),
    conditions: conditionsSchema.optional(),
  })
  .describe('Observed state of the Deployment, written by the controller.');
export type DeploymentStatus = z.infer<typeof deploymentStatusSchema>;

export type Deployment = KindObject<'Deployment', DeploymentSpec, DeploymentStatus>;

export const deploymentKind = {
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  shortNames: ['bdeploy'],
  apiVersion,
} as const satisfies KindDescriptor;

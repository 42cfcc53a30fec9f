// Pure mappings from cached objects to the interface's response bodies. id is metadata.uid,
// organization_id the namespace's label, created_at the creationTimestamp, updated_at what the
// controller recorded in status (the creationTimestamp until it has). Secret values never appear.
import {
  canaryStatusSchema,
  conditionsSchema,
  oauthProviderSpecSchema,
  previewOfSchema,
  revisionSourceConfigSchema,
  sourceConfigSchema,
  referenceOfSecret,
  secretReferenceSchema,
  timestampText,
  toWire,
  type DatabaseBackup,
  type DatabaseRestore,
  type Deployment,
  type OAuthProvider,
  type Revision,
} from '../api/index.ts';
import { pullRequestUrl, type CodeHostProviderName } from '../api/codehost-providers.ts';
import type { DeepReadonly } from '../runtime/types.ts';
import {
  backupStateOf,
  maskedSecretValue,
  restoreStateOf,
  type DatabaseBackupResponse,
  type DatabaseRestoreResponse,
  type DeploymentResponse,
  type ProviderResponse,
  type RevisionResponse,
} from './wire-schemas.ts';

export function providerResponse(provider: DeepReadonly<OAuthProvider>, organizationId: string): ProviderResponse {
  const { spec, metadata, status } = provider;
  const createdAt = timestampText(metadata.creationTimestamp) ?? '';
  // The spec as the API server stored it (its defaults applied), spelled as on the wire; where the secret
  // is stays inside.
  const { client_secret_ref: _secretRef, ...members } = toWire(oauthProviderSpecSchema, spec) as Record<string, unknown>;
  return {
    provider_type: null,
    mcp_server_url: null,
    ...members,
    id: metadata.uid ?? '',
    organization_id: organizationId,
    created_at: createdAt,
    updated_at: status?.updatedAt ?? createdAt,
  } as ProviderResponse;
}

/** What a deployment's response reads beside it: the commit its latest revision resolved to
 * (repo_commit_sha appears in responses only), and its integration's code host (a preview's link). */
export interface DeploymentContext {
  latestRevision?: DeepReadonly<Revision> | undefined;
  provider?: CodeHostProviderName | undefined;
}

export function deploymentResponse(
  deployment: DeepReadonly<Deployment>,
  organizationId: string,
  { latestRevision, provider }: DeploymentContext = {},
): DeploymentResponse {
  const { spec, metadata, status } = deployment;
  const createdAt = timestampText(metadata.creationTimestamp) ?? '';
  const repoCommitSha = latestRevision?.status?.repoCommitSha ?? latestRevision?.spec.sourceRevisionConfig?.repoCommitSha;
  const revisionConfig = { ...spec.sourceRevisionConfig, ...(repoCommitSha ? { repoCommitSha } : {}) };
  return {
    name: metadata.name ?? '',
    source: spec.source,
    source_config: toWire(sourceConfigSchema, spec.sourceConfig ?? {}) as DeploymentResponse['source_config'],
    source_revision_config: toWire(revisionSourceConfigSchema, revisionConfig) as DeploymentResponse['source_revision_config'],
    // A secret whose value stays in a Secret of the namespace is a reference; the others' values are masked.
    secrets: (spec.secrets ?? []).filter((secret) => !secret.valueFrom).map((secret) => ({ name: secret.name, value: maskedSecretValue })),
    secret_references: (spec.secrets ?? []).flatMap((secret) => {
      const reference = referenceOfSecret(secret);
      return reference ? [toWire(secretReferenceSchema, reference) as DeploymentResponse['secret_references'][number]] : [];
    }),
    id: metadata.uid ?? '',
    created_at: createdAt,
    updated_at: status?.updatedAt ?? createdAt,
    status: status?.status ?? 'UNKNOWN',
    latest_revision_id: status?.latestRevisionId ?? null,
    latest_revision_status: latestRevision?.status?.status ?? null,
    active_revision_id: status?.activeRevisionId ?? null,
    image_version: status?.imageVersion ?? null,
    url: status?.url ?? null,
    is_preview: spec.previewOf !== undefined,
    preview_of: spec.previewOf
      ? {
          ...(toWire(previewOfSchema, spec.previewOf) as Omit<NonNullable<DeploymentResponse['preview_of']>, 'pull_request_url'>),
          pull_request_url: pullRequestUrl(provider, spec.sourceConfig?.repoUrl ?? '', spec.previewOf.pullRequest) ?? null,
        }
      : null,
    canary: status?.canary ? (toWire(canaryStatusSchema, status.canary) as DeploymentResponse['canary']) : null,
    conditions: toWire(conditionsSchema, status?.conditions ?? []) as DeploymentResponse['conditions'],
    tenant_id: organizationId,
  };
}

/** A Revision as the API answers it; `backupId` is the uid of the DatabaseBackup its status names. */
export function revisionResponse(revision: DeepReadonly<Revision>, deploymentId: string, backupId?: string): RevisionResponse {
  const { spec, metadata, status } = revision;
  const createdAt = timestampText(metadata.creationTimestamp) ?? '';
  const lastTransition = (status?.conditions ?? [])
    .map((condition) => timestampText(condition.lastTransitionTime))
    .filter((time): time is string => time !== undefined)
    .sort()
    .at(-1);
  const repoCommitSha = status?.repoCommitSha ?? spec.sourceRevisionConfig?.repoCommitSha;
  return {
    id: metadata.uid ?? '',
    deployment_id: deploymentId,
    name: metadata.name ?? '',
    source: spec.source,
    source_revision_config: toWire(revisionSourceConfigSchema, {
      ...spec.sourceRevisionConfig,
      ...(repoCommitSha ? { repoCommitSha } : {}),
    }) as RevisionResponse['source_revision_config'],
    status: status?.status ?? 'UNKNOWN',
    status_message: status?.message ?? null,
    image_uri: status?.imageUri ?? spec.sourceRevisionConfig?.imageUri ?? null,
    tracked_packages: [...(spec.trackedPackages ?? [])],
    secret_names: [...(spec.secretNames ?? [])],
    backup_id: backupId ?? null,
    created_at: createdAt,
    updated_at: lastTransition && lastTransition > createdAt ? lastTransition : createdAt,
  };
}

/** A DatabaseRestore as the API answers it, with the uids of the backups it names. */
export function databaseRestoreResponse(
  restore: DeepReadonly<DatabaseRestore>,
  deploymentId: string,
  backups: { restored?: string; before?: string },
): DatabaseRestoreResponse {
  const { spec, metadata, status } = restore;
  return {
    id: metadata.uid ?? '',
    deployment_id: deploymentId,
    name: metadata.name ?? '',
    backup_id: backups.restored ?? null,
    backup_first: spec.backupFirst ?? true,
    target_time: spec.targetTime ?? null,
    backup_before_id: backups.before ?? null,
    status: restoreStateOf(status?.phase ?? 'Pending'),
    status_message: status?.message ?? null,
    database_name: status?.databaseName ?? null,
    retired_database_name: status?.retiredDatabaseName ?? null,
    switched_at: status?.switchedAt ?? null,
    created_at: timestampText(metadata.creationTimestamp) ?? '',
  };
}

/** A DatabaseBackup as the API answers it; `revisionId` is the uid of the Revision it was taken before. */
export function databaseBackupResponse(
  backup: DeepReadonly<DatabaseBackup>,
  deploymentId: string,
  revisionId: string | undefined,
): DatabaseBackupResponse {
  const { spec, metadata, status } = backup;
  return {
    id: metadata.uid ?? '',
    deployment_id: deploymentId,
    name: metadata.name ?? '',
    reason: spec.reason ?? 'manual',
    revision_id: revisionId ?? null,
    status: backupStateOf(status?.phase),
    status_message: status?.message ?? null,
    begin_lsn: status?.beginLSN ?? null,
    end_lsn: status?.endLSN ?? null,
    started_at: status?.startedAt ?? null,
    stopped_at: status?.stoppedAt ?? null,
    created_at: timestampText(metadata.creationTimestamp) ?? '',
  };
}

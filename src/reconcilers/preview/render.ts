// A preview Deployment of one pull request: the parent's build and check settings (by allow-list) built
// from the request's head ref, with its own name, URL, revisions and empty database, and the parent's
// secrets unless the request comes from a fork the installation does not trust. A fork's gets a minimal
// pod. Owned by the parent, so it goes with it. Pure.
import {
  apiVersion,
  childNames,
  labels,
  resourceSizingFields,
  type Deployment,
  type DeploymentSpec,
  type SourceConfig,
} from '../../api/index.ts';
import { boundedName, deploymentLabelValue, dnsLabelBase } from '../../api/child-names.ts';
import { codeHostProvider, type CodeHostProviderName } from '../../api/codehost-providers.ts';
import type { PullRequest } from '../../codehost/pull-request.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import { ownerReference } from '../deployment/index.ts';

/** The preview's name: the parent's, then -pr-<number> (cut with a hash to stay a DNS label). */
export function previewName(parentName: string, number: number): string {
  return boundedName(dnsLabelBase(parentName), `-pr-${number}`);
}

export interface PreviewSettings {
  provider: CodeHostProviderName;
  /** A request from a fork gets the parent's secrets too (--preview-fork-secrets allow). */
  forkSecrets: boolean;
}

export function renderPreview(parent: DeepReadonly<Deployment>, request: PullRequest, settings: PreviewSettings): Deployment {
  const parentName = parent.metadata.name ?? '';
  const previews = parent.spec.sourceConfig?.previews;
  const sourceConfig = previewSourceConfig(parent.spec.sourceConfig ?? {}, request.fromFork);
  const graphConfigPath = parent.spec.sourceRevisionConfig?.graphConfigPath;
  const spec: DeploymentSpec = {
    source: parent.spec.source,
    sourceConfig: {
      ...sourceConfig,
      // Rebuilt on every push to the request; idle, it scales to zero where the installation can.
      buildOnPush: true,
      deploymentType: 'dev_zero',
      ...(previews?.idleSeconds ? { idleSeconds: previews.idleSeconds } : {}),
      // Its database is its own (empty, or a clone: previews.database), and goes with it.
      databaseRetention: 'delete',
    },
    sourceRevisionConfig: {
      repoRef: codeHostProvider(settings.provider).pullRequestRef(request.number),
      ...(graphConfigPath ? { graphConfigPath } : {}),
    },
    secrets: request.fromFork && !settings.forkSecrets ? [] : previewSecrets(parent),
    previewOf: { deploymentName: parentName, pullRequest: request.number, fromFork: request.fromFork },
  };
  return {
    apiVersion,
    kind: 'Deployment',
    metadata: {
      name: previewName(parentName, request.number),
      namespace: parent.metadata.namespace ?? '',
      labels: { [labels.previewOf]: deploymentLabelValue(parentName), [labels.pullRequest]: String(request.number) },
      ownerReferences: [ownerReference({ name: parentName, namespace: parent.metadata.namespace ?? '', uid: parent.metadata.uid ?? '' })],
    },
    spec,
  };
}

/** What a preview takes of its parent's sourceConfig: what builds and checks it, by name, never what
 * routes, releases or places it (custom URL, canary, listener, tier). A fork's code gets a minimal pod:
 * sizes only, and of the queue worker's environment only plain values. */
function previewSourceConfig(parent: DeepReadonly<SourceConfig>, fromFork: boolean): SourceConfig {
  const copied: SourceConfig = structuredClone(pick(parent as SourceConfig, copiedSettings));
  if (!fromFork) return copied;
  const { resourceSpec, queueWorker } = copied;
  return {
    ...copied,
    ...(resourceSpec ? { resourceSpec: pick(resourceSpec, resourceSizingFields) } : {}),
    ...(queueWorker ? { queueWorker: { ...queueWorker, env: queueWorker.env?.filter((entry) => entry.valueFrom === undefined) } } : {}),
  };
}

/** The settings a preview takes from its parent as they are. */
const copiedSettings = [
  'integrationId',
  'repoUrl',
  'installCommand',
  'buildCommand',
  'preDeployCommand',
  'smokeTestPath',
  'healthCheck',
  'queueWorker',
  'resourceSpec',
] as const satisfies readonly (keyof SourceConfig)[];

function pick<T extends object, K extends keyof T>(object: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.filter((key) => object[key] !== undefined).map((key) => [key, object[key]])) as Pick<T, K>;
}

/** The parent's secrets, read where the parent reads them (its own values from its Secret, shared ones as
 * named), with the previews' own (previews.secrets) in place of those of the same name. */
function previewSecrets(parent: DeepReadonly<Deployment>): DeploymentSpec['secrets'] {
  const own = childNames(parent.metadata.name ?? '').secrets;
  const overrides = parent.spec.sourceConfig?.previews?.secrets ?? [];
  const overridden = new Set(overrides.map((secret) => secret.name));
  const inherited = (parent.spec.secrets ?? [])
    .filter((secret) => !overridden.has(secret.name))
    .map((secret) => ({
      name: secret.name,
      valueFrom: { secretKeyRef: secret.valueFrom ? { ...secret.valueFrom.secretKeyRef } : { name: own, key: secret.name } },
    }));
  return [
    ...inherited,
    ...overrides.map((secret) => ({ name: secret.name, valueFrom: { secretKeyRef: { ...secret.valueFrom.secretKeyRef } } })),
  ];
}

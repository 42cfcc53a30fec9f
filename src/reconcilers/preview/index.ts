// The preview controller: for each Deployment that asks for previews (sourceConfig.previews), one
// preview Deployment per open pull request of its repository, found by polling the code host through
// the integration's client (the registry the HTTP API lists repositories through). It makes, updates
// and removes previews only; each is then an ordinary Deployment, built from its request's head ref on
// every push by the Deployment controller, which alone writes every Deployment's status.
import {
  codeHostEventAnnotation,
  codeHostIntegrationKind,
  deploymentKind,
  repositoryHostRefusal,
  tracingProjectKind,
  type CodeHostIntegration,
  type Deployment,
} from '../../api/index.ts';
import type { CodeHostRegistry } from '../../codehost/registry.ts';
import { repositoryPathOf, type PullRequest } from '../../codehost/pull-request.ts';
import type { CodeHostProviderName } from '../../api/codehost-providers.ts';
import type { SecretLike } from '../../codehost/credentials.ts';
import { upToDate, withAppliedHash } from '../../runtime/applied-hash.ts';
import {
  unlessStatusOnly,
  type Controller,
  type DeepReadonly,
  type Informer,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
} from '../../runtime/index.ts';
import { createDeploymentWriter, resolveIntegration, type DeploymentWriter } from '../deployment/index.ts';
import { decidePreviews } from './decide.ts';
import { previewName, renderPreview } from './render.ts';

export interface PreviewControllerOptions {
  registry: Pick<CodeHostRegistry, 'pullRequestsOf'>;
  readSecret: (namespace: string, name: string) => SecretLike | undefined;
  /** How often the open pull requests are read again: the branch poll interval. */
  intervalMs: number;
  /** Previews of requests from forks get the parent's secrets too. */
  forkSecrets: boolean;
  namespaces?: string[];
}

/** What the preview controller's functions share: its caches, its writer and the installation's options. */
interface PreviewScope {
  deployments: Informer<Deployment>;
  integrations: Informer<CodeHostIntegration>;
  writer: DeploymentWriter;
  options: PreviewControllerOptions;
}

export function registerPreviewController(manager: Manager, options: PreviewControllerOptions): Controller {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const deployments = manager.informer<Deployment>(deploymentKind, scope);
  const previews: PreviewScope = {
    deployments,
    integrations: manager.informer<CodeHostIntegration>(codeHostIntegrationKind, scope),
    writer: createDeploymentWriter(manager.kubeConfig),
    options,
  };
  return manager.addController({
    name: 'preview',
    informer: deployments,
    changed: unlessStatusOnly,
    // A preview deleted by hand is made again; one whose request closed is not.
    owns: [{ informer: deployments, changed: unlessStatusOnly }],
    reconcile: (key, context) => reconcilePreviews(previews, key, context),
  });
}

async function reconcilePreviews(
  scope: PreviewScope,
  key: { namespace: string; name: string },
  context: ReconcileContext,
): Promise<ReconcileResult | void> {
  const { deployments, options } = scope;
  const parent = deployments.get(key.namespace, key.name);
  if (!parent || parent.metadata.deletionTimestamp || parent.spec.previewOf) return;
  const existing = deployments
    .byIndex('owner', parent.metadata.uid ?? '')
    .filter((child) => child.spec.previewOf?.deploymentName === parent.metadata.name && child.metadata.namespace === key.namespace);
  const config = parent.spec.sourceConfig?.previews;
  if (!config && existing.length === 0) return;
  const open = config ? await openRequests(scope, parent, context) : [];
  // The code host did not answer: the previews stay as they are until it does.
  if (open === undefined) return { requeueAfter: options.intervalMs };
  const choice = decidePreviews(
    config,
    open,
    existing.map((child) => child.spec.previewOf!.pullRequest),
  );
  const provider = integrationOf(scope, parent)?.spec.provider ?? 'github';
  for (const request of choice.wanted) await keepPreview(scope, parent, request, provider, context);
  for (const number of choice.removed) await removePreview(scope, parent, number, context);
  if (choice.overCap.length > 0)
    context.logger.info({ overCap: choice.overCap }, 'pull requests without a preview: the deployment has its most previews');
  return config ? { requeueAfter: options.intervalMs } : undefined;
}

/** Makes or updates the request's preview, unless its name is another Deployment's. */
async function keepPreview(
  scope: PreviewScope,
  parent: DeepReadonly<Deployment>,
  request: PullRequest,
  provider: CodeHostProviderName,
  context: ReconcileContext,
): Promise<void> {
  const desired = withAppliedHash(renderPreview(parent, request, { provider, forkSecrets: scope.options.forkSecrets }));
  const name = desired.metadata!.name!;
  const cached = scope.deployments.get(parent.metadata.namespace ?? '', name);
  if (cached && !cached.metadata.ownerReferences?.some((owner) => owner.uid === parent.metadata.uid)) {
    const message = `Deployment ${name} exists already: pull request ${request.number} gets no preview.`;
    context.recorder.event(parent, 'Warning', 'PreviewNameTaken', message);
    return;
  }
  if (upToDate(cached, desired)) return;
  await scope.writer.apply(desired);
  if (!cached) context.recorder.event(parent, 'Normal', 'PreviewCreated', `Deployment ${name} previews pull request ${request.number}.`);
}

async function removePreview(
  scope: PreviewScope,
  parent: DeepReadonly<Deployment>,
  number: number,
  context: ReconcileContext,
): Promise<void> {
  const namespace = parent.metadata.namespace ?? '';
  const name = previewName(parent.metadata.name ?? '', number);
  await scope.writer.delete(deploymentKind, namespace, name);
  // A preview's tracing project has no owner (a Deployment's outlives it): it goes with the preview.
  await scope.writer.delete(tracingProjectKind, namespace, name);
  const message = `Deployment ${name} removed: pull request ${number} closed or no longer asks for one.`;
  context.recorder.event(parent, 'Normal', 'PreviewRemoved', message);
}

function integrationOf(scope: PreviewScope, parent: DeepReadonly<Deployment>): DeepReadonly<CodeHostIntegration> | undefined {
  const resolved = resolveIntegration(
    parent.spec.source,
    parent.spec.sourceConfig?.integrationId,
    scope.integrations.list(parent.metadata.namespace ?? ''),
  );
  return 'integration' in resolved ? resolved.integration : undefined;
}

/** The repository's open requests, or undefined (with a Warning Event) when they cannot be read. */
async function openRequests(scope: PreviewScope, parent: DeepReadonly<Deployment>, context: ReconcileContext) {
  const integration = integrationOf(scope, parent);
  const repoUrl = parent.spec.sourceConfig?.repoUrl ?? '';
  const path = repositoryPathOf(repoUrl);
  const refused = integration && repositoryHostRefusal(repoUrl, integration.spec, 'spec.sourceConfig.repoUrl');
  if (!integration || !path || refused) {
    context.recorder.event(parent, 'Warning', 'PreviewsUnavailable', refused ?? 'The repository or its integration is not known yet.');
    return undefined;
  }
  try {
    const { registry, readSecret } = scope.options;
    return await registry.pullRequestsOf(integration, readSecret, path, parent.metadata.annotations?.[codeHostEventAnnotation]);
  } catch (error) {
    context.recorder.event(parent, 'Warning', 'PreviewsUnavailable', `The pull requests could not be read: ${(error as Error).message}`);
    return undefined;
  }
}

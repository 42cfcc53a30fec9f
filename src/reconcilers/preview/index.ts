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
import { repositoryPathOf } from '../../codehost/pull-request.ts';
import type { SecretLike } from '../../codehost/credentials.ts';
import { upToDate, withAppliedHash } from '../../runtime/applied-hash.ts';
import {
  unlessStatusOnly,
  type Controller,
  type DeepReadonly,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
} from '../../runtime/index.ts';
import { createDeploymentWriter } from '../deployment/writer.ts';
import { resolveIntegration } from '../deployment/inputs.ts';
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

export function registerPreviewController(manager: Manager, options: PreviewControllerOptions): Controller {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const deployments = manager.informer<Deployment>(deploymentKind, scope);
  const integrations = manager.informer<CodeHostIntegration>(codeHostIntegrationKind, scope);
  const writer = createDeploymentWriter(manager.kubeConfig);

  async function reconcile(key: { namespace: string; name: string }, context: ReconcileContext): Promise<ReconcileResult | void> {
    const parent = deployments.get(key.namespace, key.name);
    if (!parent || parent.metadata.deletionTimestamp || parent.spec.previewOf) return;
    const existing = deployments
      .byIndex('owner', parent.metadata.uid ?? '')
      .filter((child) => child.spec.previewOf?.deploymentName === parent.metadata.name && child.metadata.namespace === key.namespace);
    const config = parent.spec.sourceConfig?.previews;
    if (!config && existing.length === 0) return;
    const open = config ? await openRequests(parent, context) : [];
    // The code host did not answer: the previews stay as they are until it does.
    if (open === undefined) return { requeueAfter: options.intervalMs };
    const choice = decidePreviews(
      config,
      open,
      existing.map((child) => child.spec.previewOf!.pullRequest),
    );
    const provider = integrationOf(parent)?.spec.provider ?? 'github';
    for (const request of choice.wanted) {
      const desired = withAppliedHash(renderPreview(parent, request, { provider, forkSecrets: options.forkSecrets }));
      const name = desired.metadata!.name!;
      const cached = deployments.get(key.namespace, name);
      if (cached && !cached.metadata.ownerReferences?.some((owner) => owner.uid === parent.metadata.uid)) {
        context.recorder.event(
          parent,
          'Warning',
          'PreviewNameTaken',
          `Deployment ${name} exists already: pull request ${request.number} gets no preview.`,
        );
        continue;
      }
      if (upToDate(cached, desired)) continue;
      await writer.apply(desired);
      if (!cached)
        context.recorder.event(parent, 'Normal', 'PreviewCreated', `Deployment ${name} previews pull request ${request.number}.`);
    }
    for (const number of choice.removed) {
      const name = previewName(parent.metadata.name ?? '', number);
      await writer.delete(deploymentKind, key.namespace, name);
      // A preview's tracing project has no owner (a Deployment's outlives it): it goes with the preview.
      await writer.delete(tracingProjectKind, key.namespace, name);
      context.recorder.event(
        parent,
        'Normal',
        'PreviewRemoved',
        `Deployment ${name} removed: pull request ${number} closed or no longer asks for one.`,
      );
    }
    if (choice.overCap.length > 0)
      context.logger.info({ overCap: choice.overCap }, 'pull requests without a preview: the deployment has its most previews');
    return config ? { requeueAfter: options.intervalMs } : undefined;
  }

  function integrationOf(parent: DeepReadonly<Deployment>): DeepReadonly<CodeHostIntegration> | undefined {
    const resolved = resolveIntegration(
      parent.spec.source,
      parent.spec.sourceConfig?.integrationId,
      integrations.list(parent.metadata.namespace ?? ''),
    );
    return 'integration' in resolved ? resolved.integration : undefined;
  }

  /** The repository's open requests, or undefined (with a Warning Event) when they cannot be read. */
  async function openRequests(parent: DeepReadonly<Deployment>, context: ReconcileContext) {
    const integration = integrationOf(parent);
    const repoUrl = parent.spec.sourceConfig?.repoUrl ?? '';
    const path = repositoryPathOf(repoUrl);
    const refused = integration && repositoryHostRefusal(repoUrl, integration.spec, 'spec.sourceConfig.repoUrl');
    if (!integration || !path || refused) {
      context.recorder.event(parent, 'Warning', 'PreviewsUnavailable', refused ?? 'The repository or its integration is not known yet.');
      return undefined;
    }
    try {
      return await options.registry.pullRequestsOf(
        integration,
        options.readSecret,
        path,
        parent.metadata.annotations?.[codeHostEventAnnotation],
      );
    } catch (error) {
      context.recorder.event(parent, 'Warning', 'PreviewsUnavailable', `The pull requests could not be read: ${(error as Error).message}`);
      return undefined;
    }
  }

  return manager.addController({
    name: 'preview',
    informer: deployments,
    changed: unlessStatusOnly,
    // A preview deleted by hand is made again; one whose request closed is not.
    owns: [{ informer: deployments, changed: unlessStatusOnly }],
    reconcile,
  });
}

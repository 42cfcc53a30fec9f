// Wires the CodeHostIntegration reconciler into a Manager. Credentials Secrets carry no
// ownerReference (users or GitOps create them), so an index maps a Secret back to the integrations
// that name it: creating, rotating or deleting the Secret re-verifies them at once.
import { codeHostIntegrationKind, fieldManager as berthFieldManager, type CodeHostIntegration } from '../../api/index.ts';
import { CodeHostRegistry, type SecretLike } from '../../codehost/index.ts';
import { writeStatus } from '../../runtime/status-write.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { objectKey, type DeepReadonly } from '../../runtime/types.ts';
import { readableSecrets } from '../../workloads/readable-secrets.ts';
import { createCodeHostIntegrationReconciler } from './reconcile.ts';
import { defaultTiming } from './status.ts';
import { optional } from '../../runtime/index.ts';

/** Index of integrations by the Secret their credentialsSecretRef names, as `namespace/name`. */
export const integrationsByCredentialsSecret = 'codehostintegration-credentials-secret';

function credentialsSecretIndex(integration: DeepReadonly<CodeHostIntegration>): string[] {
  const name = integration.spec?.credentialsSecretRef?.name;
  return name ? [`${integration.metadata?.namespace ?? ''}/${name}`] : [];
}

export interface CodeHostIntegrationControllerOptions {
  /** Shared with the HTTP facade, so both use one client (and one App installation token) per integration. */
  registry?: CodeHostRegistry;
  /** Watch only these namespaces. Default: all. */
  namespaces?: string[];
  /** The origins an integration's base URL may name (src/codehost/outbound.ts). Default: the public code hosts. */
  origins?: readonly string[];
  concurrency?: number;
  /** How often credentials are verified again. Default 10 minutes. */
  verifyIntervalMs?: number;
  /** How soon an unreachable code host is asked again. Default 30 s. */
  unreachableRetryMs?: number;
  /** Server-side apply field manager of the status. Default `berth`. */
  fieldManager?: string;
}

export interface CodeHostIntegrationController {
  controller: Controller<CodeHostIntegration>;
  /** The facade lists repositories through this: `registry.repositoriesOf(integration, readSecret)`. */
  registry: CodeHostRegistry;
  /** Reads a Secret from the shared cache, as `registry` expects. */
  readSecret: (namespace: string, name: string) => SecretLike | undefined;
}

export function registerCodeHostIntegrationController(
  manager: Manager,
  options: CodeHostIntegrationControllerOptions = {},
): CodeHostIntegrationController {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const integrations = manager.informer<CodeHostIntegration>(codeHostIntegrationKind, {
    ...scope,
    indexes: { [integrationsByCredentialsSecret]: credentialsSecretIndex },
  });
  const secrets = readableSecrets(manager, options.namespaces);
  const registry = options.registry ?? new CodeHostRegistry({ log: codeHostLog(manager), ...optional('origins', options.origins) });
  const readSecret = (namespace: string, name: string) => secrets.get(namespace, name) as SecretLike | undefined;
  integrations.onDelete((integration) => registry.forget(integration.metadata?.uid ?? ''));

  const kc = manager.kubeConfig;
  const fieldManager = options.fieldManager ?? berthFieldManager;
  const reconcile = createCodeHostIntegrationReconciler(
    {
      getIntegration: (key) => integrations.get(key.namespace, key.name),
      verify: (integration) => registry.verify(integration, readSecret),
      writeStatus: (integration, status) => writeStatus<CodeHostIntegration>(kc, integration, status, fieldManager),
      now: () => new Date(),
    },
    {
      verifyIntervalMs: options.verifyIntervalMs ?? defaultTiming.verifyIntervalMs,
      unreachableRetryMs: options.unreachableRetryMs ?? defaultTiming.unreachableRetryMs,
    },
  );
  const controller = manager.addController<CodeHostIntegration>({
    name: 'codehostintegration',
    // No update filter: the write of a first status (Verifying) is what brings the pass that verifies.
    informer: integrations,
    watches: [
      {
        informer: secrets,
        map: (secret) =>
          integrations
            .byIndex(integrationsByCredentialsSecret, `${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`)
            .map(objectKey),
      },
    ],
    reconcile,
    concurrency: options.concurrency,
  });
  return { controller, registry, readSecret };
}

function codeHostLog(manager: Manager) {
  const logger = manager.logger.child({ component: 'codehost' });
  return { debug: (message: string) => logger.debug(message), warn: (message: string) => logger.warn(message) };
}

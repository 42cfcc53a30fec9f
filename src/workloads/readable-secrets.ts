// The one cache of Secrets every controller reads (api/readable-secrets.ts says which): a watch
// selected by the `berth.dev/secret` label, so Berth holds no Secret it was not given, and one
// informer is shared by the Deployment, CodeHostIntegration and OAuthProvider controllers.
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { readableSecretLabel, readableSecretSelector, readableSecretValues, unlabelledManagedSecretSelector } from '../api/index.ts';
import {
  collectionPath,
  kubeRequest,
  objectPath,
  secretKind,
  type Informer,
  type Logger,
  type Manager,
  optional,
} from '../runtime/index.ts';

export function readableSecrets(manager: Pick<Manager, 'informer'>, namespaces?: string[]): Informer<V1Secret> {
  return manager.informer<V1Secret>(secretKind, { ...optional('namespaces', namespaces), labelSelector: readableSecretSelector });
}

/**
 * Labels the Secrets an earlier Berth made without `berth.dev/secret` (a Deployment's `-secrets` and
 * passwords, an organization's registry credential), so the label-selected cache still finds them. The
 * leader runs it once per term; a cluster where every Secret is labelled costs one list per namespace.
 */
export async function labelManagedSecrets(kc: KubeConfig, namespaces: readonly string[] | undefined, logger: Logger): Promise<void> {
  for (const namespace of namespaces?.length ? namespaces : [undefined]) {
    const list = await kubeRequest<{ items: V1Secret[] }>(kc, {
      method: 'GET',
      path: collectionPath(secretKind, namespace),
      query: { labelSelector: unlabelledManagedSecretSelector },
    });
    for (const secret of list.items) {
      const key = { namespace: secret.metadata!.namespace!, name: secret.metadata!.name! };
      await kubeRequest(kc, {
        method: 'PATCH',
        path: objectPath(secretKind, key),
        contentType: 'application/merge-patch+json',
        body: { metadata: { labels: { [readableSecretLabel]: readableSecretValues.managed } } },
      });
      logger.info(key, 'labelled a Secret Berth made earlier, so that its cache keeps reading it');
    }
  }
}

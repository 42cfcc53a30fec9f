// The OAuthProvider reconciler's writes and direct reads, over the runtime's API client. Secrets are
// read from the API server rather than a cache so that a registration stored a moment ago is seen.
// Every write names Berth's one field manager, so GitOps tools see one owner of what Berth sets.
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { fieldManager, oauthProviderKind, type OAuthProvider, type OAuthProviderStatus } from '../../api/index.ts';
import { isKubeApiError, kubeRequest } from '../../runtime/kube-request.ts';
import { collectionPath, objectPath, secretKind } from '../../runtime/types.ts';
import type { SecretStore } from './reconcile.ts';

export function kubeSecretStore(kc: KubeConfig): SecretStore {
  return {
    async read(namespace, name) {
      try {
        return await kubeRequest<V1Secret>(kc, { method: 'GET', path: objectPath(secretKind, { namespace, name }) });
      } catch (error) {
        if (isKubeApiError(error, 404)) return undefined;
        throw error;
      }
    },
    async create(secret) {
      await kubeRequest(kc, {
        method: 'POST',
        path: collectionPath(secretKind, secret.metadata!.namespace!),
        query: { fieldManager },
        body: secret,
      });
    },
    async replace(secret) {
      const key = { namespace: secret.metadata!.namespace!, name: secret.metadata!.name! };
      await kubeRequest(kc, { method: 'PUT', path: objectPath(secretKind, key), query: { fieldManager }, body: secret });
    },
  };
}

/** PUT on the status subresource with the resourceVersion read: a concurrent change fails with 409 and is retried. */
export async function writeOAuthProviderStatus(
  kc: KubeConfig,
  provider: OAuthProvider,
  status: OAuthProviderStatus,
): Promise<'written' | 'conflict'> {
  const key = { namespace: provider.metadata.namespace!, name: provider.metadata.name! };
  try {
    await kubeRequest(kc, {
      method: 'PUT',
      path: `${objectPath(oauthProviderKind, key)}/status`,
      query: { fieldManager },
      body: { ...provider, apiVersion: oauthProviderKind.apiVersion, kind: oauthProviderKind.kind, status },
    });
    return 'written';
  } catch (error) {
    if (isKubeApiError(error, 409)) return 'conflict';
    throw error;
  }
}

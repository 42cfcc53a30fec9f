// The OAuthProvider reconciler's Secret reads and writes, over the runtime's API client. Secrets are
// read from the API server rather than a cache so that a registration stored a moment ago is seen.
// Every write names Berth's one field manager, so GitOps tools see one owner of what Berth sets.
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { fieldManager } from '../../api/index.ts';
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

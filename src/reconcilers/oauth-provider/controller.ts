// Wires the OAuthProvider reconciler into a Manager: the providers' informer, the Secrets it owns
// (dynamic client credentials) and the Secrets it only references (clientSecretRef), which carry no
// ownerReference and are mapped back to their providers through an index.
import { oauthProviderKind, type OAuthProvider } from '../../api/index.ts';
import { discoverProvider } from '../../oauth/discovery.ts';
import { registerClient } from '../../oauth/registration.ts';
import { endpointUnreachable } from '../../oauth/reachability.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { objectKey, secretKind, type DeepReadonly, type KubeObject } from '../../runtime/types.ts';
import { kubeSecretStore, writeOAuthProviderStatus } from './kube-io.ts';
import { createOAuthProviderReconciler, type OAuthProviderReconcilerOptions } from './reconcile.ts';

export interface OAuthProviderControllerOptions extends OAuthProviderReconcilerOptions {
  /** Watch only these namespaces. Default: all. */
  namespaces?: string[];
  concurrency?: number;
  /** Bound on each request to an OAuth peer. Default 10 s. */
  peerTimeoutMs?: number;
}

/** Index of providers by the Secret their clientSecretRef names, as `namespace/name`. */
export const providersByClientSecret = 'oauthprovider-client-secret';

function clientSecretIndex(object: DeepReadonly<KubeObject>): string[] {
  const provider = object as DeepReadonly<OAuthProvider>;
  const ref = provider.spec?.clientSecretRef;
  return ref ? [`${provider.metadata?.namespace ?? ''}/${ref.name}`] : [];
}

export function registerOAuthProviderController(manager: Manager, options: OAuthProviderControllerOptions = {}): Controller<OAuthProvider> {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const providers = manager.informer<OAuthProvider>(oauthProviderKind, { ...scope, indexes: { [providersByClientSecret]: clientSecretIndex } });
  // Untyped: the controller only reads metadata of these, to find whom to enqueue.
  const secrets = manager.informer(secretKind, scope);
  const kc = manager.kubeConfig;
  const peer = { allowHttp: options.allowHttp, timeoutMs: options.peerTimeoutMs };
  const reconcile = createOAuthProviderReconciler(
    {
      getProvider: (key) => providers.get(key.namespace, key.name),
      secrets: kubeSecretStore(kc),
      writeStatus: (provider, status) => writeOAuthProviderStatus(kc, provider, status),
      discover: (mcpServerUrl, signal) => discoverProvider(mcpServerUrl, { ...peer, signal }),
      register: (endpoint, request, signal) => registerClient(endpoint, request, { ...peer, signal }),
      endpointUnreachable: (url, signal) => endpointUnreachable(url, { timeoutMs: options.peerTimeoutMs, signal }),
      now: () => new Date(),
    },
    options,
  );
  return manager.addController<OAuthProvider>({
    name: 'oauthprovider',
    informer: providers,
    owns: [secrets],
    watches: [
      {
        informer: secrets,
        map: (secret) => providers.byIndex(providersByClientSecret, `${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`).map(objectKey),
      },
    ],
    reconcile,
    concurrency: options.concurrency,
  });
}

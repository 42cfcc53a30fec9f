// Wires the OAuthProvider reconciler into a Manager: the providers' informer, the Secrets it owns
// (dynamic client credentials) and the Secrets it only references (clientSecretRef), which carry no
// ownerReference and are mapped back to their providers through an index. The first reconcile of each
// provider in a process moves what earlier versions wrote under no field manager to Berth's.
import type { KubeConfig } from '@kubernetes/client-node';
import { fieldManager, legacyFieldManagers, oauthProviderKind, type OAuthProvider } from '../../api/index.ts';
import { discoverProvider } from '../../oauth/discovery.ts';
import { registerClient } from '../../oauth/registration.ts';
import { endpointUnreachable } from '../../oauth/reachability.ts';
import type { Controller } from '../../runtime/controller.ts';
import { adoptFieldManagers } from '../../runtime/field-manager-adoption.ts';
import { writeStatus } from '../../runtime/status-write.ts';
import type { Manager } from '../../runtime/manager.ts';
import { objectKey, secretKind, type DeepReadonly, type KubeObject } from '../../runtime/types.ts';
import { readableSecrets } from '../../workloads/readable-secrets.ts';
import { kubeSecretStore } from './kube-io.ts';
import { createOAuthProviderReconciler, type OAuthProviderReconcilerOptions } from './reconcile.ts';

export interface OAuthProviderControllerOptions extends OAuthProviderReconcilerOptions {
  /** Watch only these namespaces. Default: all. */
  namespaces?: string[];
  concurrency?: number;
  /** Bound on each request to an OAuth peer. Default 10 s. */
  peerTimeoutMs?: number;
}

/** Index of providers by the Secret their clientSecretRef names, as `namespace/name`. */
const providersByClientSecret = 'oauthprovider-client-secret';

function clientSecretIndex(provider: DeepReadonly<OAuthProvider>): string[] {
  const ref = provider.spec?.clientSecretRef;
  return ref ? [`${provider.metadata?.namespace ?? ''}/${ref.name}`] : [];
}

export function registerOAuthProviderController(manager: Manager, options: OAuthProviderControllerOptions = {}): Controller<OAuthProvider> {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const providers = manager.informer<OAuthProvider>(oauthProviderKind, {
    ...scope,
    indexes: { [providersByClientSecret]: clientSecretIndex },
  });
  // Untyped: the controller only reads metadata of these, to find whom to enqueue.
  const secrets = readableSecrets(manager, options.namespaces);
  const kc = manager.kubeConfig;
  const peer = { allowHttp: options.allowHttp, privateNetworks: options.privateNetworks, timeoutMs: options.peerTimeoutMs };
  const reconcile = createOAuthProviderReconciler(
    {
      getProvider: (key) => providers.get(key.namespace, key.name),
      secrets: kubeSecretStore(kc),
      writeStatus: (provider, status) => writeStatus<OAuthProvider>(kc, provider, status, fieldManager),
      discover: (mcpServerUrl, signal) => discoverProvider(mcpServerUrl, { ...peer, signal }),
      register: (endpoint, request, signal) => registerClient(endpoint, request, { ...peer, signal }),
      endpointUnreachable: (url, signal) =>
        endpointUnreachable(url, { timeoutMs: options.peerTimeoutMs, privateNetworks: options.privateNetworks, signal }),
      now: () => new Date(),
    },
    options,
  );
  // Providers whose earlier writes were looked at in this process; a deleted one is forgotten.
  const adopted = new Set<string>();
  providers.onDelete((provider) => adopted.delete(provider.metadata.uid ?? ''));
  return manager.addController<OAuthProvider>({
    name: 'oauthprovider',
    informer: providers,
    owns: [secrets],
    watches: [
      {
        informer: secrets,
        map: (secret) =>
          providers.byIndex(providersByClientSecret, `${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`).map(objectKey),
      },
    ],
    reconcile: async (key, context) => {
      const provider = providers.get(key.namespace, key.name);
      const uid = provider?.metadata.uid;
      if (provider && uid && !adopted.has(uid)) {
        await adoptEarlierWrites(kc, provider);
        adopted.add(uid);
      }
      return reconcile(key, context);
    },
    concurrency: options.concurrency,
  });
}

/**
 * What earlier versions wrote under no field manager, taken over by Berth's: the provider's status (not
 * its spec, which is the user's; into Berth's server-side apply entry, Berth's own earlier PUTs too) and the dynamic client Secret that status names, when the provider
 * owns it (not one it only names). A provider with no status has nothing written by anyone to adopt.
 */
async function adoptEarlierWrites(kc: KubeConfig, provider: DeepReadonly<OAuthProvider>): Promise<void> {
  if (!provider.status) return;
  const namespace = provider.metadata.namespace ?? '';
  const adoption = { legacy: legacyFieldManagers, manager: fieldManager };
  await adoptFieldManagers(
    kc,
    oauthProviderKind,
    { namespace, name: provider.metadata.name ?? '' },
    // Earlier versions replaced the status (PUT, an Update entry); Berth now applies it.
    { ...adoption, subresource: 'status', operation: 'Apply' },
  );
  const secretName = provider.status.dynamicClientSecretRef?.name;
  if (!secretName) return;
  const ownedByProvider = (object: KubeObject) =>
    Boolean(object.metadata?.ownerReferences?.some((owner) => owner.uid === provider.metadata.uid));
  await adoptFieldManagers(kc, secretKind, { namespace, name: secretName }, adoption, ownedByProvider);
}

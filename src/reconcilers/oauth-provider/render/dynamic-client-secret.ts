// The Secret that holds a dynamically registered client's credentials, owned by its OAuthProvider so
// that deleting the provider deletes them. Pure: provider and registration in, manifest out; and the
// reverse reading, which decides whether a stored registration can be kept.
import { createHash } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { managedSecretLabels, oauthProviderKind, type OAuthProvider } from '../../../api/index.ts';
import type { RegisteredClient, TokenEndpointAuthMethod } from '../../../oauth/registration.ts';
import { decodeSecretValue } from '../../../runtime/secret-data.ts';

/** Keys of the Secret. `clientSecret` is the one status.dynamicClientSecretRef names. */
export const dynamicClientKeys = {
  clientId: 'clientId',
  clientSecret: 'clientSecret',
  clientSecretExpiresAt: 'clientSecretExpiresAt',
  registrationAccessToken: 'registrationAccessToken',
  registrationClientUri: 'registrationClientUri',
} as const;

/** Where the client was registered: not secret, so annotations that `kubectl describe` shows. */
const dynamicClientAnnotations = {
  registrationEndpoint: 'berth.dev/registration-endpoint',
  /** The method asked for, not the one assigned: the spec is compared with what Berth asked. */
  requestedAuthMethod: 'berth.dev/requested-token-endpoint-auth-method',
} as const;

const maxSecretName = 253;
const suffix = '-oauth-client';

export function dynamicClientSecretName(providerName: string): string {
  const name = `${providerName}${suffix}`;
  if (name.length <= maxSecretName) return name;
  const hash = createHash('sha256').update(providerName).digest('hex').slice(0, 10);
  return `${providerName.slice(0, maxSecretName - suffix.length - hash.length - 1).replace(/[-.]+$/, '')}-${hash}${suffix}`;
}

function encode(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64');
}

export function renderDynamicClientSecret(
  provider: Pick<OAuthProvider, 'apiVersion' | 'metadata'>,
  client: RegisteredClient,
  registration: { registrationEndpoint: string; requestedAuthMethod: TokenEndpointAuthMethod },
): V1Secret {
  const data: Record<string, string> = { [dynamicClientKeys.clientId]: encode(client.clientId) };
  if (client.clientSecret) data[dynamicClientKeys.clientSecret] = encode(client.clientSecret);
  if (client.clientSecretExpiresAt !== undefined)
    data[dynamicClientKeys.clientSecretExpiresAt] = encode(String(client.clientSecretExpiresAt));
  if (client.registrationAccessToken) data[dynamicClientKeys.registrationAccessToken] = encode(client.registrationAccessToken);
  if (client.registrationClientUri) data[dynamicClientKeys.registrationClientUri] = encode(client.registrationClientUri);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: dynamicClientSecretName(provider.metadata.name!),
      namespace: provider.metadata.namespace!,
      labels: { ...managedSecretLabels },
      annotations: {
        [dynamicClientAnnotations.registrationEndpoint]: registration.registrationEndpoint,
        [dynamicClientAnnotations.requestedAuthMethod]: registration.requestedAuthMethod,
      },
      ownerReferences: [
        {
          apiVersion: provider.apiVersion,
          kind: oauthProviderKind.kind,
          name: provider.metadata.name!,
          uid: provider.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    data,
  };
}

/** The parts of a stored registration the reconciler decides on; never the secret itself. */
export interface StoredRegistration {
  ownedByProvider: boolean;
  clientId?: string;
  hasClientSecret: boolean;
  clientSecretExpiresAt?: number;
  registrationEndpoint?: string;
  requestedAuthMethod?: string;
}

export function readStoredRegistration(secret: V1Secret, providerUid: string): StoredRegistration {
  const data = secret.data ?? {};
  const expiresAt = Number(decodeSecretValue(data[dynamicClientKeys.clientSecretExpiresAt]));
  const annotations = secret.metadata?.annotations ?? {};
  return {
    ownedByProvider: (secret.metadata?.ownerReferences ?? []).some((ref) => ref.uid === providerUid && ref.controller === true),
    clientId: decodeSecretValue(data[dynamicClientKeys.clientId]) || undefined,
    hasClientSecret: Boolean(data[dynamicClientKeys.clientSecret]),
    ...(Number.isFinite(expiresAt) ? { clientSecretExpiresAt: expiresAt } : {}),
    registrationEndpoint: annotations[dynamicClientAnnotations.registrationEndpoint],
    requestedAuthMethod: annotations[dynamicClientAnnotations.requestedAuthMethod],
  };
}

/** Seconds before expiry at which a secret counts as expired, so a client never holds a dying one. */
const expiryMarginSeconds = 300;

/**
 * Why the stored registration cannot serve the provider as it is now, or undefined when it can:
 * registering again is only right when the authorization server, the auth method or the secret's
 * lifetime make the old client useless.
 */
export function registrationStaleReason(
  stored: StoredRegistration,
  current: { registrationEndpoint: string; tokenEndpointAuthMethod: TokenEndpointAuthMethod },
  nowSeconds: number,
): string | undefined {
  if (!stored.clientId) return 'the Secret holds no client id';
  if (stored.registrationEndpoint !== current.registrationEndpoint) return 'the registration endpoint changed';
  if (stored.requestedAuthMethod !== current.tokenEndpointAuthMethod) return 'tokenEndpointAuthMethod changed';
  if (stored.clientSecretExpiresAt && stored.clientSecretExpiresAt - expiryMarginSeconds <= nowSeconds) return 'the client secret expires';
  return undefined;
}

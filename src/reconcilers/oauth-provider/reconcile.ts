// OAuthProvider reconcile: check what the CRD cannot (the client secret's Secret, PKCE for public
// clients), discover the authorization server behind an MCP server, register a dynamic client once,
// then write the status only when it changed. Every collaborator is injected (see controller.ts
// for the real ones), and every message it writes is built here from names and peer errors, never
// from a secret value.
import type { V1Secret } from '@kubernetes/client-node';
import {
  isReadableSecret,
  oauthProviderKind,
  secretNotReadableMessage,
  type OAuthProvider,
  type OAuthProviderStatus,
} from '../../api/index.ts';
import type { DiscoveredProvider } from '../../oauth/discovery.ts';
import { OAuthPeerError, describeUrl } from '../../oauth/http.ts';
import {
  clientRegistrationRequest,
  needsClientSecret,
  type ClientRegistrationRequest,
  type RegisteredClient,
} from '../../oauth/registration.ts';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.ts';
import type { DeepReadonly, ObjectKey } from '../../runtime/types.ts';
import {
  dynamicClientKeys,
  dynamicClientSecretName,
  readStoredRegistration,
  registrationStaleReason,
  renderDynamicClientSecret,
} from './render/dynamic-client-secret.ts';
import { specProblems } from './spec-problems.ts';
import { nextStatus, readyTransition, retryDelay, type Resolution, type Verdict } from './status.ts';
import { optional } from '../../runtime/index.ts';

export interface SecretStore {
  /** Reads from the API server, not a cache: a Secret just written must be seen by the next reconcile. */
  read(namespace: string, name: string): Promise<V1Secret | undefined>;
  create(secret: V1Secret): Promise<void>;
  /** Replaces a Secret; metadata.resourceVersion guards against a concurrent change. */
  replace(secret: V1Secret): Promise<void>;
}

export interface OAuthProviderReconcilerDeps {
  getProvider(key: ObjectKey): DeepReadonly<OAuthProvider> | undefined;
  secrets: SecretStore;
  /**
   * Writes the status (the runtime's writeStatus): refused with a StaleObjectError when the provider
   * changed since it was read, and the pass runs again from a fresher cache.
   */
  writeStatus(provider: OAuthProvider, status: OAuthProviderStatus): Promise<unknown>;
  /** Peer requests take the reconcile's signal: a replica that stops leading abandons them. */
  discover(mcpServerUrl: string, signal: AbortSignal): Promise<DiscoveredProvider>;
  register(registrationEndpoint: string, request: ClientRegistrationRequest, signal: AbortSignal): Promise<RegisteredClient>;
  /** Undefined when the URL answers, otherwise why not. Used only when probeEndpoints is on. */
  endpointUnreachable(url: string, signal: AbortSignal): Promise<string | undefined>;
  now(): Date;
}

export interface OAuthProviderReconcilerOptions {
  /** Plain-HTTP endpoints off loopback (an in-cluster provider). Default false: secrets travel over TLS. */
  allowHttp?: boolean;
  /** Peers on loopback, private or link-local addresses (src/oauth/public-network.ts): `berth dev`, a
   * provider inside the cluster. Default false: a provider's URLs are a tenant's, and Berth's own
   * ports, the cluster's Services and a metadata service stay out of their reach. */
  privateNetworks?: boolean;
  /**
   * Check that authorization and token endpoints answer. Off by default: a provider whose endpoints
   * are on the internet is valid in a cluster that cannot reach them, and an unreachable endpoint
   * only ever makes a provider Ready=False with retries, never Stalled.
   */
  probeEndpoints?: boolean;
  /** What a dynamically registered client asks for (RFC 7591 metadata). */
  registration?: { redirectUris?: string[]; grantTypes?: string[]; scope?: string };
  /** First retry delay after a failure that may heal by itself (a peer down). Default 30 s. */
  retryAfterMs?: number;
  /** The retry delay grows with the failure's age up to this. Default 5 minutes. */
  maxRetryAfterMs?: number;
}

interface Assessment {
  verdict: Verdict;
  resolution: Resolution;
  /** Retry even though the status was written: the cause lies outside the cluster's watch. */
  retry: boolean;
  /** Events besides the Ready transition. */
  notes: { reason: string; message: string }[];
}

function peerFailure(error: unknown): error is OAuthPeerError {
  return error instanceof OAuthPeerError;
}

/** Endpoints discovery found last time: kept through a transient failure so readers still have them. */
function previouslyDiscovered(status: OAuthProviderStatus | undefined): Resolution {
  const { authorizationEndpoint, tokenEndpoint, registrationEndpoint, issuer, dynamicClientId, dynamicClientSecretRef } = status ?? {};
  return { authorizationEndpoint, tokenEndpoint, registrationEndpoint, issuer, dynamicClientId, dynamicClientSecretRef };
}

/** A verdict that ends the assessment before it is Ready. */
type Ending = Omit<Assessment, 'notes'>;

function stalled(reason: string, message: string, resolution: Resolution): Ending {
  return { verdict: { state: 'stalled', reason, message }, resolution, retry: false };
}

function progressing(reason: string, message: string, resolution: Resolution, retry = true): Ending {
  return { verdict: { state: 'progressing', reason, message }, resolution, retry };
}

const isEnding = (value: object): value is Ending => 'verdict' in value;

/**
 * The provider's verdict, in the order a reader checks it: the spec, the client's credentials, the
 * authorization server behind an MCP server, the dynamic client, and (when asked) the endpoints.
 */
async function assess(
  provider: OAuthProvider,
  deps: OAuthProviderReconcilerDeps,
  options: OAuthProviderReconcilerOptions,
  signal: AbortSignal,
): Promise<Assessment> {
  const { spec } = provider;
  const staticEndpoints: Resolution = { authorizationEndpoint: spec.authUrl, tokenEndpoint: spec.tokenUrl };
  const problems = specProblems(spec, options);
  if (problems.length > 0)
    return { ...stalled(problems[0]!.reason, problems.map((p) => p.message).join('; '), staticEndpoints), notes: [] };
  const credentials = await clientCredentials(provider, deps, staticEndpoints);
  if (isEnding(credentials)) return { ...credentials, notes: [] };
  const endpoints = await discoveredEndpoints(provider, deps, staticEndpoints, signal);
  if (isEnding(endpoints)) return { ...endpoints, notes: [] };
  let { resolution } = endpoints;
  let readyMessage = credentials.readyMessage + endpoints.readySuffix;
  const notes: Assessment['notes'] = [];
  if (spec.isDynamicClient && endpoints.discovered) {
    const client = await dynamicClient(provider, endpoints.discovered, resolution, deps, options, signal);
    if (isEnding(client)) return { ...client, notes };
    ({ resolution, readyMessage } = client);
    if (client.note) notes.push(client.note);
  }
  const unreachable = options.probeEndpoints ? await firstUnreachable(resolution, deps, signal) : undefined;
  if (unreachable) return { ...progressing('EndpointUnreachable', unreachable, resolution), notes };
  return { verdict: { state: 'ready', reason: 'Ready', message: readyMessage }, resolution, retry: false, notes };
}

/** Where the client's secret is: a static client's Secret must hold it; public and dynamic clients need none here. */
async function clientCredentials(
  provider: OAuthProvider,
  deps: OAuthProviderReconcilerDeps,
  staticEndpoints: Resolution,
): Promise<{ readyMessage: string } | Ending> {
  const { spec } = provider;
  const namespace = provider.metadata.namespace!;
  const method = spec.tokenEndpointAuthMethod ?? 'client_secret_post';
  if (spec.isDynamicClient || !needsClientSecret(method))
    return { readyMessage: method === 'none' ? 'public client with PKCE' : 'dynamic client' };
  const ref = spec.clientSecretRef!;
  const secret = await deps.secrets.read(namespace, ref.name);
  // Creating the Secret enqueues this provider (controller.ts watches Secrets): no retry needed.
  // Read by name (not from the cache), and taken only when shared: the rule every Secret reference follows.
  if (!secret || !isReadableSecret(secret))
    return progressing('ClientSecretNotFound', secretNotReadableMessage(ref.name, namespace), staticEndpoints, false);
  if (!secret.data?.[ref.key] && !secret.stringData?.[ref.key]) {
    return progressing('ClientSecretKeyMissing', `Secret "${ref.name}" has no value for key "${ref.key}"`, staticEndpoints, false);
  }
  return { readyMessage: `client secret found in Secret "${ref.name}" key "${ref.key}"` };
}

/** The endpoints: the spec's, or those of the authorization server discovered behind the MCP server. */
async function discoveredEndpoints(
  provider: OAuthProvider,
  deps: OAuthProviderReconcilerDeps,
  staticEndpoints: Resolution,
  signal: AbortSignal,
): Promise<{ resolution: Resolution; discovered?: DiscoveredProvider; readySuffix: string } | Ending> {
  const { spec } = provider;
  if (!spec.mcpServerUrl) return { resolution: staticEndpoints, readySuffix: '' };
  let discovered: DiscoveredProvider;
  try {
    discovered = await deps.discover(spec.mcpServerUrl, signal);
  } catch (error) {
    if (!peerFailure(error)) throw error;
    const kept = { ...staticEndpoints, ...withoutUndefined(previouslyDiscovered(provider.status)) };
    return progressing('DiscoveryFailed', `discovery from ${describeUrl(spec.mcpServerUrl)} failed: ${error.message}`, kept);
  }
  const metadata = discovered.authorizationServer;
  return {
    resolution: {
      authorizationEndpoint: metadata.authorization_endpoint ?? spec.authUrl,
      tokenEndpoint: metadata.token_endpoint,
      registrationEndpoint: metadata.registration_endpoint,
      issuer: metadata.issuer,
    },
    discovered,
    readySuffix: `; authorization server ${describeUrl(metadata.issuer)} discovered`,
  };
}

/** The dynamic client at the discovered authorization server, when that server can register one as asked. */
async function dynamicClient(
  provider: OAuthProvider,
  discovered: DiscoveredProvider,
  resolution: Resolution,
  deps: OAuthProviderReconcilerDeps,
  options: OAuthProviderReconcilerOptions,
  signal: AbortSignal,
): Promise<{ resolution: Resolution; readyMessage: string; note?: Assessment['notes'][number] } | Ending> {
  const metadata = discovered.authorizationServer;
  const method = provider.spec.tokenEndpointAuthMethod ?? 'client_secret_post';
  if (!metadata.registration_endpoint) {
    return stalled(
      'RegistrationUnsupported',
      `authorization server ${describeUrl(metadata.issuer)} publishes no registration_endpoint`,
      resolution,
    );
  }
  const supported = metadata.token_endpoint_auth_methods_supported;
  if (supported && !supported.includes(method)) {
    return stalled(
      'AuthMethodUnsupported',
      `authorization server ${describeUrl(metadata.issuer)} does not support tokenEndpointAuthMethod ${method}`,
      resolution,
    );
  }
  const registration = await ensureRegistration(provider, metadata.registration_endpoint, deps, options, signal);
  if ('problem' in registration) {
    const { state, reason, message } = registration.problem;
    return state === 'stalled' ? stalled(reason, message, resolution) : progressing(reason, message, resolution);
  }
  const credentials = registration.secretRef ? `; credentials in Secret "${registration.secretRef.name}"` : '';
  return {
    resolution: { ...resolution, dynamicClientId: registration.clientId, dynamicClientSecretRef: registration.secretRef },
    readyMessage: `client "${registration.clientId}" registered at ${describeUrl(metadata.registration_endpoint)}${credentials}; authorization server ${describeUrl(metadata.issuer)} discovered`,
    ...optional('note', registration.note),
  };
}

/** Why the first of the authorization and token endpoints that does not answer does not. */
async function firstUnreachable(
  resolution: Resolution,
  deps: OAuthProviderReconcilerDeps,
  signal: AbortSignal,
): Promise<string | undefined> {
  for (const url of [resolution.authorizationEndpoint, resolution.tokenEndpoint]) {
    const unreachable = url === undefined ? undefined : await deps.endpointUnreachable(url, signal);
    if (unreachable) return unreachable;
  }
  return undefined;
}

type RegistrationOutcome =
  { clientId: string; secretRef?: { name: string; key: string }; note?: { reason: string; message: string } } | { problem: Verdict };

/**
 * The dynamic client of `provider`: the one stored in its Secret while that one still fits, else a
 * new registration. The Secret is the record that registration happened, so a provider is registered
 * once, not on every reconcile. A crash between registering and storing leaves one unused client at
 * the authorization server; nothing worse.
 */
async function ensureRegistration(
  provider: OAuthProvider,
  registrationEndpoint: string,
  deps: OAuthProviderReconcilerDeps,
  options: OAuthProviderReconcilerOptions,
  signal: AbortSignal,
): Promise<RegistrationOutcome> {
  const namespace = provider.metadata.namespace!;
  const name = dynamicClientSecretName(provider.metadata.name!);
  const method = provider.spec.tokenEndpointAuthMethod ?? 'client_secret_post';
  const secretRef = (hasSecret: boolean) => (hasSecret ? { name, key: dynamicClientKeys.clientSecret } : undefined);
  const existing = await deps.secrets.read(namespace, name);
  let why = 'no client registered yet';
  if (existing) {
    const stored = readStoredRegistration(existing, provider.metadata.uid!);
    if (!stored.ownedByProvider) {
      return {
        problem: { state: 'stalled', reason: 'SecretNameTaken', message: `Secret "${name}" exists and is not owned by this OAuthProvider` },
      };
    }
    const stale = registrationStaleReason(
      stored,
      { registrationEndpoint, tokenEndpointAuthMethod: method },
      Math.floor(deps.now().getTime() / 1000),
    );
    if (!stale) return { clientId: stored.clientId!, secretRef: secretRef(stored.hasClientSecret) };
    why = stale;
  }

  let client: RegisteredClient;
  try {
    client = await deps.register(
      registrationEndpoint,
      clientRegistrationRequest({ clientName: provider.spec.name, tokenEndpointAuthMethod: method, ...options.registration }),
      signal,
    );
  } catch (error) {
    if (!peerFailure(error)) throw error;
    // A 4xx other than 429 is the server refusing this client's metadata: retrying cannot help.
    const refused = error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 429;
    return {
      problem: {
        state: refused ? 'stalled' : 'progressing',
        reason: refused ? 'RegistrationRejected' : 'RegistrationFailed',
        message: error.message,
      },
    };
  }
  const secret = renderDynamicClientSecret(provider, client, { registrationEndpoint, requestedAuthMethod: method });
  if (existing) {
    await deps.secrets.replace({ ...secret, metadata: { ...secret.metadata, resourceVersion: existing.metadata?.resourceVersion } });
  } else {
    await deps.secrets.create(secret);
  }
  return {
    clientId: client.clientId,
    secretRef: secretRef(Boolean(client.clientSecret)),
    note: {
      reason: 'ClientRegistered',
      message: `registered client "${client.clientId}" at ${describeUrl(registrationEndpoint)} (${why}); credentials in Secret "${name}"`,
    },
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function createOAuthProviderReconciler(deps: OAuthProviderReconcilerDeps, options: OAuthProviderReconcilerOptions = {}) {
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const maxRetryAfterMs = Math.max(retryAfterMs, options.maxRetryAfterMs ?? 5 * 60_000);
  return async function reconcileOAuthProvider(key: ObjectKey, context: ReconcileContext): Promise<ReconcileResult | void> {
    const cached = deps.getProvider(key);
    if (!cached || cached.metadata.deletionTimestamp) return;
    // Cache objects are shared and read-only: work on a copy.
    const provider = structuredClone(cached) as OAuthProvider;
    // List items may come without apiVersion and kind; Events and the status write need both.
    provider.apiVersion ??= oauthProviderKind.apiVersion;
    provider.kind ??= oauthProviderKind.kind;

    const assessment = await assess(provider, deps, options, context.signal);
    const now = deps.now();
    const status = nextStatus(provider.status, {
      generation: provider.metadata.generation,
      verdict: assessment.verdict,
      resolution: assessment.resolution,
      now,
    });
    const retry = assessment.retry ? { requeueAfter: retryDelay(status.conditions, now, retryAfterMs, maxRetryAfterMs) } : undefined;
    for (const note of assessment.notes) {
      context.recorder.event(provider, 'Normal', note.reason, note.message);
      context.logger.info({ reason: note.reason }, note.message);
    }
    if (status !== provider.status) {
      await deps.writeStatus(provider, status);
      context.logger.debug({ generation: provider.metadata.generation }, 'status written');
      const transition = readyTransition(provider.status?.conditions, status.conditions);
      if (transition) {
        context.recorder.event(provider, transition.type, transition.reason, transition.message);
        const level = transition.type === 'Normal' ? 'info' : 'warn';
        context.logger[level]({ ready: transition.type === 'Normal', reason: transition.reason }, transition.message);
      }
    }
    return retry;
  };
}

// The one entry point callers use: give it a CodeHostIntegration and a way to read its Secret, get
// the integration's repositories or its account. It builds the right client for the integration's
// provider, keeps that client while neither the integration's spec nor its Secret changes (so a GitHub
// App's installation token is reused until it expires), and caches listings briefly with request
// coalescing, keyed by the integration's uid, generation and the Secret's resourceVersion: a rotated
// token is used on the very next request.
import { codeHostCredentialKeys } from '../api/codehost-integration.ts';
import { codeHostProvider, type CodeHostProviderName } from '../api/codehost-providers.ts';
import { secretNotReadableMessage } from '../api/readable-secrets.ts';
import { CoalescingCache } from './coalescing-cache.ts';
import { parseCredentials, secretValues, type CodeHostCredentials, type SecretLike } from './credentials.ts';
import { CodeHostCredentialsError, CodeHostNotAllowedError, CodeHostRateLimitedError, CodeHostUnauthorizedError } from './errors.ts';
import { createGitHubClient } from './github.ts';
import { createGitLabClient } from './gitlab.ts';
import { baseUrlRefusal, publicCodeHostOrigins } from './outbound.ts';
import type { CodeHostAccount, CodeHostClient, CodeHostLog, Repository } from './repository.ts';
import type { PullRequest } from './pull-request.ts';
import { optional } from '../runtime/index.ts';

/** The fields of a CodeHostIntegration the registry reads; an informer's read-only object fits. */
export interface IntegrationReference {
  readonly metadata?: { readonly uid?: string; readonly namespace?: string; readonly name?: string; readonly generation?: number };
  readonly spec: {
    readonly provider?: CodeHostProviderName;
    readonly baseUrl?: string;
    readonly credentialsSecretRef: { readonly name: string };
  };
}

/** Reads a Secret, typically from an informer cache; undefined when there is none. */
export type SecretReader = (namespace: string, name: string) => SecretLike | undefined | Promise<SecretLike | undefined>;

export interface ClientFactoryInput {
  provider: CodeHostProviderName;
  integrationId: string;
  baseUrl: string | undefined;
  credentials: CodeHostCredentials;
  requestTimeoutMs: number;
  log: CodeHostLog | undefined;
}

export type ClientFactory = (input: ClientFactoryInput) => CodeHostClient;

export interface CodeHostRegistryOptions {
  /** The origins an integration's base URL may name (outbound.ts). Default: the public code hosts. */
  origins?: readonly string[];
  /** How long a listing is served from memory. Default 30 s. */
  listingTtlMs?: number;
  requestTimeoutMs?: number;
  log?: CodeHostLog;
  createClient?: ClientFactory;
  now?: () => number;
}

/** The API root an integration's requests go to: its base URL, or its provider's public one. */
export function baseUrlOf(spec: IntegrationReference['spec']): string {
  return spec.baseUrl ?? codeHostProvider(spec.provider).publicApiBaseUrl;
}

/** Each host's client (src/api/codehost-providers.ts holds the rest of what differs between them). */
const codeHostClients: Readonly<Record<CodeHostProviderName, ClientFactory>> = {
  github: createGitHubClient,
  gitlab: createGitLabClient,
};

export const createCodeHostClient: ClientFactory = (input) => codeHostClients[input.provider](input);

export class CodeHostRegistry {
  readonly #listings: CoalescingCache<Repository[]>;
  readonly #pullRequests: CoalescingCache<PullRequest[]>;
  readonly #clients = new Map<string, { version: string; client: CodeHostClient }>();
  readonly #createClient: ClientFactory;
  readonly #origins: readonly string[];
  readonly #requestTimeoutMs: number;
  readonly #log: CodeHostLog | undefined;
  readonly #now: () => number;
  readonly #rateLimits = new Map<string, { version: string; error: CodeHostRateLimitedError }>();

  constructor(options: CodeHostRegistryOptions = {}) {
    this.#listings = new CoalescingCache({ ttlMs: options.listingTtlMs ?? 30_000, ...optional('now', options.now) });
    // Previews of several Deployments of one repository ask once per pass.
    this.#pullRequests = new CoalescingCache({ ttlMs: 5_000, ...optional('now', options.now) });
    this.#createClient = options.createClient ?? createCodeHostClient;
    this.#origins = options.origins ?? publicCodeHostOrigins;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
  }

  /** The integration's repositories (GET /v1/integrations/codehost/{integration_id}/repos), cached briefly. */
  async repositoriesOf(integration: IntegrationReference, readSecret: SecretReader): Promise<Repository[]> {
    const { client, version } = await this.#clientOf(integration, readSecret);
    return this.#listings.get(version, () => this.#ask(version, () => client.listRepositories()));
  }

  /** The open pull (merge) requests of a repository (`owner/name`) the integration reaches, cached for seconds
   * (`fresh`, a new code-host event, is read anew). */
  async pullRequestsOf(
    integration: IntegrationReference,
    readSecret: SecretReader,
    repositoryPath: string,
    fresh = '',
  ): Promise<PullRequest[]> {
    const { client, version } = await this.#clientOf(integration, readSecret);
    return this.#pullRequests.get(`${version}/${repositoryPath}/${fresh}`, () =>
      this.#ask(version, () => client.openPullRequests(repositoryPath)),
    );
  }

  /** The secret the integration's webhook deliveries are signed with, if its credentials Secret has one. */
  async webhookSecretOf(integration: IntegrationReference, readSecret: SecretReader): Promise<string | undefined> {
    const secret = await readSecret(integration.metadata?.namespace ?? '', integration.spec.credentialsSecretRef.name);
    const value = secret ? secretValues(secret)[codeHostCredentialKeys.webhookSecret]?.trim() : undefined;
    return value || undefined;
  }

  /** Asks the host, uncached, whether the credentials work and whom they act as. */
  async verify(integration: IntegrationReference, readSecret: SecretReader): Promise<CodeHostAccount> {
    const { client, version } = await this.#clientOf(integration, readSecret);
    return this.#ask(version, () => client.verify());
  }

  /** Drops what is kept for an integration (call when it is deleted). */
  forget(integrationUid: string): void {
    this.#clients.delete(integrationUid);
    this.#rateLimits.delete(integrationUid);
    this.#listings.forget(`${integrationUid}/`);
    this.#pullRequests.forget(`${integrationUid}/`);
  }

  /**
   * Sends a request to the host unless it said to hold back. A rate-limited credential is not used
   * again before the reset the host announced (GitHub may block an integration that keeps calling
   * while limited). A refused request drops the client, and with it any installation token it holds:
   * a reinstalled GitHub App revokes its tokens before they expire, and the next request must mint a
   * fresh one.
   */
  async #ask<T>(version: string, request: () => Promise<T>): Promise<T> {
    const uid = version.slice(0, version.indexOf('/'));
    const limit = this.#rateLimits.get(uid);
    if (limit?.version === version && limit.error.resetAt.getTime() > this.#now()) throw limit.error;
    try {
      return await request();
    } catch (error) {
      if (error instanceof CodeHostRateLimitedError) this.#rateLimits.set(uid, { version, error });
      if (error instanceof CodeHostUnauthorizedError && this.#clients.get(uid)?.version === version) this.#clients.delete(uid);
      throw error;
    }
  }

  async #clientOf(integration: IntegrationReference, readSecret: SecretReader): Promise<{ client: CodeHostClient; version: string }> {
    const uid = integration.metadata?.uid ?? '';
    const namespace = integration.metadata?.namespace ?? '';
    // Before the Secret is read or any request is made: is the integration's host one Berth may call?
    const refused = baseUrlRefusal(baseUrlOf(integration.spec), this.#origins);
    if (refused) throw new CodeHostNotAllowedError(refused);
    const secretName = integration.spec.credentialsSecretRef.name;
    const secret = await readSecret(namespace, secretName);
    if (!secret) throw new CodeHostCredentialsError(secretNotReadableMessage(secretName, namespace));

    const version = [uid, integration.metadata?.generation ?? 0, secret.metadata?.uid ?? '', secret.metadata?.resourceVersion ?? ''].join(
      '/',
    );
    const kept = this.#clients.get(uid);
    if (kept?.version === version) return kept;

    const credentials = parseCredentials(secretName, secretValues(secret));
    const client = this.#createClient({
      provider: integration.spec.provider ?? 'github',
      integrationId: uid,
      baseUrl: integration.spec.baseUrl,
      credentials,
      requestTimeoutMs: this.#requestTimeoutMs,
      log: this.#log,
    });
    this.#listings.forget(`${uid}/`);
    this.#clients.set(uid, { version, client });
    return { client, version };
  }
}

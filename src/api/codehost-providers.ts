// Each code host's differences, as data: one entry per host, keyed by a CodeHostIntegration's
// `provider`. Its clients (codeHostClients in src/codehost/registry.ts) are keyed the same way, so adding
// a host is an entry here and a client there, and the type checker names both.

export const codeHostProviderNames = ['github', 'gitlab'] as const;
export type CodeHostProviderName = (typeof codeHostProviderNames)[number];

export interface CodeHostProvider {
  /** Where its repositories are served when an integration names no base URL. */
  publicRepositoryOrigin: string;
  /** Its API's root when an integration names no base URL. */
  publicApiBaseUrl: string;
  /** The ref a pull (merge) request's head is fetched by, from the base repository. */
  pullRequestRef(number: number): string;
  /** Where a person reads a pull (merge) request, after the repository's web address. */
  pullRequestPath(number: number): string;
  webhook: {
    /** How a delivery proves it knows the secret: an HMAC-SHA256 of the exact body as `sha256=<hex>`,
     * or the secret itself, in `header`. */
    signature: { kind: 'hmac-sha256' | 'secret'; header: string };
    /** The header that names the event, and the one that names a delivery once (where it has one). */
    eventHeader: string;
    deliveryHeader?: string;
    /** The repository's web address in a delivery's payload (anything: the payload is untrusted). */
    repositoryUrl(payload: unknown): unknown;
  };
}

type Payload = { repository?: { html_url?: unknown }; project?: { web_url?: unknown } } | null | undefined;

export const codeHostProviders: Readonly<Record<CodeHostProviderName, CodeHostProvider>> = {
  github: {
    publicRepositoryOrigin: 'https://github.com',
    publicApiBaseUrl: 'https://api.github.com',
    pullRequestRef: (number) => `refs/pull/${number}/head`,
    pullRequestPath: (number) => `/pull/${number}`,
    webhook: {
      signature: { kind: 'hmac-sha256', header: 'x-hub-signature-256' },
      eventHeader: 'x-github-event',
      deliveryHeader: 'x-github-delivery',
      repositoryUrl: (payload) => (payload as Payload)?.repository?.html_url,
    },
  },
  gitlab: {
    publicRepositoryOrigin: 'https://gitlab.com',
    publicApiBaseUrl: 'https://gitlab.com/api/v4',
    pullRequestRef: (number) => `refs/merge-requests/${number}/head`,
    pullRequestPath: (number) => `/-/merge_requests/${number}`,
    webhook: {
      signature: { kind: 'secret', header: 'x-gitlab-token' },
      eventHeader: 'x-gitlab-event',
      repositoryUrl: (payload) => (payload as Payload)?.project?.web_url,
    },
  },
};

/** The host an integration names (`github` when it names none, as its schema defaults). */
export function codeHostProvider(name: CodeHostProviderName | undefined): CodeHostProvider {
  return codeHostProviders[name ?? 'github'];
}

/** A pull (merge) request's web page, from its repository's address: none unless that is an http(s) URL. */
export function pullRequestUrl(provider: CodeHostProviderName | undefined, repoUrl: string, number: number): string | undefined {
  if (!URL.canParse(repoUrl) || !['http:', 'https:'].includes(new URL(repoUrl).protocol)) return undefined;
  return `${repoUrl.replace(/\/+$/, '').replace(/\.git$/, '')}${codeHostProvider(provider).pullRequestPath(number)}`;
}

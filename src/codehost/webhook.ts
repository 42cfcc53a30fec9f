// A code host's webhook delivery: verified by its signature (GitHub: an HMAC-SHA256 of the exact bytes
// with the shared secret, X-Hub-Signature-256; GitLab: the secret itself, X-Gitlab-Token), and read for
// a hint only, never for state: which repository and, for a pull (merge) request, which one. A verified
// delivery makes Berth read the code host again; what it then reads is what counts. Pure.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { CodeHostProvider } from '../api/codehost-providers.ts';

export type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Equal strings, in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function deliveryVerified(provider: CodeHostProvider, headers: Headers, body: Buffer, secret: string): boolean {
  if (secret === '') return false;
  const { kind, header: name } = provider.webhook.signature;
  const expected = kind === 'secret' ? secret : `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return sameSecret(header(headers, name) ?? '', expected);
}

export interface DeliveryHint {
  /** The event's name, as the host sent it (pull_request, push, Merge Request Hook, ...). */
  event: string;
  /** The repository's web address the delivery names. */
  repositoryUrl?: string;
  /** Where the host names a delivery once (X-GitHub-Delivery), that id. */
  delivery?: string;
}

export function deliveryHint(provider: CodeHostProvider, headers: Headers, payload: unknown): DeliveryHint {
  const { eventHeader, deliveryHeader, repositoryUrl } = provider.webhook;
  const url = repositoryUrl(payload);
  const delivery = deliveryHeader ? header(headers, deliveryHeader) : undefined;
  return {
    event: header(headers, eventHeader) ?? '',
    ...(typeof url === 'string' ? { repositoryUrl: url } : {}),
    ...(delivery ? { delivery: delivery.slice(0, 64) } : {}),
  };
}

/** Whether two repository addresses name the same repository (case, a trailing .git or slash aside). */
export function sameRepository(a: string, b: string): boolean {
  const normal = (url: string) =>
    url
      .trim()
      .toLowerCase()
      .replace(/\/+$/, '')
      .replace(/\.git$/, '');
  return normal(a) === normal(b);
}

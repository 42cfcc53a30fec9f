// Where a code-host integration's requests may go. An installation allows a set of origins (the public
// code hosts by default; `--code-host-origins`): an integration's base URL must be on one of them, with
// no query, fragment or user information, before any request is made. A client then keeps every request,
// redirect and page link on its base URL's origin: a Location or a Link elsewhere is refused, never
// followed. Pure but for the fetch it wraps.
import { codeHostProviders } from '../api/codehost-providers.ts';

/** What an installation allows when its platform team says nothing: the public code hosts' APIs. */
export const publicCodeHostOrigins: readonly string[] = [
  ...new Set(Object.values(codeHostProviders).flatMap((host) => [new URL(host.publicApiBaseUrl).origin, host.publicRepositoryOrigin])),
];

/** Whether `url`'s origin is allowed: an entry is an origin (`https://host[:port]`), or `scheme://host:*`
 * for any port of one host. */
export function originAllowed(url: URL, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    const anyPort = entry.endsWith(':*');
    const origin = anyPort ? entry.slice(0, -2) : entry;
    if (!URL.canParse(origin)) return false;
    const parsed = new URL(origin);
    return anyPort ? parsed.protocol === url.protocol && parsed.hostname === url.hostname : parsed.origin === url.origin;
  });
}

/** Why an integration may not use `baseUrl` here, or undefined. */
export function baseUrlRefusal(baseUrl: string, allowed: readonly string[]): string | undefined {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return 'baseUrl is not an http(s) URL';
  // The text, not the parsed URL: an empty query or fragment ('x?', 'x#') parses to none.
  if (baseUrl.includes('?') || baseUrl.includes('#') || url.username || url.password) {
    return 'baseUrl has a query, a fragment or user information';
  }
  if (!originAllowed(url, allowed)) {
    return `baseUrl ${url.origin} is not among the code hosts this installation allows (${allowed.join(', ')}); a platform team adds one with --code-host-origins`;
  }
  return undefined;
}

/** A request, a redirect or a page link that would leave the client's origin. */
export class OffOriginError extends Error {
  override name = 'OffOriginError';
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const maxRedirects = 5;

/** A fetch that sends nothing off `origin` and follows redirects itself, at most five, each on `origin`. */
export function sameOriginFetch(origin: string, inner: typeof fetch = fetch): typeof fetch {
  const check = (url: URL, what: string) => {
    if (url.origin !== origin) throw new OffOriginError(`refused ${what} to ${url.origin}: this integration's requests stay on ${origin}`);
  };
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    check(url, 'a request');
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let redirects = 0; ; redirects++) {
      const response = await inner(url, request);
      const location = response.headers.get('location');
      if (!redirectStatuses.has(response.status) || !location) return response;
      if (redirects >= maxRedirects) throw new OffOriginError(`more than ${maxRedirects} redirects from ${origin}`);
      await response.body?.cancel();
      url = new URL(location, url);
      check(url, 'a redirect');
      if (response.status === 303) request = { ...request, method: 'GET', body: null };
    }
  };
}

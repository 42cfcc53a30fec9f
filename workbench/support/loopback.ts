// Names under `localhost` are loopback, as browsers and curl resolve them (RFC 6761): the Gateway's URLs
// under `berth dev` are `<deployment>.<organization>.localhost:<port>`; getaddrinfo here knows only
// `localhost` itself. For node:http's `lookup` option; other names resolve as usual.
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';

export const loopbackLookup: LookupFunction = (hostname, options, callback) => {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if ((options as LookupOptions).all) (callback as (e: null, a: LookupAddress[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
    else (callback as (e: null, a: string, f: number) => void)(null, '127.0.0.1', 4);
    return;
  }
  lookup(hostname, options, callback as never);
};

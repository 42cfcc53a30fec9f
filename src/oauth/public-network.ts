// Where Berth's requests to OAuth peers may go. An OAuthProvider's URLs are a tenant's words, so unless
// the installation allows private networks (--oauth-private-networks: `berth dev`, a provider inside
// the cluster), Berth connects only to public addresses: never to loopback (its own ports), the
// cluster's or a cloud's private networks, link-local addresses (a metadata service) or multicast. A
// name is checked as it resolves, when the connection is made (so a name that resolves elsewhere later
// gains nothing), and a literal address before any request.
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const notPublic = new BlockList();
const ipv4Ranges: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
];
const ipv6Ranges: [string, number][] = [
  ['::', 127],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
];
for (const [network, prefix] of ipv4Ranges) notPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of ipv6Ranges) notPublic.addSubnet(network, prefix, 'ipv6');

/** Hosts where plain HTTP never leaves the machine (a pod's loopback is its own). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Whether an address is loopback, private, link-local, shared, reserved or multicast. An IPv6 address
 * that carries an IPv4 one (IPv4-mapped, IPv4-compatible, NAT64's well-known prefix, 6to4) is judged by
 * that IPv4 address: a NAT64 gateway or a 6to4 relay would take a request for 64:ff9b::a00:1 to 10.0.0.1. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return notPublic.check(address, 'ipv4');
  const carried = carriedIpv4(address);
  return carried ? notPublic.check(carried, 'ipv4') : notPublic.check(address, 'ipv6');
}

/** The prefixes whose addresses carry an IPv4 address, and the 16-bit groups it is in. */
const carriers = (
  [
    ['::ffff:0:0', 96, 6],
    ['::', 96, 6],
    ['64:ff9b::', 96, 6],
    ['2002::', 16, 1],
  ] as const
).map(([network, prefix, high]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, 'ipv6');
  return { list, high };
});

/** The IPv4 address an IPv6 address carries (carriers above), or undefined; `::` and `::1` carry none. */
function carriedIpv4(address: string): string | undefined {
  const carrier = carriers.find(({ list }) => list.check(address, 'ipv6'));
  if (!carrier) return undefined;
  const groups = ipv6Groups(address);
  const [a, b] = [groups[carrier.high]!, groups[carrier.high + 1]!];
  if (groups.every((group, index) => index === 7 || group === 0) && b <= 1) return undefined;
  return [a >> 8, a & 0xff, b >> 8, b & 0xff].join('.');
}

/** A valid IPv6 address's eight 16-bit groups (a trailing dotted IPv4 part as two). */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  const hex = dotted
    ? address.slice(0, dotted.index) +
      [(+dotted[1]! << 8) | +dotted[2]!, (+dotted[3]! << 8) | +dotted[4]!].map((n) => n.toString(16)).join(':')
    : address;
  const [head = '', tail] = hex.split('::');
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [front, back] = [parse(head), parse(tail ?? '')];
  return tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** Why a URL's host, a literal address, may not be reached, or undefined. */
export function privateAddressProblem(url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) && isPrivateAddress(host) ? `${host} is a private or local address` : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup, with only the public addresses of a name; a name with none fails. */
function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const usable = addresses.filter((address) => !isPrivateAddress(address.address));
    if (usable.length === 0) return callback(new Error(`${hostname} resolves to private or local addresses only`), '');
    if (options.all) return callback(null, usable);
    return callback(null, usable[0]!.address, usable[0]!.family);
  });
}

type PublicFetch = (url: string, init: RequestInit) => Promise<Response>;
let publicFetch: Promise<PublicFetch> | undefined;

/**
 * fetch whose connections stay on public addresses: undici's, with an Agent whose lookup is
 * publicLookup. undici is loaded with the first request, not at start: a Berth with no OAuthProvider
 * never holds it (the berth process keeps client-node's copy out too: src/cli/without-api-clients.ts).
 */
export function publicNetworkFetch(): Promise<PublicFetch> {
  publicFetch ??= import('undici').then(({ Agent, fetch }) => {
    // net.connect's lookup, which undici's connector passes on; its type there is narrower than Node's.
    const dispatcher = new Agent({ connect: { lookup: publicLookup as never } });
    // undici's Response is the class Node's global fetch answers with, from the package's own copy: its
    // type and the global one differ only in where they are declared.
    return (url, init) => fetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
  });
  return publicFetch;
}

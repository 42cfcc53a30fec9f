// Whether an organization proved it owns a custom_url host (src/api/host-ownership.ts says how): the
// platform's verified domains first, then the DNS TXT record, asked of the resolvers the installation
// names (--dns-servers) or the system's. The HTTP API asks before it writes a claim; the Deployment
// controller asks before it accepts one, and never again while the claim stands.
import { Resolver } from 'node:dns/promises';
import { ownershipRecordName, recordsProveOwnership, unprovenHostMessage, verifiedDomainsOf, withinVerifiedDomains } from '../api/index.ts';

export interface OwnershipQuestion {
  host: string;
  organizationId: string;
  /** The organization namespace's annotations: the domains the platform recorded as the organization's. */
  namespaceAnnotations?: Readonly<Record<string, string>> | undefined;
}

export type OwnershipVerdict = { proven: true; by: 'platform' | 'dns' } | { proven: false; message: string };

export type HostOwnershipProver = (question: OwnershipQuestion) => Promise<OwnershipVerdict>;

export interface DnsProofOptions {
  /** Resolvers to ask (`10.0.0.10`, `127.0.0.1:5353`); the system's when empty. */
  servers?: readonly string[];
  /** How long one query may take before it is retried once. */
  timeoutMs?: number;
}

/** Codes that mean the record is not there, as opposed to a lookup that failed. */
const absent = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'NODATA']);

export function dnsOwnershipProver(options: DnsProofOptions = {}): HostOwnershipProver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 3_000, tries: 2 });
  if (options.servers?.length) resolver.setServers([...options.servers]);
  return async ({ host, organizationId, namespaceAnnotations }) => {
    if (withinVerifiedDomains(host, verifiedDomainsOf(namespaceAnnotations))) return { proven: true, by: 'platform' };
    const record = ownershipRecordName(host);
    let found: string;
    try {
      const records = await resolver.resolveTxt(record);
      if (recordsProveOwnership(records, organizationId)) return { proven: true, by: 'dns' };
      found = records.length > 0 ? `${record} holds another value` : `${record} has no TXT record`;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'an unknown error';
      found = absent.has(code) ? `${record} has no TXT record` : `looking up ${record} failed: ${code}`;
    }
    return { proven: false, message: unprovenHostMessage(host, organizationId, found) };
  };
}

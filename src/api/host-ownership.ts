// Who owns a custom_url host: under an installation that asks for proof (organization policy
// `customHostProof: dns`), Berth routes and certifies a host only for an organization that proved it
// owns it, as Vercel and Render ask: a DNS TXT record `_berth-challenge.<host>` holding the
// organization's token, or a domain the platform recorded as the organization's (the organization
// namespace's annotation berth.dev/verified-domains, which a team cannot write). An unproven claim is
// refused the same way whether or not another organization holds the host, so a refusal tells nothing
// of other tenants; a host freed by a delete stays its owner's for as long as the owner's record
// names its token. Pure.
import { createHash } from 'node:crypto';
import { hostWithin } from './custom-hosts.ts';

/** The organization namespace's annotation where the platform lists domains an organization owns
 * (comma-separated: `example.com, shop.example.org`): a host equal to or under one needs no record. */
export const verifiedDomainsAnnotation = 'berth.dev/verified-domains';

/** Where an organization's proof for `host` is looked up. */
export function ownershipRecordName(host: string): string {
  return `_berth-challenge.${host}`;
}

/** What the record holds for `organizationId`: stable for the organization, the same for all its hosts. */
export function ownershipToken(organizationId: string): string {
  const digest = createHash('sha256').update(`berth custom host ownership\0${organizationId}`).digest('hex');
  return `berth-verification=${digest.slice(0, 32)}`;
}

/** The domains an organization namespace's annotation lists. */
export function verifiedDomainsOf(annotations: Readonly<Record<string, string>> | undefined): string[] {
  return (annotations?.[verifiedDomainsAnnotation] ?? '')
    .split(',')
    .map((domain) => domain.trim())
    .filter((domain) => domain.length > 0);
}

/** Whether `host` is one of `domains` or under one, as the installation's allowed domains are read. */
export function withinVerifiedDomains(host: string, domains: readonly string[]): boolean {
  return domains.some((domain) => hostWithin(host, domain));
}

/** Whether the TXT strings found at the record (each record's chunks joined) hold the token. */
export function recordsProveOwnership(records: readonly (readonly string[])[], organizationId: string): boolean {
  const token = ownershipToken(organizationId);
  return records.some((chunks) => chunks.join('').trim() === token);
}

/** The refusal of an unproven claim: the same words whoever holds the host, naming what to publish. */
export function unprovenHostMessage(host: string, organizationId: string, lookup: string): string {
  return (
    `custom_url host ${host} is not proven to be this organization's: publish a DNS TXT record ` +
    `${ownershipRecordName(host)} with the value ${ownershipToken(organizationId)} (${lookup}), ` +
    "or ask the platform team to add its domain to the organization namespace's annotation " +
    verifiedDomainsAnnotation
  );
}

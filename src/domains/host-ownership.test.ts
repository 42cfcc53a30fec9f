import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownershipToken, verifiedDomainsAnnotation } from '../api/index.ts';
import { startDnsServer, type TestDnsServer } from '../../test/support/dns-server.ts';
import { dnsOwnershipProver } from './host-ownership.ts';

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(() => dns?.close());

describe('dnsOwnershipProver', () => {
  const organizationId = 'b9f4c0de-0000-4000-8000-000000000001';
  const prove = () => dnsOwnershipProver({ servers: [dns.address], timeoutMs: 500 });

  it("proves a host whose _berth-challenge TXT record holds the organization's token, and no other organization's", async () => {
    dns.setTxt('_berth-challenge.shop.example.com', ['v=spf1 -all', ownershipToken(organizationId)]);
    expect(await prove()({ host: 'shop.example.com', organizationId })).toEqual({ proven: true, by: 'dns' });
    const other = await prove()({ host: 'shop.example.com', organizationId: 'another-organization' });
    expect(other.proven).toBe(false);
    expect(!other.proven && other.message).toContain('_berth-challenge.shop.example.com holds another value');
    expect(!other.proven && other.message).toContain(ownershipToken('another-organization'));
  });

  it('names the record and the value to publish when there is none', async () => {
    const verdict = await prove()({ host: 'new.example.com', organizationId });
    expect(verdict).toEqual({
      proven: false,
      message: expect.stringContaining(
        `publish a DNS TXT record _berth-challenge.new.example.com with the value ${ownershipToken(organizationId)} (_berth-challenge.new.example.com has no TXT record)`,
      ),
    });
  });

  it('takes a domain the platform recorded on the organization namespace, and its subdomains, without asking DNS', async () => {
    const annotations = { [verifiedDomainsAnnotation]: ' Corp.Example.org, *.shop.example ' };
    const unreachable = dnsOwnershipProver({ servers: ['127.0.0.1:9'], timeoutMs: 200 });
    for (const host of ['corp.example.org', 'www.corp.example.org', 'a.shop.example'])
      expect(await unreachable({ host, organizationId, namespaceAnnotations: annotations }), host).toEqual({
        proven: true,
        by: 'platform',
      });
    const outside = await unreachable({ host: 'xcorp.example.org', organizationId, namespaceAnnotations: annotations });
    expect(outside.proven).toBe(false);
    expect(!outside.proven && outside.message).toMatch(/looking up _berth-challenge.xcorp.example.org failed: E[A-Z]+/);
  });

  it('gives each organization its own token', () => {
    expect(ownershipToken('a')).not.toBe(ownershipToken('b'));
    expect(ownershipToken('a')).toMatch(/^berth-verification=[0-9a-f]{32}$/);
  });
});

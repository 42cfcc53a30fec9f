import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedServerCertificate } from './self-signed.ts';

describe('a self-signed server certificate', () => {
  it('names the DNS names, matches its key, and is its own issuer', async () => {
    const made = await selfSignedServerCertificate(['shop-postgres', 'shop-postgres.team.svc']);
    const certificate = new X509Certificate(made.certificate);
    expect(certificate.subject).toBe('CN=shop-postgres');
    expect(certificate.subjectAltName).toBe('DNS:shop-postgres, DNS:shop-postgres.team.svc');
    expect(certificate.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.checkHost('shop-postgres.team.svc')).toBe('shop-postgres.team.svc');
    expect(made.key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });
});

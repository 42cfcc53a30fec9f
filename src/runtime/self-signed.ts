// Self-signed certificates and their keys (ECDSA P-256, PEM): a server's, for clients that encrypt without
// checking whom they reach (Postgres' sslmode=require), and the registry's token signer's
// (registry/signing.ts). @peculiar/x509 is loaded on the first call, not at start (x509.ts).
import { randomBytes, webcrypto } from 'node:crypto';
// The library's types only: the module itself loads on the first certificate made.
import type { x509 as x509Module } from './x509.ts';

export interface CertificateAndKey {
  /** The certificate, PEM. */
  certificate: string;
  /** Its private key, PKCS#8 PEM. */
  key: string;
}

const validityMs = 10 * 365 * 24 * 3600 * 1000;

type X509 = typeof x509Module;

/** A self-signed ECDSA P-256 certificate named `CN=<commonName>`, valid ten years, with the extensions
 * `extensionsOf` makes from the library (loaded here). */
export async function selfSignedCertificate(
  commonName: string,
  extensionsOf: (x509: X509) => InstanceType<X509['Extension']>[],
): Promise<CertificateAndKey> {
  const { x509 } = await import('./x509.ts');
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const pair = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    // Positive: a serial whose first bit is set would read as negative.
    serialNumber: randomBytes(16)
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: `CN=${commonName}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + validityMs),
    keys: pair,
    signingAlgorithm: algorithm,
    extensions: extensionsOf(x509),
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', pair.privateKey);
  return { certificate: certificate.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** A server's certificate for these DNS names (the first is its common name). */
export function selfSignedServerCertificate(dnsNames: readonly [string, ...string[]]): Promise<CertificateAndKey> {
  return selfSignedCertificate(dnsNames[0], (x509) => [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value }))),
  ]);
}

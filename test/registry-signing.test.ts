// The registry's signing material: made once per operator namespace by whichever replica comes first,
// read by every other, and usable as the registry needs it (a key that signs, the certificate that checks).
import { createSign, createVerify, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ensureRegistrySigning, registrySigningSecretName } from '../src/registry/signing.ts';
import { kubeRequest } from '../src/runtime/index.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();

describe('ensureRegistrySigning', () => {
  it('makes one Secret when replicas race, and each reads the same key and certificate from it', async () => {
    const namespace = await useNamespace('signing');
    const [first, second] = await Promise.all([ensureRegistrySigning(kc, namespace), ensureRegistrySigning(kc, namespace)]);
    const again = await ensureRegistrySigning(kc, namespace);
    for (const other of [second, again]) {
      expect(other.certificateDer.equals(first.certificateDer)).toBe(true);
      expect(other.pushKey.equals(first.pushKey)).toBe(true);
    }
    const secret = await kubeRequest<{ metadata: { labels: Record<string, string> } }>(kc, {
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/secrets/${registrySigningSecretName}`,
    });
    expect(secret.metadata.labels['app.kubernetes.io/managed-by']).toBe('berth');

    const certificate = new X509Certificate(first.certificateDer);
    expect(certificate.subject).toBe('CN=berth-registry-token-issuer');
    // The DER is the PEM's body.
    expect(first.certificateDer.equals(Buffer.from(first.certificatePem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64'))).toBe(true);
    expect(certificate.checkPrivateKey(first.key)).toBe(true);
    const signature = createSign('SHA256').update('token').sign(first.key);
    expect(createVerify('SHA256').update('token').verify(certificate.publicKey, signature)).toBe(true);
    expect(first.pushKey).toHaveLength(32);
  });
});

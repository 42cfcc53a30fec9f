// Berth's registry signing material, kept in one Secret of the operator's namespace so every replica signs
// and checks alike: an ES256 key with its self-signed certificate (the registry trusts the certificate:
// `auth.token.rootcertbundle`) and the key of push tokens. Made once, by whichever replica comes first.
//
// Only making the certificate needs @peculiar/x509 (Node reads certificates but cannot make one): it
// is loaded then, not by every start. With its ASN.1 codecs and tsyringe it is about a hundred modules
// whose sources a process would otherwise keep for its whole life.
import { createPrivateKey, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { isKubeApiError, kubeRequest } from '../runtime/index.ts';
import { selfSignedCertificate } from '../runtime/self-signed.ts';

export const registrySigningSecretName = 'berth-registry-signing';
const keys = { key: 'tls.key', certificate: 'tls.crt', pushKey: 'push-token.key' } as const;

export interface RegistrySigning {
  key: KeyObject;
  certificatePem: string;
  certificateDer: Buffer;
  pushKey: Buffer;
}

async function generate(): Promise<Record<string, string>> {
  const made = await selfSignedCertificate('berth-registry-token-issuer', (x509) => [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  ]);
  return { [keys.key]: made.key, [keys.certificate]: made.certificate, [keys.pushKey]: randomBytes(32).toString('base64') };
}

function material(secret: V1Secret): RegistrySigning {
  const value = (key: string) => Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
  const certificatePem = value(keys.certificate);
  return {
    key: createPrivateKey(value(keys.key)),
    certificatePem,
    certificateDer: new X509Certificate(certificatePem).raw,
    pushKey: Buffer.from(value(keys.pushKey), 'base64'),
  };
}

/** Reads the Secret, or makes it (a replica that loses the race reads the winner's). */
export async function ensureRegistrySigning(kubeConfig: KubeConfig, namespace: string): Promise<RegistrySigning> {
  const secrets = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
  const read = () => kubeRequest<V1Secret>(kubeConfig, { method: 'GET', path: `${secrets}/${registrySigningSecretName}` });
  try {
    return material(await read());
  } catch (error) {
    if (!isKubeApiError(error, 404)) throw error;
  }
  const stringData = await generate();
  const body: V1Secret = {
    metadata: { name: registrySigningSecretName, namespace, labels: { 'app.kubernetes.io/managed-by': 'berth' } },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
  try {
    return material(await kubeRequest<V1Secret>(kubeConfig, { method: 'POST', path: secrets, body }));
  } catch (error) {
    if (!isKubeApiError(error, 409)) throw error;
    return material(await read());
  }
}

// The certificates of a local cluster: one CA; a serving certificate for the API server (loopback, the
// node's address and the `kubernetes` Service); client certificates for the admin (system:masters), the
// scheduler, kube-proxy, the kubelet (system:node:<name>) and the API server's calls to the kubelet; the
// kubelet's serving certificate; and the service-account key pair.
import { webcrypto } from 'node:crypto';
import { x509 } from '../src/runtime/x509.ts';
import { apiServiceIp, clusterDomain, nodeIp, nodeName } from './node/network.ts';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const keyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;
const tenYears = 10 * 365 * 24 * 3600 * 1000;

export interface Pki {
  caCert: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  schedulerCert: string;
  schedulerKey: string;
  proxyCert: string;
  proxyKey: string;
  kubeletClientCert: string;
  kubeletClientKey: string;
  kubeletServingCert: string;
  kubeletServingKey: string;
  apiserverKubeletClientCert: string;
  apiserverKubeletClientKey: string;
  /** The aggregation layer's: a CA of its own whose one client, the API server, proxies to extension
   * API servers (metrics-server) and says who asks in request headers. */
  frontProxyCaCert: string;
  frontProxyClientCert: string;
  frontProxyClientKey: string;
  /** metrics-server's identity towards the API server and the kubelet. */
  metricsServerCert: string;
  metricsServerKey: string;
  /** The metrics store's identity towards the kubelet, whose cAdvisor metrics it scrapes. */
  metricsStoreCert: string;
  metricsStoreKey: string;
  /** KEDA's operator and adapter: their identity towards the API server, the adapter's serving
   * certificate, and both ends of their mutual TLS (keda.ts). */
  kedaCert: string;
  kedaKey: string;
  /** CloudNativePG's operator: its identity towards the API server, and its admission webhooks'
   * serving certificate (postgres-operator.ts). */
  cnpgCert: string;
  cnpgKey: string;
  /** The barman-cloud plugin's identity towards the API server. */
  barmanCloudCert: string;
  barmanCloudKey: string;
  /** The local-path provisioner's identity towards the API server. */
  localPathCert: string;
  localPathKey: string;
  /** The apps' CA: cert-manager signs the Gateway's certificates with it (an Issuer of kind CA),
   * and whoever trusts it opens the apps' https:// URLs. Apart from the cluster's CA, which it never
   * signs for. */
  appsCaCert: string;
  appsCaKey: string;
}

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(keyAlgorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function publicKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('spki', key);
  return x509.PemConverter.encode(der, 'PUBLIC KEY');
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

interface Validity {
  notBefore: Date;
  notAfter: Date;
}

interface Authority {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  validity: Validity;
}

interface Issued {
  cert: string;
  key: string;
}

/** The self-signed CA every other certificate chains to. */
async function createAuthority(validity: Validity, name = 'CN=berth-local-ca'): Promise<Authority> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    ...validity,
    keys,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys, validity };
}

/** A leaf certificate and its new key, signed by `ca`, for the extended key usages given. */
async function issue(
  ca: Authority,
  subject: string,
  usage: string | string[],
  san?: x509.SubjectAlternativeNameExtension,
): Promise<Issued> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: ca.cert.subject,
    ...ca.validity,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(typeof usage === 'string' ? [usage] : usage),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      ...(san ? [san] : []),
    ],
  });
  return { cert: cert.toString('pem'), key: await privateKeyPem(keys.privateKey) };
}

/** Where the API server answers: loopback, the node's address, the `kubernetes` Service's names and IP. */
const apiServerNames = new x509.SubjectAlternativeNameExtension([
  { type: 'dns', value: 'localhost' },
  { type: 'dns', value: 'kubernetes' },
  { type: 'dns', value: 'kubernetes.default' },
  { type: 'dns', value: 'kubernetes.default.svc' },
  { type: 'dns', value: `kubernetes.default.svc.${clusterDomain}` },
  { type: 'ip', value: '127.0.0.1' },
  { type: 'ip', value: nodeIp },
  { type: 'ip', value: apiServiceIp },
]);

const kubeletNames = new x509.SubjectAlternativeNameExtension([
  { type: 'dns', value: nodeName },
  { type: 'ip', value: nodeIp },
  { type: 'ip', value: '127.0.0.1' },
]);

/** Where KEDA's operator (loopback) and adapter (the node's address) answer. */
const kedaNames = new x509.SubjectAlternativeNameExtension([
  { type: 'ip', value: '127.0.0.1' },
  { type: 'ip', value: nodeIp },
]);

/** Where CloudNativePG's admission webhooks answer: the Service the API server calls them through. */
export const cnpgWebhookService = { name: 'cnpg-webhook-service', namespace: 'cnpg-system' } as const;
const cnpgNames = new x509.SubjectAlternativeNameExtension([
  { type: 'dns', value: `${cnpgWebhookService.name}.${cnpgWebhookService.namespace}.svc` },
  { type: 'dns', value: `${cnpgWebhookService.name}.${cnpgWebhookService.namespace}.svc.${clusterDomain}` },
]);

/** Who the embedded cluster's kubeconfig is: the user `berth dev` runs Berth as. */
export const adminUserName = 'berth-admin';

/** Who the node's metrics store is when it scrapes the kubelet (metrics-store.ts grants it that read). */
export const metricsStoreUserName = 'system:metrics-store';

/** The one name the aggregation layer's client certificate may have (--requestheader-allowed-names). */
export const frontProxyClientName = 'front-proxy-client';

export async function generatePki(): Promise<Pki> {
  const ca = await createAuthority({ notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + tenYears) });
  const client = (subject: string) => issue(ca, subject, x509.ExtendedKeyUsage.clientAuth);
  const serving = await issue(ca, 'CN=kube-apiserver', x509.ExtendedKeyUsage.serverAuth, apiServerNames);
  const admin = await client(`CN=${adminUserName}, O=system:masters`);
  const scheduler = await client('CN=system:kube-scheduler');
  const proxy = await client('CN=system:kube-proxy');
  const kubeletClient = await client(`CN=system:node:${nodeName}, O=system:nodes`);
  const apiserverKubeletClient = await client('CN=kube-apiserver-kubelet-client, O=system:masters');
  const kubeletServing = await issue(ca, `CN=${nodeName}`, x509.ExtendedKeyUsage.serverAuth, kubeletNames);
  const metricsServer = await client('CN=system:metrics-server');
  const metricsStore = await client(`CN=${metricsStoreUserName}`);
  const keda = await issue(ca, 'CN=system:keda', [x509.ExtendedKeyUsage.clientAuth, x509.ExtendedKeyUsage.serverAuth], kedaNames);
  const cnpg = await issue(ca, 'CN=system:cnpg', [x509.ExtendedKeyUsage.clientAuth, x509.ExtendedKeyUsage.serverAuth], cnpgNames);
  const barmanCloud = await client('CN=system:barman-cloud');
  const localPath = await client('CN=system:local-path-provisioner');
  const frontProxyCa = await createAuthority(ca.validity, 'CN=berth-local-front-proxy-ca');
  const frontProxyClient = await issue(frontProxyCa, `CN=${frontProxyClientName}`, x509.ExtendedKeyUsage.clientAuth);
  const appsCa = await createAuthority(ca.validity, 'CN=berth-local-apps-ca');
  const saKeys = await keyPair();
  return {
    caCert: ca.cert.toString('pem'),
    ...pair('serving', serving),
    ...pair('admin', admin),
    serviceAccountKey: await privateKeyPem(saKeys.privateKey),
    serviceAccountPub: await publicKeyPem(saKeys.publicKey),
    ...pair('scheduler', scheduler),
    ...pair('proxy', proxy),
    ...pair('kubeletClient', kubeletClient),
    ...pair('kubeletServing', kubeletServing),
    ...pair('apiserverKubeletClient', apiserverKubeletClient),
    frontProxyCaCert: frontProxyCa.cert.toString('pem'),
    ...pair('frontProxyClient', frontProxyClient),
    ...pair('metricsServer', metricsServer),
    ...pair('metricsStore', metricsStore),
    ...pair('keda', keda),
    ...pair('cnpg', cnpg),
    ...pair('barmanCloud', barmanCloud),
    ...pair('localPath', localPath),
    appsCaCert: appsCa.cert.toString('pem'),
    appsCaKey: await privateKeyPem(appsCa.keys.privateKey),
  };
}

/** `{ <name>Cert, <name>Key }` of an issued certificate. */
function pair<N extends string>(name: N, issued: Issued): Record<`${N}Cert` | `${N}Key`, string> {
  return { [`${name}Cert`]: issued.cert, [`${name}Key`]: issued.key } as Record<`${N}Cert` | `${N}Key`, string>;
}

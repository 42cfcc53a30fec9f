// The node's certificates for the apps' https:// URLs: cert-manager's controller (built here,
// scripts/build-cert-manager.sh) runs beside the kubelet as a process of the node and signs the
// Certificates Berth asks for with the local apps CA (an Issuer of kind CA), whose certificate
// `berth dev` writes to its data dir for curl --cacert and browsers. The issuer is an Issuer in the
// Gateway's namespace, not a ClusterIssuer: a team that may make Certificates in its own namespace
// cannot ask it for another organization's names. Objects rendered by pure functions.
import type { KubeObject } from '../../src/runtime/index.ts';
import { nodeGateway } from './gateway.ts';
import { certManagerMetricsPort } from './network.ts';

/** The Issuer that signs the apps' certificates under `berth dev` (its `--tls-issuer`), beside the Gateway. */
export const nodeTlsIssuer = { kind: 'Issuer', name: 'berth-local-ca', namespace: nodeGateway.namespace } as const;

/** Where cert-manager keeps what cluster-wide issuers need and its leader lease. */
const certManagerNamespace = 'kube-system';
/** The apps CA's certificate and key, which the Issuer signs with (from its own namespace). */
export const appsCaSecret = { namespace: nodeTlsIssuer.namespace, name: 'berth-local-apps-ca' };
const labels = { 'app.kubernetes.io/name': 'cert-manager', 'app.kubernetes.io/managed-by': 'berth' };

/** The apps CA's Secret and the Issuer that signs with it. */
export function certificateObjects(ca: { cert: string; key: string }): KubeObject[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...appsCaSecret, labels },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': ca.cert, 'tls.key': ca.key },
    } as KubeObject,
    {
      apiVersion: 'cert-manager.io/v1',
      kind: nodeTlsIssuer.kind,
      metadata: { name: nodeTlsIssuer.name, namespace: nodeTlsIssuer.namespace, labels },
      spec: { ca: { secretName: appsCaSecret.name } },
    } as KubeObject,
  ];
}

/** cert-manager's controller: one instance (no election), every default controller but Gateway API's
 * listener shim (Berth asks for its certificates itself), its metrics (and health) on loopback. */
export function certManagerArgs(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--cluster-resource-namespace=${certManagerNamespace}`,
    '--leader-elect=false',
    '--enable-gateway-api=false',
    `--metrics-listen-address=127.0.0.1:${certManagerMetricsPort}`,
    '--v=1',
  ];
}

// The addresses of the local cluster, declared once. The node's address lives on an interface of its
// own (a bridge with no ports), so the API server, the kubelet and the registry listen on an address that is on this
// machine only (never the LAN), and pods reach it through the bridge's gateway.
export const nodeName = 'berth-node';
export const nodeInterface = 'berth-node';
export const nodeIp = '10.243.0.1';
/** A second address on the node's interface, for a service the platform runs apart from the node on a
 * network of its own: the helm suite's backup store, on a network its organizations' policy blocks. */
export const storageNetworkIp = '10.243.0.2';
export const serviceCidr = '10.96.0.0/16';
/** The `kubernetes` Service: the first address of the service range. */
export const apiServiceIp = '10.96.0.1';
export const dnsServiceIp = '10.96.0.10';
/** The activator's scaler (http-add-on.ts): a fixed address, which KEDA's operator on the host dials. */
export const activatorScalerServiceIp = '10.96.0.11';
export const clusterDomain = 'cluster.local';
export const clusterCidr = '10.244.0.0/16';
/** The size of the node's share of the cluster range, which the controller-manager gives it: 4,094
 * addresses. host-local hands them out in turn, so within a run no address a pod freed is given to a
 * new pod, which would otherwise inherit the old pod's rules until kube-router next programs them. */
export const nodePodCidrMaskSize = 20;
export const bridgeName = 'berth-cni0';
export const cniNetworkName = 'berth';
const registryPort = 5000;
export const registryAddress = `${nodeIp}:${registryPort}`;
/** Where a registry for pushed images (token authentication, Berth the issuer) listens beside it. */
export const pushRegistryAddress = `${nodeIp}:${registryPort + 1}`;
/** Where a second one listens, for a second Berth on the node at the same time: a registry trusts one
 * Berth's tokens (the node suite runs its agent-server file beside the others, test/node/file-needs.ts). */
export const secondPushRegistryAddress = `${nodeIp}:${registryPort + 2}`;
/** Every address a registry for pushed images may listen on: the node's containerd and BuildKit reach each over plain HTTP. */
export const pushRegistryAddresses: readonly string[] = [pushRegistryAddress, secondPushRegistryAddress];
/** The node's registry, read-only, on the same storage: pods that ask registryAddress get this one
 * (a DNAT rule for the pod network), so no build can replace a base image; the host writes. */
export const registryReaderPort = registryPort + 3;
export const kubeletPort = 20250;
export const kubeletHealthzPort = 20248;
/** The Gateway's HTTP listener: on loopback only, where `<deployment>.<organization>.localhost` resolves. */
export const gatewayHttpAddress = { host: '127.0.0.1', port: 18080 };
/** Where the node's Gateway terminates TLS for the apps' https:// URLs: loopback only. */
export const gatewayHttpsAddress = { host: '127.0.0.1', port: 18443 };
/** The Gateway's Prometheus metrics (its own entry point): loopback only, scraped by metrics-store.ts. */
export const gatewayMetricsAddress = { host: '127.0.0.1', port: 20490 };
/** cert-manager's metrics (and health) endpoint: loopback only. */
export const certManagerMetricsPort = 20402;

/** What builds on the node may not reach: link-local addresses, as anywhere, and the pod network (Berth,
 * its registries and git servers are on the node's address; cluster DNS stays reachable). */
export const nodeBuildBlockedCidrs: readonly string[] = ['169.254.0.0/16', 'fe80::/10', clusterCidr];

// The node's configuration files, rendered by pure functions from the node's directories: containerd,
// the CNI network, the kubelet, kube-proxy and the registry. The choices follow Kubernetes'
// hack/local-up-cluster.sh; the comments say where this machine kind needs something else.
import { stringify } from 'yaml';
import {
  bridgeName,
  clusterCidr,
  clusterDomain,
  cniNetworkName,
  dnsServiceIp,
  kubeletHealthzPort,
  kubeletPort,
  nodeIp,
  nodeName,
  registryAddress,
  registryReaderPort,
} from './network.ts';

/** Where one node keeps its state: everything under one directory, so a stop can remove it whole. */
export interface NodeDirs {
  root: string;
  containerdRoot: string;
  containerdState: string;
  containerdSocket: string;
  runcRoot: string;
  cniConfDir: string;
  cniIpamDir: string;
  certsDir: string;
  kubeletRoot: string;
  podLogs: string;
  registryStorage: string;
  logs: string;
}

interface NodeImages {
  /** The pod sandbox image, pinned in containerd so it is never garbage collected. */
  pause: string;
}

export function containerdConfig(dirs: NodeDirs, images: NodeImages): string {
  return `version = 3
root = ${JSON.stringify(dirs.containerdRoot)}
state = ${JSON.stringify(dirs.containerdState)}
disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.snapshotter.v1.erofs"]

[grpc]
  address = ${JSON.stringify(dirs.containerdSocket)}
[ttrpc]
  address = ${JSON.stringify(`${dirs.containerdSocket}.ttrpc`)}

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  pinned_images = { sandbox = ${JSON.stringify(images.pause)} }
  registry = { config_path = ${JSON.stringify(dirs.certsDir)} }

[plugins.'io.containerd.cri.v1.runtime']
  # These machines withhold CAP_SYS_RESOURCE: a sandbox asking for oom_score_adj -998 fails in runc.
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    options = { BinaryName = "/usr/sbin/runc", Root = ${JSON.stringify(dirs.runcRoot)}, SystemdCgroup = false }
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = ${JSON.stringify(dirs.cniConfDir)}
`;
}

/** containerd's hosts.toml for a registry on the node's address (the node's own, or the one for
 * pushed images): plain HTTP, pull and resolve; as a mirror of `server` when one is given. */
export function registryHostsToml(address: string, server = `http://${address}`): string {
  return `server = "${server}"

[host."http://${address}"]
  capabilities = ["pull", "resolve"]
`;
}

/** A bridge with host-local addresses from the node's pod CIDR. No masquerade here: traffic between
 * pods, Services and the node never needs it, and what leaves the machine (only in `berth dev`) is
 * masqueraded by one rule the harness owns. */
export function cniConfig(dirs: NodeDirs, podCidr: string): string {
  const gateway = podCidr.replace(/\.0\/\d+$/, '.1');
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: cniNetworkName,
      plugins: [
        {
          type: 'bridge',
          bridge: bridgeName,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: podCidr, gateway }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: dirs.cniIpamDir,
          },
        },
      ],
    },
    null,
    2,
  );
}

/** `pkiDir` holds the control plane's certificates (workbench/pki.ts), the kubelet's among them. */
export function kubeletConfig(dirs: NodeDirs, pkiDir: string): string {
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // The machines this runs on have cgroup v1 and no systemd.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${dirs.containerdSocket}`,
    address: nodeIp,
    port: kubeletPort,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: kubeletHealthzPort,
    tlsCertFile: `${pkiDir}/kubeletServingCert.pem`,
    tlsPrivateKeyFile: `${pkiDir}/kubeletServingKey.pem`,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: `${pkiDir}/caCert.pem` },
    },
    authorization: { mode: 'Webhook' },
    clusterDNS: [dnsServiceIp],
    clusterDomain,
    podLogsDir: dirs.podLogs,
    // A development node on a shared disk: never evict or collect images because the disk is full.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {
      'memory.available': '0%',
      'nodefs.available': '0%',
      'nodefs.inodesFree': '0%',
      'imagefs.available': '0%',
      'imagefs.inodesFree': '0%',
    },
    serializeImagePulls: false,
    makeIPTablesUtilChains: false,
    volumePluginDir: `${dirs.kubeletRoot}/volume-plugins`,
    // Images pulled under one name and found under another would otherwise report "not present".
    imagePullCredentialsVerificationPolicy: 'NeverVerify',
    // Secrets and ConfigMaps mounted in pods are refreshed within 10 s instead of a minute.
    syncFrequency: '10s',
  });
}

export function kubeProxyConfig(kubeconfigPath: string): string {
  return stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clusterCIDR: clusterCidr,
    hostnameOverride: nodeName,
    bindAddress: nodeIp,
    healthzBindAddress: '127.0.0.1:20256',
    metricsBindAddress: '127.0.0.1:20249',
    clientConnection: { kubeconfig: kubeconfigPath },
    // The sysctls behind conntrack need CAP_SYS_RESOURCE on these machines: leave them as they are.
    conntrack: { maxPerCore: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    // A Service's endpoints in its rules within 0.1 s of a change, not up to the default 1 s later: the
    // activator reaches a waking app through its Service, and is told it may as soon as a pod is ready.
    iptables: { localhostNodePorts: false, minSyncPeriod: '100ms' },
    nodePortAddresses: [`${nodeIp}/32`],
  });
}

/** CNCF distribution's config: filesystem storage at `storage`, plain HTTP at `address`, and more (auth). */
function distributionConfig(storage: string, address: string, more: Record<string, unknown> = {}, readOnly = false): string {
  return stringify({
    version: 0.1,
    log: { level: 'warn', accesslog: { disabled: true } },
    storage: {
      filesystem: { rootdirectory: storage },
      delete: { enabled: true },
      ...(readOnly ? { maintenance: { readonly: { enabled: true } } } : {}),
    },
    http: { addr: address, headers: { 'X-Content-Type-Options': ['nosniff'] } },
    ...more,
  });
}

/** The node's registry: open, on the node's address, for the host (which pushes the system images). */
export function registryConfig(dirs: NodeDirs): string {
  return distributionConfig(dirs.registryStorage, registryAddress);
}

/** The same storage, read-only: what pods reach at the registry's address (host.ts, registryReaderRule). */
export function registryReaderConfig(dirs: NodeDirs): string {
  return distributionConfig(dirs.registryStorage, `${nodeIp}:${registryReaderPort}`, {}, true);
}

/** The registry for pushed images: CNCF distribution with token authentication, Berth the token issuer
 * (`realm` its /v2/registry/token, `rootCertBundle` the certificate of Berth's Secret berth-registry-signing). */
export function pushRegistryConfig(input: {
  address: string;
  storage: string;
  realm: string;
  service: string;
  issuer: string;
  rootCertBundle: string;
}): string {
  return distributionConfig(input.storage, input.address, {
    auth: { token: { realm: input.realm, service: input.service, issuer: input.issuer, rootcertbundle: input.rootCertBundle } },
  });
}

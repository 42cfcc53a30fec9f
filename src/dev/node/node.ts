// A real single node beside the embedded control plane: containerd + runc, the kubelet, kube-scheduler,
// kube-proxy, the CNI bridge, an OCI registry, cluster DNS and a default StorageClass, all built from
// pinned sources and started the way Kubernetes' hack/local-up-cluster.sh starts them. One node per
// machine (the kubelet has fixed host paths): a second start while one runs is refused, and a start
// after a crash first undoes what the dead run left on the host.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { Resolver } from 'node:dns/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { fieldManager } from '../../api/group.ts';
import { applyObject } from '../../runtime/apply.ts';
import { kubeRequest } from '../../runtime/kube-request.ts';
import { kubeconfig, readPki, type ControlPlane } from '../controlplane.ts';
import type { Pki } from '../pki.ts';
import { startSupervised, type SupervisedProcess } from '../supervised-process.ts';
import {
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  registryConfig,
  registryHostsToml,
  registryReaderConfig,
  type NodeDirs,
} from './configs.ts';
import { cleanupHost, missingPrerequisites, prepareHost, processAlive, readHostState, type HostState } from './host.ts';
import { buildImage, pushImage } from './images.ts';
import {
  apiServiceIp,
  dnsServiceIp,
  gatewayHttpAddress,
  gatewayHttpsAddress,
  nodeIp,
  nodeName,
  podCidr,
  pushRegistryAddress,
  registryAddress,
} from './network.ts';
import { gatewayObjects, nodeGateway, traefikConfig } from './gateway.ts';
import { installCrds } from '../install-crds.ts';
import { clusterDnsObjects, storageClass } from './system-objects.ts';
import { metricsServerArgs, metricsServerObjects } from './metrics.ts';
import { certManagerArgs, certificateObjects, nodeTlsIssuer } from './certificates.ts';
import { kedaAdapterArgs, kedaCertFiles, kedaEnvironment, kedaObjects, kedaOperatorArgs, kedaOperatorRole } from './keda.ts';
import { metricsStoreArgs, metricsStoreScrapeConfig } from './metrics-store.ts';
import { httpAddOnObjects } from './http-add-on.ts';
import { cachedBuild } from '../cache-dir.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const pauseTag = '3.10.2';

export interface NodeBinaries {
  /** kubelet, kube-scheduler, kube-proxy (with the control plane's binaries). */
  kube: string;
  /** containerd, containerd-shim-runc-v2, ctr, coredns, crane. */
  node: string;
  /** traefik, and crds/: the Gateway API's (scripts/build-gateway.sh). */
  gateway: string;
  /** kube-router, whose network policy controller enforces NetworkPolicies (scripts/build-network-policy.sh). */
  networkPolicy: string;
  /** metrics-server, which serves metrics.k8s.io for `kubectl top` and autoscalers (scripts/build-metrics-server.sh). */
  metrics: string;
  /** cert-manager-controller, and crds/: cert-manager's (scripts/build-cert-manager.sh). */
  certManager: string;
  /** keda-operator, keda-adapter, crds/ and rbac/: KEDA's (scripts/build-keda.sh). */
  keda: string;
  /** victoria-metrics, the Prometheus-compatible server KEDA reads (scripts/build-victoria-metrics.sh). */
  metricsStore: string;
  /** keda-http-interceptor, keda-http-scaler and crds/: KEDA's HTTP add-on (scripts/build-http-add-on.sh). */
  httpAddOn: string;
}

/** Builds the node's activator if it is not cached yet (scripts/build-http-add-on.sh). */
export function httpAddOnBinaries(): string {
  return process.env.BERTH_HTTP_ADD_ON_BIN ?? cachedBuild('http-add-on');
}

/** Builds the node's KEDA if it is not cached yet (scripts/build-keda.sh). */
export function kedaBinaries(): string {
  return process.env.BERTH_KEDA_BIN ?? cachedBuild('keda');
}

/** Builds the node's Prometheus-compatible server if it is not cached yet (scripts/build-victoria-metrics.sh). */
export function metricsStoreBinaries(): string {
  return process.env.BERTH_METRICS_STORE_BIN ?? cachedBuild('victoria-metrics');
}

/** Builds the node's cert-manager if it is not cached yet (scripts/build-cert-manager.sh). */
export function certManagerBinaries(): string {
  return process.env.BERTH_CERT_MANAGER_BIN ?? cachedBuild('cert-manager');
}

/** Builds the node's metrics-server if it is not cached yet (scripts/build-metrics-server.sh). */
export function metricsBinaries(): string {
  return process.env.BERTH_METRICS_SERVER_BIN ?? cachedBuild('metrics-server');
}

/** Builds the node's network policy controller if it is not cached yet (scripts/build-network-policy.sh). */
export function networkPolicyBinaries(): string {
  return process.env.BERTH_NETWORK_POLICY_BIN ?? cachedBuild('network-policy');
}

/** Builds the node's Gateway if it is not cached yet (scripts/build-gateway.sh). */
export function gatewayBinaries(): string {
  return process.env.BERTH_GATEWAY_BIN ?? cachedBuild('gateway');
}

/** Builds the node's binaries if they are not cached yet (scripts/build-node.sh). */
export function nodeBinaries(): string {
  if (process.env.BERTH_NODE_BIN) return process.env.BERTH_NODE_BIN;
  return cachedBuild('node');
}

export function nodeDirs(dataDir: string): NodeDirs {
  const root = join(resolve(dataDir), 'node');
  return {
    root,
    containerdRoot: join(root, 'containerd/root'),
    containerdState: join(root, 'containerd/state'),
    containerdSocket: join(root, 'containerd/containerd.sock'),
    runcRoot: join(root, 'runc'),
    cniConfDir: join(root, 'cni/net.d'),
    cniIpamDir: join(root, 'cni/ipam'),
    certsDir: join(root, 'containerd/certs.d'),
    kubeletRoot: join(root, 'kubelet'),
    podLogs: join(root, 'pod-logs'),
    registryStorage: join(resolve(dataDir), 'registry-data'),
    logs: join(resolve(dataDir), 'logs'),
  };
}

/**
 * Makes the host ready for a node before the control plane starts (the API server listens on the
 * node's address): refuses when another node runs, cleans up after one that died, then records and
 * changes the host. Throws with the missing prerequisites when the machine cannot run a node.
 */
export async function prepareNodeHost(
  dataDir: string,
  options: { masquerade: boolean; keepVolumes: boolean; kubeBin: string; log: (m: string) => void },
): Promise<void> {
  let missing = missingPrerequisites();
  if (missing.length > 0 && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    // Debian's packages the node takes as they are: installed once, by the same script CI runs.
    options.log('installing the Debian packages a node needs (scripts/install-node-packages.sh)');
    try {
      execFileSync('bash', [join(repoRoot, 'scripts/install-node-packages.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
    } catch {
      options.log('could not install them; the message above says why');
    }
    missing = missingPrerequisites();
  }
  if (missing.length > 0) throw new NodePrerequisitesError(missing);
  await cleanUpAfterDeadNode(options.kubeBin, options.log);
  await prepareHost(resolve(dataDir), { masquerade: options.masquerade, keepVolumes: options.keepVolumes });
}

/** Undoes what a node that died left on the host (pods, mounts, routes, rules, sysctls); refuses when
 * a live process still owns a node. */
export async function cleanUpAfterDeadNode(kubeBin: string, log: (m: string) => void = () => {}): Promise<void> {
  const previous = readHostState();
  if (!previous) return;
  if (previous.pid !== process.pid && processAlive(previous.pid)) {
    throw new Error(`a node already runs on this machine (process ${previous.pid}, data in ${previous.dataDir}): one node per machine`);
  }
  log(`cleaning up after a node that did not stop (data in ${previous.dataDir})`);
  await undoHostChanges(previous, kubeBin);
}

function undoHostChanges(state: HostState, kubeBin: string): Promise<void> {
  return cleanupHost(state, { kubeProxy: join(kubeBin, 'kube-proxy'), containerdSocket: nodeDirs(state.dataDir).containerdSocket });
}

export class NodePrerequisitesError extends Error {
  readonly missing: string[];
  constructor(missing: string[]) {
    super(`this machine cannot run a node: it lacks ${missing.join('; ')}`);
    this.missing = missing;
  }
}

export interface NodeOptions {
  dataDir: string;
  /** The control plane, started for a node: its API server's URL, admin kubeconfig and certificates. */
  controlPlane: Pick<ControlPlane, 'server' | 'kubeconfigPath' | 'pkiDir'>;
  binaries: NodeBinaries;
  /** CoreDNS forwards names outside the cluster to the host's resolver (`berth dev`), or answers only the cluster's. */
  forwardDns: boolean;
  log?: (message: string) => void;
  readyTimeoutMs?: number;
}

export interface LocalNode {
  /** host:port of the node's registry, reachable from the host and from pods. */
  readonly registry: string;
  /** Stops the node's processes; releaseNodeHost then undoes the host changes. */
  stop(): Promise<void>;
}

/** Starts the node's processes (the host prepared, the control plane up) and waits until the node is
 * Ready and cluster DNS answers. */
export async function startNode(options: NodeOptions): Promise<LocalNode> {
  const log = options.log ?? (() => {});
  const dirs = nodeDirs(options.dataDir);
  const { kube, node } = options.binaries;
  const pki = writeNodeFiles(dirs, options.controlPlane);
  const processes: SupervisedProcess[] = [];
  const supervise = (name: string, binary: string, args: string[], env?: NodeJS.ProcessEnv) => {
    const started = startSupervised(name, binary, args, join(dirs.logs, `${name}.log`), env);
    processes.push(started);
    return started;
  };
  const stop = async () => {
    for (const p of [...processes].reverse()) await p.stop();
  };
  try {
    supervise('registry', '/usr/bin/docker-registry', ['serve', join(dirs.root, 'registry.yaml')]);
    supervise('registry-reader', '/usr/bin/docker-registry', ['serve', join(dirs.root, 'registry-reader.yaml')]);
    const pushed = await pushSystemImages(join(node, 'crane'), join(node, 'coredns'), log);
    writeFileSync(join(dirs.root, 'containerd.toml'), containerdConfig(dirs, { pause: pushed.pause! }));
    // containerd finds its shim on PATH: ours first, never another containerd's (Docker's is older).
    supervise('containerd', join(node, 'containerd'), ['--config', join(dirs.root, 'containerd.toml'), '--log-level', 'warn'], {
      ...process.env,
      PATH: `${node}:${process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'}`,
    });
    await waitFor(async () => existsSync(dirs.containerdSocket), 10_000, 'containerd');
    supervise('kubelet', join(kube, 'kubelet'), [
      `--config=${join(dirs.root, 'kubelet.yaml')}`,
      `--kubeconfig=${join(dirs.root, 'kubelet.kubeconfig')}`,
      `--root-dir=${dirs.kubeletRoot}`,
      `--cert-dir=${join(dirs.kubeletRoot, 'pki')}`,
      `--hostname-override=${nodeName}`,
      `--node-ip=${nodeIp}`,
      '--v=1',
    ]);
    supervise('kube-scheduler', join(kube, 'kube-scheduler'), [
      `--kubeconfig=${join(dirs.root, 'scheduler.kubeconfig')}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      '--secure-port=20259',
      '--v=1',
    ]);
    supervise('kube-proxy', join(kube, 'kube-proxy'), [`--config=${join(dirs.root, 'kube-proxy.yaml')}`, '--v=1']);
    const kc = new KubeConfig();
    kc.loadFromFile(options.controlPlane.kubeconfigPath);
    for (const object of [storageClass(), ...clusterDnsObjects(pushed.coredns!, options.forwardDns)])
      await applyObject(kc, object as never, fieldManager);
    await installCrds(kc, join(options.binaries.gateway, 'crds'));
    for (const object of gatewayObjects()) await applyObject(kc, object as never, fieldManager);
    writeFileSync(join(dirs.root, 'gateway.yaml'), traefikConfig());
    supervise('gateway', join(options.binaries.gateway, 'traefik'), [`--configFile=${join(dirs.root, 'gateway.yaml')}`], {
      ...process.env,
      KUBECONFIG: options.controlPlane.kubeconfigPath,
    });
    const timeout = options.readyTimeoutMs ?? 120_000;
    await waitFor(() => nodeReady(kc), timeout, `node ${nodeName} Ready (see ${dirs.logs}/kubelet.log)`);
    log(`node ${nodeName} Ready`);
    // NetworkPolicies enforced as on a cluster, once the Node exists (the controller finds itself by
    // it): kube-router's policy controller alone (iptables and ipsets; the bridge CNI and kube-proxy keep
    // routing and Services). Its chains are KUBE-*, removed with the others when the node stops, its
    // ipsets with them.
    supervise('network-policy', join(options.binaries.networkPolicy, 'kube-router'), [
      `--kubeconfig=${options.controlPlane.kubeconfigPath}`,
      `--hostname-override=${nodeName}`,
      '--run-firewall=true',
      '--run-router=false',
      '--run-service-proxy=false',
      '--enable-cni=false',
      '--health-port=0',
      '--v=1',
    ]);
    // Resource metrics for `kubectl top` and autoscalers, served through the aggregation layer.
    for (const object of metricsServerObjects()) await applyObject(kc, object as never, fieldManager);
    supervise(
      'metrics-server',
      join(options.binaries.metrics, 'metrics-server'),
      metricsServerArgs({
        kubeconfig: join(dirs.root, 'metrics-server.kubeconfig'),
        certDir: join(dirs.root, 'metrics-server'),
        caFile: join(options.controlPlane.pkiDir, 'caCert.pem'),
      }),
    );
    // Certificates for the apps' https:// URLs, signed by the local apps CA.
    await installCrds(kc, join(options.binaries.certManager, 'crds'));
    for (const object of certificateObjects({ cert: pki.appsCaCert, key: pki.appsCaKey }))
      await applyObject(kc, object as never, fieldManager);
    supervise(
      'cert-manager',
      join(options.binaries.certManager, 'cert-manager-controller'),
      certManagerArgs(options.controlPlane.kubeconfigPath),
    );
    // Autoscaling on what KEDA reads: the Gateway's request concurrency (through the metrics store) and CPU.
    supervise(
      'metrics-store',
      join(options.binaries.metricsStore, 'victoria-metrics'),
      metricsStoreArgs({ dataDir: join(dirs.root, 'metrics-store'), scrapeConfig: join(dirs.root, 'metrics-store.yaml') }),
    );
    await installCrds(kc, join(options.binaries.keda, 'crds'));
    for (const object of [kedaOperatorRole(options.binaries.keda), ...kedaObjects()]) await applyObject(kc, object as never, fieldManager);
    const kedaFiles = { kubeconfig: join(dirs.root, 'keda.kubeconfig'), certDir: join(dirs.root, 'keda') };
    const kedaEnv = { ...process.env, ...kedaEnvironment };
    supervise('keda-operator', join(options.binaries.keda, 'keda-operator'), kedaOperatorArgs(kedaFiles), kedaEnv);
    supervise('keda-adapter', join(options.binaries.keda, 'keda-adapter'), kedaAdapterArgs(kedaFiles), kedaEnv);
    // Scale to zero and back on requests: KEDA's HTTP add-on, its interceptor and scaler as pods.
    await installCrds(kc, join(options.binaries.httpAddOn, 'crds'));
    const addOnImage = await pushHttpAddOnImage(join(node, 'crane'), options.binaries.httpAddOn, log);
    for (const object of httpAddOnObjects(addOnImage)) await applyObject(kc, object as never, fieldManager);
    await waitFor(
      () => clusterDnsAnswers(),
      timeout,
      `cluster DNS at ${dnsServiceIp}`,
      () => dnsPods(kc),
    );
    log('cluster DNS answers');
    await waitFor(() => gatewayProgrammed(kc), timeout, `the Gateway (see ${dirs.logs}/gateway.log)`);
    log(
      `the Gateway serves http://${gatewayHttpAddress.host}:${gatewayHttpAddress.port} and https://${gatewayHttpsAddress.host}:${gatewayHttpsAddress.port}`,
    );
    await waitFor(() => issuerReady(kc), timeout, `cert-manager's Issuer ${nodeTlsIssuer.name} (see ${dirs.logs}/cert-manager.log)`);
    log(`cert-manager signs the apps' certificates (Issuer ${nodeTlsIssuer.namespace}/${nodeTlsIssuer.name})`);
    return { registry: registryAddress, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Undoes what the node did to the host, once its processes and the control plane have stopped. */
export async function releaseNodeHost(kubeBin: string): Promise<void> {
  const state = readHostState();
  if (state?.pid === process.pid) await undoHostChanges(state, kubeBin);
}

/** Writes the node processes' files; answers the certificates they were made from. */
function writeNodeFiles(dirs: NodeDirs, controlPlane: NodeOptions['controlPlane']): Pki {
  for (const dir of [dirs.root, dirs.cniConfDir, dirs.cniIpamDir, dirs.kubeletRoot, dirs.podLogs, dirs.registryStorage, dirs.logs]) {
    mkdirSync(dir, { recursive: true });
  }
  // containerd looks registries up by host:port, with ':' kept on Linux.
  for (const address of [registryAddress, pushRegistryAddress]) {
    mkdirSync(join(dirs.certsDir, address), { recursive: true });
    writeFileSync(join(dirs.certsDir, address, 'hosts.toml'), registryHostsToml(address));
  }
  // Docker Hub names resolve to the node's registry first (the agent server's base image, built here).
  mkdirSync(join(dirs.certsDir, 'docker.io'), { recursive: true });
  writeFileSync(join(dirs.certsDir, 'docker.io', 'hosts.toml'), registryHostsToml(registryAddress, 'https://registry-1.docker.io'));
  writeFileSync(join(dirs.cniConfDir, '10-berth.conflist'), cniConfig(dirs, podCidr));
  writeFileSync(join(dirs.root, 'kubelet.yaml'), kubeletConfig(dirs, controlPlane.pkiDir));
  writeFileSync(join(dirs.root, 'registry.yaml'), registryConfig(dirs));
  writeFileSync(join(dirs.root, 'registry-reader.yaml'), registryReaderConfig(dirs));
  const { server } = controlPlane;
  const pki = readPki(controlPlane.pkiDir);
  writeFileSync(
    join(dirs.root, 'kubelet.kubeconfig'),
    kubeconfig(server, pki, { cert: pki.kubeletClientCert, key: pki.kubeletClientKey }),
    { mode: 0o600 },
  );
  writeFileSync(join(dirs.root, 'scheduler.kubeconfig'), kubeconfig(server, pki, { cert: pki.schedulerCert, key: pki.schedulerKey }), {
    mode: 0o600,
  });
  writeFileSync(join(dirs.root, 'kube-proxy.kubeconfig'), kubeconfig(server, pki, { cert: pki.proxyCert, key: pki.proxyKey }), {
    mode: 0o600,
  });
  writeFileSync(
    join(dirs.root, 'metrics-server.kubeconfig'),
    kubeconfig(server, pki, { cert: pki.metricsServerCert, key: pki.metricsServerKey }),
    { mode: 0o600 },
  );
  writeFileSync(join(dirs.root, 'keda.kubeconfig'), kubeconfig(server, pki, { cert: pki.kedaCert, key: pki.kedaKey }), { mode: 0o600 });
  mkdirSync(join(dirs.root, 'keda'), { recursive: true });
  for (const [name, pem] of Object.entries(kedaCertFiles(pki))) writeFileSync(join(dirs.root, 'keda', name), pem, { mode: 0o600 });
  writeFileSync(join(dirs.root, 'metrics-store.yaml'), metricsStoreScrapeConfig());
  // kube-proxy exits when its configuration file changes: written once, before it starts.
  writeFileSync(join(dirs.root, 'kube-proxy.yaml'), kubeProxyConfig(join(dirs.root, 'kube-proxy.kubeconfig')));
  return pki;
}

/** Builds (or finds cached) the node's system images while the registry starts, then pushes them;
 * resolves with their pinned references. */
async function pushSystemImages(crane: string, coredns: string, log: (m: string) => void): Promise<Record<string, string>> {
  const [pause, dns] = await Promise.all([
    buildImage('pause', {}, log),
    buildImage('coredns', { files: [coredns], env: { COREDNS_BIN: coredns } }, log),
  ]);
  await waitFor(() => httpOk(`http://${registryAddress}/v2/`), 10_000, 'the registry');
  const [pauseRef, dnsRef] = await Promise.all([
    pushImage(crane, pause, `${registryAddress}/berth/pause:${pauseTag}`),
    pushImage(crane, dns, `${registryAddress}/berth/coredns:latest`),
  ]);
  return { pause: pauseRef, coredns: dnsRef };
}

/** KEDA's HTTP add-on's image (both its binaries), built here and pushed to the node's registry (cached). */
async function pushHttpAddOnImage(crane: string, httpAddOn: string, log: (m: string) => void): Promise<string> {
  const binaries = ['keda-http-interceptor', 'keda-http-scaler'].map((name) => join(httpAddOn, name));
  const image = await buildImage('keda-http-add-on', { files: binaries, env: { HTTP_ADD_ON_BIN: httpAddOn } }, log);
  return pushImage(crane, image, `${registryAddress}/berth/keda-http-add-on:latest`);
}

/** The Postgres and Redis images built from Debian's packages, pushed to the node's registry (cached). */
export async function pushServiceImages(
  nodeBin: string,
  log: (m: string) => void = () => {},
): Promise<{ postgres: string; redis: string }> {
  const crane = join(nodeBin, 'crane');
  const [postgres, redis] = await Promise.all([buildImage('postgres', {}, log), buildImage('redis', {}, log)]);
  return {
    postgres: await pushImage(crane, postgres, `${registryAddress}/berth/postgres:15`),
    redis: await pushImage(crane, redis, `${registryAddress}/berth/redis:7`),
  };
}

export interface BuildImages {
  builder: string;
  git: string;
  buildTools: string;
  /** The agent server's base image: it has the reference's tooling that makes Dockerfiles. */
  agentTools: string;
}

/** Where the agent server's base image is pushed: the name Dockerfiles use, which BuildKit and
 * containerd on the node look for in the node's registry first. */
export const agentServerBaseReference = `${registryAddress}/langchain/langgraph-api:3.11`;

/** The images of a codehost build (BuildKit with runc, git, busybox for the commands), built here and
 * pushed to the node's registry (cached); the builder reaches that registry over plain HTTP. The agent
 * server's base image goes there too, under its Docker Hub name. */
export async function pushBuildImages(nodeBin: string, log: (m: string) => void = () => {}): Promise<BuildImages> {
  const crane = join(nodeBin, 'crane');
  const buildkit = cachedBuild('buildkit');
  const [builder, git, buildTools, agentServer] = await Promise.all([
    buildImage('builder', { env: { BUILDKIT_BIN: buildkit, INSECURE_REGISTRY: registryAddress, PUSH_REGISTRY: pushRegistryAddress } }, log),
    buildImage('git', {}, log),
    buildImage('build-tools', {}, log),
    buildImage('agent-server', {}, log),
  ]);
  return {
    agentTools: await pushImage(crane, agentServer, agentServerBaseReference),
    builder: await pushImage(crane, builder, `${registryAddress}/berth/buildkit:latest`),
    git: await pushImage(crane, git, `${registryAddress}/berth/git:latest`),
    buildTools: await pushImage(crane, buildTools, `${registryAddress}/berth/build-tools:latest`),
  };
}

/** Whether the object at `path` has condition `type` True (false while it or its API is missing). */
async function conditionTrue(kc: KubeConfig, path: string, type: string): Promise<boolean> {
  const object = await kubeRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(kc, { method: 'GET', path }).catch(
    () => undefined,
  );
  return object?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

function issuerReady(kc: KubeConfig): Promise<boolean> {
  return conditionTrue(kc, `/apis/cert-manager.io/v1/namespaces/${nodeTlsIssuer.namespace}/issuers/${nodeTlsIssuer.name}`, 'Ready');
}

function gatewayProgrammed(kc: KubeConfig): Promise<boolean> {
  return conditionTrue(
    kc,
    `/apis/gateway.networking.k8s.io/v1/namespaces/${nodeGateway.namespace}/gateways/${nodeGateway.name}`,
    'Programmed',
  );
}

async function nodeReady(kc: KubeConfig): Promise<boolean> {
  const found = await kubeRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(kc, {
    method: 'GET',
    path: `/api/v1/nodes/${nodeName}`,
  }).catch(() => undefined);
  return found?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

async function clusterDnsAnswers(): Promise<boolean> {
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dnsServiceIp]);
  const addresses = await resolver.resolve4('kubernetes.default.svc.cluster.local').catch((): string[] => []);
  return addresses.includes(apiServiceIp);
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((resolveOk) => {
    const req = request(url, { timeout: 1000 }, (res) => {
      res.resume();
      resolveOk(res.statusCode === 200);
    });
    req.on('error', () => resolveOk(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** The cluster DNS pods' state, for an error message. */
async function dnsPods(kc: KubeConfig): Promise<string> {
  type Pod = {
    metadata: { name: string };
    status?: {
      phase?: string;
      containerStatuses?: { ready: boolean; restartCount: number; state?: Record<string, { reason?: string }> }[];
    };
  };
  const list = await kubeRequest<{ items: Pod[] }>(kc, {
    method: 'GET',
    path: '/api/v1/namespaces/kube-system/pods',
    query: { labelSelector: 'k8s-app=kube-dns' },
  }).catch(() => ({ items: [] }));
  const pods = list.items.map((pod) => {
    const container = pod.status?.containerStatuses?.[0];
    const state = container?.state
      ? Object.entries(container.state)
          .map(([k, v]) => `${k}${v.reason ? ` (${v.reason})` : ''}`)
          .join(',')
      : 'no container status';
    return `${pod.metadata.name}: ${pod.status?.phase ?? 'unknown'}, ${state}, ready ${container?.ready ?? false}, restarts ${container?.restartCount ?? 0}`;
  });
  return pods.length > 0 ? pods.join('; ') : 'no CoreDNS pod';
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, explain?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${explain ? `: ${await explain()}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

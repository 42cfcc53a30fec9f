// A real single node beside the embedded control plane: containerd + runc, the kubelet, kube-scheduler,
// kube-proxy, the CNI bridge, an OCI registry, cluster DNS and a default StorageClass, all built from
// pinned sources and started the way Kubernetes' hack/local-up-cluster.sh starts them. One node per
// machine (the kubelet has fixed host paths): a second start while one runs is refused, and a start
// after a crash first undoes what the dead run left on the host.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { Resolver } from 'node:dns/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { fieldManager } from '../../src/api/group.ts';
import { applyObject } from '../../src/runtime/apply.ts';
import { kubeRequest } from '../../src/runtime/kube-request.ts';
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
  pushRegistryAddresses,
  registryAddress,
} from './network.ts';
import { gatewayObjects, nodeGateway, traefikConfig } from './gateway.ts';
import { installCrds } from '../install-crds.ts';
import { clusterDnsObjects, storageClass } from './system-objects.ts';
import { kedaCertFiles } from './keda.ts';
import { metricsReaderConfig, metricsStoreScrapeConfig } from './metrics-store.ts';
import { cachedBuild } from '../cache-dir.ts';
import { eventually } from '../support/poll.ts';

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pauseTag = '3.10.2';

/** The binaries the node's core runs (its parts bring their own: ./parts.ts). */
export interface NodeBinaries {
  /** kubelet, kube-scheduler, kube-proxy (with the control plane's binaries). */
  kube: string;
  /** containerd, containerd-shim-runc-v2, ctr, coredns, crane (scripts/build-node.sh). */
  node: string;
  /** traefik, and crds/: the Gateway API's (scripts/build-gateway.sh). */
  gateway: string;
}

/** Builds the node's binaries if they are not cached yet (scripts/build-node.sh). */
export function nodeBinaries(): string {
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

/** Throws with the missing prerequisites when the machine cannot run a node; as root on Debian, first
 * installs the packages the node takes as they are (scripts/install-node-packages.sh, as CI does). */
export async function ensureNodePrerequisites(log: (m: string) => void): Promise<void> {
  let missing = missingPrerequisites();
  if (missing.length > 0 && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log('installing the Debian packages a node needs (scripts/install-node-packages.sh)');
    await run('bash', [join(repoRoot, 'scripts/install-node-packages.sh')]).catch((error: { stderr?: string }) =>
      log(`could not install them: ${error.stderr?.trim().split('\n').slice(-3).join(' ') ?? String(error)}`),
    );
    missing = missingPrerequisites();
  }
  if (missing.length > 0) throw new NodePrerequisitesError(missing);
}

/** Makes the host ready for a node before the control plane starts (the API server listens on the
 * node's address): refuses when another node runs, cleans up after one that died, then records and
 * changes the host. */
export async function prepareNodeHost(
  dataDir: string,
  options: { masquerade: boolean; keepVolumes: boolean; kubeBin: string; log: (m: string) => void },
): Promise<void> {
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

/** What a part of the node is started with: the cluster, the node's files, and a way to run a process
 * of the node (stopped with it). */
export interface NodeContext {
  kc: KubeConfig;
  dirs: NodeDirs;
  controlPlane: NodeOptions['controlPlane'];
  pki: Pki;
  /** containerd's, CoreDNS's and crane's directory (scripts/build-node.sh). */
  nodeBin: string;
  supervise(name: string, binary: string, args: string[], env?: NodeJS.ProcessEnv): void;
  /** Resolves when check does, or throws after the node's ready timeout with what was awaited. */
  waitFor(check: () => Promise<boolean>, what: string, explain?: () => Promise<string>): Promise<void>;
  log(message: string): void;
}

export interface LocalNode {
  /** host:port of the node's registry, reachable from the host and from pods. */
  readonly registry: string;
  /** For the node's parts (./parts.ts), started once the node runs. */
  readonly context: NodeContext;
  /** Stops the node's processes, its parts' among them; releaseNodeHost then undoes the host changes. */
  stop(): Promise<void>;
}

/** Starts the node's core (the host prepared, the control plane up): the registry, containerd, the
 * kubelet, kube-scheduler, kube-proxy, cluster DNS and the Gateway; waits until the node is Ready, DNS
 * answers and the Gateway is programmed. Its other parts start beside it (./parts.ts). */
export async function startNode(options: NodeOptions): Promise<LocalNode> {
  const log = options.log ?? (() => {});
  const dirs = nodeDirs(options.dataDir);
  const { kube, node, gateway } = options.binaries;
  const pki = writeNodeFiles(dirs, options.controlPlane);
  const processes: SupervisedProcess[] = [];
  let stopped = false;
  const supervise = (name: string, binary: string, args: string[], env?: NodeJS.ProcessEnv) => {
    if (stopped) throw new Error(`the node has stopped: ${name} is not started`);
    processes.push(startSupervised(name, binary, args, join(dirs.logs, `${name}.log`), env));
  };
  const stop = async () => {
    stopped = true;
    for (const p of [...processes].reverse()) await p.stop();
  };
  const timeout = options.readyTimeoutMs ?? 120_000;
  const kc = new KubeConfig();
  kc.loadFromFile(options.controlPlane.kubeconfigPath);
  const context: NodeContext = {
    kc,
    dirs,
    controlPlane: options.controlPlane,
    pki,
    nodeBin: node,
    supervise,
    waitFor: (check, what, explain) => waitFor(check, timeout, what, explain),
    log,
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
    await writeCniConfig(context);
    supervise('kube-scheduler', join(kube, 'kube-scheduler'), [
      `--kubeconfig=${join(dirs.root, 'scheduler.kubeconfig')}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      '--secure-port=20259',
      '--v=1',
    ]);
    supervise('kube-proxy', join(kube, 'kube-proxy'), [`--config=${join(dirs.root, 'kube-proxy.yaml')}`, '--v=1']);
    for (const object of [storageClass(), ...clusterDnsObjects(pushed.coredns!, options.forwardDns)])
      await applyObject(kc, object, fieldManager);
    await installCrds(kc, join(gateway, 'crds'));
    for (const object of gatewayObjects()) await applyObject(kc, object, fieldManager);
    writeFileSync(join(dirs.root, 'gateway.yaml'), traefikConfig(join(dirs.logs, 'gateway-errors.log')));
    supervise('gateway', join(gateway, 'traefik'), [`--configFile=${join(dirs.root, 'gateway.yaml')}`], {
      ...process.env,
      KUBECONFIG: options.controlPlane.kubeconfigPath,
    });
    await waitFor(() => nodeReady(kc), timeout, `node ${nodeName} Ready (see ${dirs.logs}/kubelet.log)`);
    log(`node ${nodeName} Ready`);
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
    return { registry: registryAddress, context, stop };
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
  for (const address of [registryAddress, ...pushRegistryAddresses]) {
    mkdirSync(join(dirs.certsDir, address), { recursive: true });
    writeFileSync(join(dirs.certsDir, address, 'hosts.toml'), registryHostsToml(address));
  }
  // Docker Hub names resolve to the node's registry first (the agent server's base image, built here).
  mkdirSync(join(dirs.certsDir, 'docker.io'), { recursive: true });
  writeFileSync(join(dirs.certsDir, 'docker.io', 'hosts.toml'), registryHostsToml(registryAddress, 'https://registry-1.docker.io'));
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
  const storeTls = join(dirs.root, 'metrics-store-tls');
  mkdirSync(storeTls, { recursive: true });
  const kubeletScrape = { caFile: join(storeTls, 'ca.crt'), certFile: join(storeTls, 'tls.crt'), keyFile: join(storeTls, 'tls.key') };
  for (const [file, pem] of [
    [kubeletScrape.caFile, pki.caCert],
    [kubeletScrape.certFile, pki.metricsStoreCert],
    [kubeletScrape.keyFile, pki.metricsStoreKey],
  ] as const)
    writeFileSync(file, pem, { mode: 0o600 });
  writeFileSync(join(dirs.root, 'metrics-store.yaml'), metricsStoreScrapeConfig(kubeletScrape));
  writeFileSync(join(dirs.root, 'metrics-reader.yaml'), metricsReaderConfig());
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
  /** The durable agent server Berth builds agents on (src/agent-server). */
  agentServer: string;
}

/** Where the agent server's base image is pushed: the name Dockerfiles use, which BuildKit and
 * containerd on the node look for in the node's registry first. */
export const agentServerBaseReference = `${registryAddress}/langchain/langgraph-api:3.11`;

/** The images of a codehost build (BuildKit with runc, git, busybox for the commands), built here and
 * pushed to the node's registry (cached); the builder reaches that registry over plain HTTP. The agent
 * server's base image goes there too, under its Docker Hub name. */
export async function pushBuildImages(
  nodeBin: string,
  log: (m: string) => void = () => {},
  buildkit: string = cachedBuild('buildkit'),
): Promise<BuildImages> {
  const crane = join(nodeBin, 'crane');
  const [builder, git, buildTools, agentTools, agentServer] = await Promise.all([
    buildImage(
      'builder',
      { env: { BUILDKIT_BIN: buildkit, INSECURE_REGISTRY: registryAddress, PUSH_REGISTRIES: pushRegistryAddresses.join(' ') } },
      log,
    ),
    buildImage('git', {}, log),
    buildImage('build-tools', {}, log),
    buildImage('agent-server', {}, log),
    buildImage('durable-agent-server', {}, log),
  ]);
  return {
    agentTools: await pushImage(crane, agentTools, agentServerBaseReference),
    agentServer: await pushImage(crane, agentServer, `${registryAddress}/berth/agent-server:aegra-0.11.0`),
    builder: await pushImage(crane, builder, `${registryAddress}/berth/buildkit:latest`),
    git: await pushImage(crane, git, `${registryAddress}/berth/git:latest`),
    buildTools: await pushImage(crane, buildTools, `${registryAddress}/berth/build-tools:latest`),
  };
}

/** Whether the object at `path` has condition `type` True (false while it or its API is missing). */
export async function conditionTrue(kc: KubeConfig, path: string, type: string): Promise<boolean> {
  const object = await kubeRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(kc, { method: 'GET', path }).catch(
    () => undefined,
  );
  return object?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
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

/** The pod CIDR the controller-manager gave the Node, once it has. */
async function nodePodCidr(kc: KubeConfig): Promise<string | undefined> {
  const found = await kubeRequest<{ spec?: { podCIDR?: string } }>(kc, { method: 'GET', path: `/api/v1/nodes/${nodeName}` }).catch(
    () => undefined,
  );
  return found?.spec?.podCIDR;
}

/** Whether the Node has its pod CIDR, which kube-router's default deny needs at start. */
export async function nodeHasPodCidr(kc: KubeConfig): Promise<boolean> {
  return Boolean(await nodePodCidr(kc));
}

/** The bridge's configuration, from the range the Node was given once the kubelet registered it (a dev
 * cluster registered before a change of range keeps its own); containerd reads it when it appears, and
 * until then the node is not Ready. */
async function writeCniConfig({ kc, dirs, waitFor }: NodeContext): Promise<void> {
  await waitFor(() => nodeHasPodCidr(kc), `node ${nodeName}'s pod CIDR (see ${dirs.logs}/kubelet.log)`);
  writeFileSync(join(dirs.cniConfDir, '10-berth.conflist'), cniConfig(dirs, (await nodePodCidr(kc))!));
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

/** `check` true within `timeoutMs`; a timeout says what `explain` finds then. */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, explain?: () => Promise<string>): Promise<void> {
  await eventually(check, timeoutMs, what, 200).catch(async (error: unknown) => {
    throw new Error(`${(error as Error).message}${explain ? `: ${await explain()}` : ''}`, { cause: error });
  });
}

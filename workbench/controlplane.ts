// An embedded Kubernetes control plane: etcd, kube-apiserver and kube-controller-manager. The tests and
// `berth dev` both use it. Two shapes:
// - API only (the default): on loopback, the controller-manager limited to the controllers that keep a
//   cluster tidy (garbage collection, namespace deletion, quota usage, service accounts, aggregated
//   roles). No node: Pods never run.
// - For a real node (`forNode`): the API server on the node's address (pods reach it through the
//   `kubernetes` Service) with what the kubelet needs, and every controller of the controller-manager,
//   node CIDRs and a hostpath provisioner. workbench/node starts the node itself.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Agent, request } from 'node:https';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { cachedBuild } from './cache-dir.ts';
import { clusterCidr, nodeIp, nodePodCidrMaskSize, serviceCidr } from './node/network.ts';
import { frontProxyClientName, generatePki, type Pki } from './pki.ts';
import { startSupervised, type SupervisedProcess } from './supervised-process.ts';
import { eventually, GiveUp } from './support/poll.ts';

export interface ControlPlaneOptions {
  /** Where etcd data, certificates, logs and the kubeconfig live. Reused when it already holds them. */
  dataDir: string;
  /** Skip fsync in etcd: for throwaway test clusters only. */
  ephemeral?: boolean;
  /** Also run kube-controller-manager (garbage collection, namespace deletion). Default true. */
  controllerManager?: boolean;
  /** Serve a real node: see the header. */
  forNode?: boolean;
  /** How long to wait for /readyz. */
  readyTimeoutMs?: number;
  /** Where the binaries are (default: built now if they are not cached yet). */
  binDir?: string;
  log?: (message: string) => void;
}

export interface ControlPlane {
  readonly server: string;
  readonly kubeconfigPath: string;
  readonly binDir: string;
  readonly etcdUrl: string;
  readonly dataDir: string;
  readonly pkiDir: string;
  /** Restarts kube-apiserver (and etcd when asked) on the same ports and data: for fault tests. */
  restart(options?: { etcd?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

interface Ports {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
}

/** Builds the pinned binaries if they are not cached yet and returns their directory. */
export function controlPlaneBinaries(log: (message: string) => void = () => {}): string {
  if (process.env.BERTH_CONTROLPLANE_BIN) return process.env.BERTH_CONTROLPLANE_BIN;
  log('locating the control plane binaries (built once, then cached)');
  return cachedBuild('controlplane');
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
}

/** Ports are kept in the data dir so a restarted dev cluster keeps its address and etcd its peer URL. */
async function choosePorts(file: string): Promise<Ports> {
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Ports;
    const free = await Promise.all(Object.values(saved).map(portIsFree));
    if (free.every(Boolean)) return saved;
  }
  const ports = { etcdClient: await freePort(), etcdPeer: await freePort(), apiserver: await freePort() };
  writeFileSync(file, JSON.stringify(ports));
  return ports;
}

export function readPki(dir: string): Pki & Record<string, string> {
  const file = join(dir, 'pki.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Pki & Record<string, string>;
}

/** A kubeconfig for one identity of the PKI (the admin unless told). */
export function kubeconfig(server: string, pki: Pki, identity = { cert: pki.adminCert, key: pki.adminKey }): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'berth-local', cluster: { server, 'certificate-authority-data': b64(pki.caCert) } }],
    users: [{ name: 'berth-admin', user: { 'client-certificate-data': b64(identity.cert), 'client-key-data': b64(identity.key) } }],
    contexts: [{ name: 'berth-local', context: { cluster: 'berth-local', user: 'berth-admin', namespace: 'default' } }],
    'current-context': 'berth-local',
  });
}

async function readyz(server: string, pki: Pki): Promise<boolean> {
  const agent = new Agent({ ca: pki.caCert, cert: pki.adminCert, key: pki.adminKey });
  return new Promise((resolveReady) => {
    const req = request(`${server}/readyz`, { agent, timeout: 2000 }, (res) => {
      res.resume();
      resolveReady(res.statusCode === 200);
    });
    req.on('error', () => resolveReady(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const log = options.log ?? (() => {});
  const dataDir = resolve(options.dataDir);
  const pkiDir = join(dataDir, 'pki');
  const logDir = join(dataDir, 'logs');
  mkdirSync(pkiDir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  const binDir = options.binDir ?? controlPlaneBinaries(log);
  const pki = await ensurePki(pkiDir);
  const ports = await choosePorts(join(dataDir, 'ports.json'));
  const forNode = options.forNode ?? false;
  const address = forNode ? nodeIp : '127.0.0.1';
  const server = `https://${address}:${ports.apiserver}`;
  const etcdUrl = `http://127.0.0.1:${ports.etcdClient}`;
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfig(server, pki), { mode: 0o600 });
  const layout: Layout = { dataDir, pkiDir, etcdUrl, ports, address, forNode };

  const startEtcd = () =>
    startSupervised('etcd', join(binDir, 'etcd'), etcdArgs(layout, options.ephemeral ?? false), join(logDir, 'etcd.log'));
  const startApiserver = () =>
    startSupervised('kube-apiserver', join(binDir, 'kube-apiserver'), apiserverArgs(layout), join(logDir, 'kube-apiserver.log'));
  const startControllerManager = () => {
    const kcmConfig = join(dataDir, 'controller-manager.kubeconfig');
    writeFileSync(kcmConfig, kubeconfig(server, pki), { mode: 0o600 });
    return startSupervised(
      'kube-controller-manager',
      join(binDir, 'kube-controller-manager'),
      controllerManagerArgs(layout, kcmConfig),
      join(logDir, 'kube-controller-manager.log'),
    );
  };
  const waitReady = (what: SupervisedProcess[]) => waitForApiserver(server, pki, what, options.readyTimeoutMs ?? 90_000, logDir);

  log(`starting etcd and kube-apiserver (data in ${dataDir})`);
  let etcd = startEtcd();
  let apiserver = startApiserver();
  try {
    await waitReady([etcd, apiserver]);
  } catch (error) {
    await Promise.all([apiserver.stop(), etcd.stop()]);
    throw error;
  }
  const controllerManager = (options.controllerManager ?? true) ? startControllerManager() : undefined;
  log(`kube-apiserver ready at ${server}`);

  return {
    server,
    kubeconfigPath,
    binDir,
    etcdUrl,
    dataDir,
    pkiDir,
    async restart(restartOptions = {}) {
      await apiserver.stop();
      if (restartOptions.etcd) {
        await etcd.stop();
        etcd = startEtcd();
      }
      apiserver = startApiserver();
      await waitReady([etcd, apiserver]);
    },
    async stop() {
      await controllerManager?.stop();
      await apiserver.stop();
      await etcd.stop();
    },
  };
}

/** Where a control plane lives and listens: what its processes' flags are made of. */
interface Layout {
  dataDir: string;
  pkiDir: string;
  etcdUrl: string;
  ports: Ports;
  /** The API server's address: loopback, or the node's address when a node runs beside it. */
  address: string;
  forNode: boolean;
}

const pemPath = (layout: Layout) => (name: keyof Pki) => join(layout.pkiDir, `${name}.pem`);

/** The certificates, made once per data dir. A data dir from an older Berth may lack the node's: the whole set is made anew then. */
async function ensurePki(pkiDir: string): Promise<Pki> {
  if (!existsSync(join(pkiDir, 'pki.json')) || !('barmanCloudKey' in readPki(pkiDir))) {
    const pki = await generatePki();
    writeFileSync(join(pkiDir, 'pki.json'), JSON.stringify(pki), { mode: 0o600 });
    for (const [name, pem] of Object.entries(pki)) writeFileSync(join(pkiDir, `${name}.pem`), pem, { mode: 0o600 });
  }
  return readPki(pkiDir);
}

function etcdArgs(layout: Layout, ephemeral: boolean): string[] {
  const peer = `http://127.0.0.1:${layout.ports.etcdPeer}`;
  return [
    '--name=berth-local',
    `--data-dir=${join(layout.dataDir, 'etcd')}`,
    `--listen-client-urls=${layout.etcdUrl}`,
    `--advertise-client-urls=${layout.etcdUrl}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=berth-local=${peer}`,
    '--log-level=warn',
    ...(ephemeral ? ['--unsafe-no-fsync'] : []),
  ];
}

function apiserverArgs(layout: Layout): string[] {
  const pem = pemPath(layout);
  return [
    `--etcd-servers=${layout.etcdUrl}`,
    `--bind-address=${layout.address}`,
    `--advertise-address=${layout.address}`,
    `--secure-port=${layout.ports.apiserver}`,
    `--cert-dir=${layout.pkiDir}`,
    `--tls-cert-file=${pem('servingCert')}`,
    `--tls-private-key-file=${pem('servingKey')}`,
    `--client-ca-file=${pem('caCert')}`,
    '--authorization-mode=Node,RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pem('serviceAccountPub')}`,
    `--service-account-signing-key-file=${pem('serviceAccountKey')}`,
    // Room for tens of thousands of Services: the benchmarks and reliability suites make thousands.
    `--service-cluster-ip-range=${serviceCidr}`,
    ...(layout.forNode ? nodeApiserverFlags(pem) : ['--endpoint-reconciler-type=none']),
    '--allow-privileged=true',
    '--profiling=false',
    '--v=1',
  ];
}

function controllerManagerArgs(layout: Layout, kubeconfigPath: string): string[] {
  const pem = pemPath(layout);
  return [
    `--kubeconfig=${kubeconfigPath}`,
    ...(layout.forNode ? nodeControllerManagerFlags() : apiOnlyControllerManagerFlags),
    `--service-account-private-key-file=${pem('serviceAccountKey')}`,
    `--root-ca-file=${pem('caCert')}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--v=1',
  ];
}

/** Until kube-apiserver answers /readyz; fails at once when one of `processes` exits. */
async function waitForApiserver(
  server: string,
  pki: Pki,
  processes: SupervisedProcess[],
  timeoutMs: number,
  logDir: string,
): Promise<void> {
  let exited: string | undefined;
  for (const p of processes) void p.exited.then((code) => (exited ??= `${p.name} exited with code ${code}`));
  const ready = async () => {
    if (exited) throw new GiveUp(`${exited}; see ${logDir}`);
    return readyz(server, pki);
  };
  await eventually(ready, timeoutMs, `kube-apiserver ready (see ${logDir})`, 250);
}

/** What the API server needs beside a node: an advertised address for the `kubernetes` Service's
 * endpoints (the default lease reconciler), and a client certificate for logs, exec and port-forward. */
function nodeApiserverFlags(pem: (name: keyof Pki) => string): string[] {
  return [
    `--kubelet-client-certificate=${pem('apiserverKubeletClientCert')}`,
    `--kubelet-client-key=${pem('apiserverKubeletClientKey')}`,
    `--kubelet-certificate-authority=${pem('caCert')}`,
    '--kubelet-preferred-address-types=InternalIP,Hostname',
    '--enable-admission-plugins=NodeRestriction',
    // The aggregation layer, for metrics-server's metrics.k8s.io: the API server proxies with its
    // front-proxy client certificate, to the endpoints of the APIService's Service.
    `--requestheader-client-ca-file=${pem('frontProxyCaCert')}`,
    `--requestheader-allowed-names=${frontProxyClientName}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pem('frontProxyClientCert')}`,
    `--proxy-client-key-file=${pem('frontProxyClientKey')}`,
    '--enable-aggregator-routing=true',
  ];
}

/** Only the controllers that tidy up; the workload controllers would overwrite the status that tests
 * set on child objects to stand in for the kubelet. */
const apiOnlyControllerManagerFlags = [
  '--controllers=clusterrole-aggregation,garbagecollector,namespace,resourcequota,serviceaccount,serviceaccount-token',
];

/** Every controller, a pod CIDR for the node, and PersistentVolumes provisioned as host paths (the
 * upstream provisioner keeps them under /tmp/hostpath_pv, a path it hard-codes). */
function nodeControllerManagerFlags(): string[] {
  return [
    '--controllers=*',
    '--allocate-node-cidrs',
    `--cluster-cidr=${clusterCidr}`,
    `--node-cidr-mask-size=${nodePodCidrMaskSize}`,
    `--service-cluster-ip-range=${serviceCidr}`,
    '--enable-hostpath-provisioner',
    '--use-service-account-credentials',
    '--node-monitor-grace-period=40s',
  ];
}

// The node's parts beyond its core (./node.ts): each is built on its own (./../builds.ts), started once the
// node runs and its build is done, and then offers Berth what it adds (an issuer for TLS, a metrics
// server for autoscaling, an activator, images). Declared once, in the order they are built and started:
// what the first app needs sooner comes first.
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import type { ClusterDefaults } from '../cluster-defaults.ts';
import { fieldManager } from '../../src/api/group.ts';
import { applyObject, resolveResource } from '../../src/runtime/apply.ts';
import type { BuildName } from '../builds.ts';
import { installCrds } from '../install-crds.ts';
import { certManagerArgs, certificateObjects, nodeTlsIssuer } from './certificates.ts';
import { nodeTlsAppUrlTemplate } from './gateway.ts';
import { httpAddOnObjects, nodeActivator } from './http-add-on.ts';
import { buildImage, pushImage } from './images.ts';
import { kubeconfig } from '../controlplane.ts';
import {
  barmanCloudCommand,
  barmanCloudObjects,
  barmanCloudPlugin,
  barmanCloudRequirements,
  cnpgObjects,
  cnpgOperatorCommand,
  cnpgOperatorRole,
  cnpgPostgresImage,
  cnpgWebhookAddress,
  cnpgWebhookConfigurations,
  localPathArgs,
  localPathConfig,
  localPathStorageClass,
  localPathHelperPod,
  localPathObjects,
} from './postgres-operator.ts';
import { backupStoreAdminUrl, backupStoreArgs, backupStoreEnvironment, backupStoreUrl, prepareBackupStore } from './backup-store.ts';
import {
  clusterResolvConf,
  kedaAdapterArgs,
  kedaEnvironment,
  kedaObjects,
  kedaOperatorArgs,
  kedaOperatorRole,
  withClusterDns,
} from './keda.ts';
import { metricsReaderArgs, metricsStoreArgs, metricsStoreObjects, metricsStoreUrl } from './metrics-store.ts';
import { metricsServerArgs, metricsServerObjects } from './metrics.ts';
import { nodeName, registryAddress } from './network.ts';
import { conditionTrue, nodeHasPodCidr, pushBuildImages, pushServiceImages, type NodeContext } from './node.ts';

/** What the node offers Berth: the part of the cluster defaults `berth dev` starts Berth with that its
 * parts decide (`awaitedBuilder` is set until the builds part runs, then cleared). */
export type NodeOffers = Pick<
  ClusterDefaults,
  | 'awaitedBuilder'
  | 'appUrlTemplate'
  | 'tlsIssuer'
  | 'concurrencyMetrics'
  | 'activator'
  | 'postgresImage'
  | 'cnpgPostgresImage'
  | 'cnpgStorageClass'
  | 'redisImage'
  | 'builderImage'
  | 'gitImage'
  | 'buildToolsImage'
  | 'agentToolsImage'
  | 'agentServerImage'
  | 'backupStore'
>;

/** The node's parts, as progress lines, conditions and the node suite's files name them. */
export type NodePartName =
  | 'TLS'
  | 'databases'
  | 'resource metrics'
  | 'network policy'
  | 'autoscaling'
  | 'scale to zero'
  | 'builds'
  | 'backups'
  | 'Postgres operator';

export interface NodePart {
  /** How progress lines and conditions name it. */
  name: NodePartName;
  /** What it brings, once it runs. */
  gives: string;
  builds: BuildName[];
  /** Parts that must run before this one starts. */
  after?: NodePartName[];
  /** Starts it; bins are its builds' bin directories, in the order of `builds`. */
  start(node: NodeContext, bins: string[]): Promise<NodeOffers>;
}

const tls: NodePart = {
  name: 'TLS',
  gives: "https:// URLs: cert-manager signs the apps' certificates with the local apps CA",
  builds: ['cert-manager'],
  async start(node, [bin]) {
    await installCrds(node.kc, join(bin!, 'crds'));
    for (const object of certificateObjects({ cert: node.pki.appsCaCert, key: node.pki.appsCaKey }))
      await applyObject(node.kc, object, fieldManager);
    node.supervise('cert-manager', join(bin!, 'cert-manager-controller'), certManagerArgs(node.controlPlane.kubeconfigPath));
    const { namespace, name } = nodeTlsIssuer;
    await node.waitFor(
      () => conditionTrue(node.kc, `/apis/cert-manager.io/v1/namespaces/${namespace}/issuers/${name}`, 'Ready'),
      `cert-manager's Issuer ${name} (see ${node.dirs.logs}/cert-manager.log)`,
    );
    return { tlsIssuer: nodeTlsIssuer, appUrlTemplate: nodeTlsAppUrlTemplate };
  },
};

const databases: NodePart = {
  name: 'databases',
  gives: 'the Postgres and Redis images of Deployments that ask for them',
  builds: [],
  async start(node) {
    const images = await pushServiceImages(node.nodeBin, node.log);
    return { postgresImage: images.postgres, redisImage: images.redis };
  },
};

const resourceMetrics: NodePart = {
  name: 'resource metrics',
  gives: 'metrics-server: `kubectl top`, and autoscalers that act on CPU',
  builds: ['metrics-server'],
  async start(node, [bin]) {
    // Served through the aggregation layer.
    for (const object of metricsServerObjects()) await applyObject(node.kc, object, fieldManager);
    node.supervise(
      'metrics-server',
      join(bin!, 'metrics-server'),
      metricsServerArgs({
        kubeconfig: join(node.dirs.root, 'metrics-server.kubeconfig'),
        certDir: join(node.dirs.root, 'metrics-server'),
        caFile: join(node.controlPlane.pkiDir, 'caCert.pem'),
      }),
    );
    return {};
  },
};

const networkPolicy: NodePart = {
  name: 'network policy',
  gives: "kube-router's policy controller: NetworkPolicies are enforced",
  builds: ['network-policy'],
  // kube-router's policy controller alone (iptables and ipsets; the bridge CNI and kube-proxy keep routing
  // and Services), once the Node has its pod CIDR (the controller finds itself by the Node). Default deny:
  // a pod's traffic is refused until the controller has programmed its chain, so a new pod never reaches
  // what its organization's policy blocks, not even in its first second. Its chains are KUBE-*, removed
  // with the others when the node stops, its ipsets with them.
  async start(node, [bin]) {
    await node.waitFor(() => nodeHasPodCidr(node.kc), `node ${nodeName}'s pod CIDR (kube-controller-manager allocates it)`);
    node.supervise('network-policy', join(bin!, 'kube-router'), [
      '--netpol-default-deny',
      `--kubeconfig=${node.controlPlane.kubeconfigPath}`,
      `--hostname-override=${nodeName}`,
      '--run-firewall=true',
      '--run-router=false',
      '--run-service-proxy=false',
      '--enable-cni=false',
      '--health-port=0',
      '--v=1',
    ]);
    return {};
  },
};

const autoscaling: NodePart = {
  name: 'autoscaling',
  gives:
    "KEDA and a Prometheus-compatible server: apps scale on their requests in flight, read at the Gateway, and their pods' CPU and memory are kept over time",
  builds: ['victoria-metrics', 'keda'],
  async start(node, [metricsStore, keda]) {
    // Its right to scrape the kubelet's cAdvisor, before its first scrape.
    for (const object of metricsStoreObjects()) await applyObject(node.kc, object, fieldManager);
    node.supervise(
      'metrics-store',
      join(metricsStore!, 'victoria-metrics'),
      metricsStoreArgs({ dataDir: join(node.dirs.root, 'metrics-store'), scrapeConfig: join(node.dirs.root, 'metrics-store.yaml') }),
    );
    node.supervise('metrics-reader', join(metricsStore!, 'vmauth'), metricsReaderArgs(join(node.dirs.root, 'metrics-reader.yaml')));
    await installCrds(node.kc, join(keda!, 'crds'));
    for (const object of [kedaOperatorRole(keda!), ...kedaObjects()]) await applyObject(node.kc, object, fieldManager);
    const files = { kubeconfig: join(node.dirs.root, 'keda.kubeconfig'), certDir: join(node.dirs.root, 'keda') };
    const env = { ...process.env, ...kedaEnvironment };
    const resolvConf = join(node.dirs.root, 'keda-resolv.conf');
    writeFileSync(resolvConf, clusterResolvConf());
    const operator = withClusterDns(resolvConf, join(keda!, 'keda-operator'), kedaOperatorArgs(files));
    node.supervise('keda-operator', operator.binary, operator.args, env);
    node.supervise('keda-adapter', join(keda!, 'keda-adapter'), kedaAdapterArgs(files), env);
    await node.waitFor(() => served(node, 'keda.sh/v1alpha1', 'ScaledObject'), 'the ScaledObject API');
    return { concurrencyMetrics: metricsStoreUrl };
  },
};

const scaleToZero: NodePart = {
  name: 'scale to zero',
  gives: "KEDA's HTTP add-on: dev_zero apps scale to zero and wake on a request",
  builds: ['http-add-on'],
  after: ['autoscaling'],
  async start(node, [bin]) {
    await installCrds(node.kc, join(bin!, 'crds'));
    const binaries = ['keda-http-interceptor', 'keda-http-scaler'].map((name) => join(bin!, name));
    const image = await buildImage('keda-http-add-on', { files: binaries, env: { HTTP_ADD_ON_BIN: bin! } }, node.log);
    const reference = await pushImage(join(node.nodeBin, 'crane'), image, `${registryAddress}/berth/keda-http-add-on:latest`);
    for (const object of httpAddOnObjects(reference)) await applyObject(node.kc, object, fieldManager);
    await node.waitFor(() => served(node, 'http.keda.sh/v1beta1', 'InterceptorRoute'), 'the InterceptorRoute API');
    return { activator: nodeActivator };
  },
};

const builds: NodePart = {
  name: 'builds',
  gives: 'BuildKit and the images of build Jobs: codehost, uploaded-source and agent-server builds',
  builds: ['buildkit'],
  async start(node, [buildkit]) {
    const images = await pushBuildImages(node.nodeBin, node.log, buildkit);
    return {
      awaitedBuilder: undefined,
      builderImage: images.builder,
      gitImage: images.git,
      buildToolsImage: images.buildTools,
      agentToolsImage: images.agentTools,
      agentServerImage: images.agentServer,
    };
  },
};

/** Organizations' backups: an S3-compatible store on the node, where Berth makes each organization an account. */
const backups: NodePart = {
  name: 'backups',
  gives: "organizations' backup store: versitygw on the node's address, an account and a bucket per organization",
  builds: ['versitygw'],
  async start(node, [bin]) {
    const { dirs, credentials } = prepareBackupStore(join(node.dirs.root, 'backup-store'));
    node.supervise('versitygw', join(bin!, 'versitygw'), backupStoreArgs(dirs), backupStoreEnvironment(credentials));
    await node.waitFor(
      async () => (await fetch(backupStoreUrl, { signal: AbortSignal.timeout(2000) }).catch(() => undefined)) !== undefined,
      `versitygw at ${backupStoreUrl} (see ${node.dirs.logs}/versitygw.log)`,
    );
    return { backupStore: { url: backupStoreUrl, adminUrl: backupStoreAdminUrl, credentials } };
  },
};

/** CloudNativePG with its barman-cloud plugin, and volumes its Postgres (uid 26) can write: the local-path
 * provisioner (postgres-operator.ts). */
const postgresOperator: NodePart = {
  name: 'Postgres operator',
  gives:
    'CloudNativePG and its barman-cloud plugin: Postgres clusters, backed up to an S3-compatible store, on volumes of the local-path StorageClass, which a pod that is not root can write',
  builds: ['local-path', 'cnpg', 'barman-cloud'],
  async start(node, [localPath, cnpg, barmanCloud]) {
    const dir = join(node.dirs.root, 'postgres-operator');
    mkdirSync(dir, { recursive: true });
    await startLocalPath(node, localPath!, dir);
    // The operator finds its plugins' sockets once, at its start: the plugin's comes first.
    const pluginSocketDir = await startBarmanCloud(node, barmanCloud!, dir);
    await startCnpg(node, cnpg!, dir, pluginSocketDir);
    // What berth dev also gives from the node's start (dev-cluster.ts): offered here too, so that the
    // part's arrival restarts Berth, which then finds CloudNativePG's kinds (--database-engine auto).
    return { cnpgPostgresImage, cnpgStorageClass: localPathStorageClass };
  },
};

/** A kubeconfig of the node's API server for one of its identities. */
function identityKubeconfig(node: NodeContext, file: string, cert: string, key: string): string {
  writeFileSync(file, kubeconfig(node.controlPlane.server, node.pki, { cert, key }), { mode: 0o600 });
  return file;
}

async function startLocalPath(node: NodeContext, bin: string, dir: string): Promise<void> {
  const helper = await buildImage('volume-helper', {}, node.log);
  const helperImage = await pushImage(join(node.nodeBin, 'crane'), helper, `${registryAddress}/berth/volume-helper:latest`);
  const files = {
    kubeconfig: identityKubeconfig(node, join(dir, 'local-path.kubeconfig'), node.pki.localPathCert, node.pki.localPathKey),
    config: join(dir, 'local-path.json'),
    helperPod: join(dir, 'helper-pod.yaml'),
  };
  writeFileSync(files.config, localPathConfig(join(node.dirs.root, 'local-path-volumes')));
  writeFileSync(files.helperPod, localPathHelperPod(helperImage));
  for (const object of localPathObjects()) await applyObject(node.kc, object, fieldManager);
  node.supervise('local-path-provisioner', join(bin, 'local-path-provisioner'), localPathArgs(files));
}

/** The barman-cloud plugin on a unix socket in the directory it resolves with, and its CRD. */
async function startBarmanCloud(node: NodeContext, bin: string, dir: string): Promise<string> {
  const inputs = {
    files: [join(bin, 'manager'), barmanCloudRequirements],
    env: { BARMAN_CLOUD_BIN: bin, BARMAN_CLOUD_REQUIREMENTS: barmanCloudRequirements },
  };
  const sidecar = await buildImage('barman-cloud-sidecar', inputs, node.log);
  const sidecarImage = await pushImage(join(node.nodeBin, 'crane'), sidecar, `${registryAddress}/berth/barman-cloud-sidecar:latest`);
  await installCrds(node.kc, join(bin, 'crds'));
  for (const object of barmanCloudObjects(bin)) await applyObject(node.kc, object, fieldManager);
  const socketDir = join(dir, 'plugins');
  mkdirSync(socketDir, { recursive: true });
  const kubeconfigFile = identityKubeconfig(node, join(dir, 'barman-cloud.kubeconfig'), node.pki.barmanCloudCert, node.pki.barmanCloudKey);
  const plugin = barmanCloudCommand({ manager: join(bin, 'manager'), kubeconfig: kubeconfigFile, socketDir, sidecarImage });
  node.supervise('barman-cloud', plugin.binary, plugin.args, plugin.env);
  const socket = join(socketDir, barmanCloudPlugin);
  await node.waitFor(async () => existsSync(socket), `the barman-cloud plugin's socket ${socket} (see ${node.dirs.logs}/barman-cloud.log)`);
  return socketDir;
}

async function startCnpg(node: NodeContext, bin: string, dir: string, pluginSocketDir: string): Promise<void> {
  const crane = join(node.nodeBin, 'crane');
  const operatorImage = await buildImage('cnpg-operator', { files: [join(bin, 'manager')], env: { CNPG_BIN: bin } }, node.log);
  const image = await pushImage(crane, operatorImage, `${registryAddress}/berth/cnpg-operator:latest`);
  await pushImage(crane, await buildImage('cnpg-postgres', {}, node.log), cnpgPostgresImage);
  await installCrds(node.kc, join(bin, 'crds'));
  for (const object of [cnpgOperatorRole(bin), ...cnpgObjects(), ...cnpgWebhookConfigurations(bin, node.pki.caCert)])
    await applyObject(node.kc, object, fieldManager);
  const certDir = join(dir, 'webhook');
  mkdirSync(certDir, { recursive: true });
  writeFileSync(join(certDir, 'apiserver.crt'), node.pki.cnpgCert, { mode: 0o600 });
  writeFileSync(join(certDir, 'apiserver.key'), node.pki.cnpgKey, { mode: 0o600 });
  // The operator finds the architectures it can give Postgres pods as operator/manager_<arch> in its
  // working directory, as in its image.
  const workDir = join(dir, 'work');
  const managerLink = join(workDir, 'operator', `manager_${process.arch === 'x64' ? 'amd64' : process.arch}`);
  mkdirSync(dirname(managerLink), { recursive: true });
  rmSync(managerLink, { force: true });
  symlinkSync(join(bin, 'manager'), managerLink);
  const kubeconfigFile = identityKubeconfig(node, join(dir, 'cnpg.kubeconfig'), node.pki.cnpgCert, node.pki.cnpgKey);
  const operator = cnpgOperatorCommand({
    manager: join(bin, 'manager'),
    workDir,
    kubeconfig: kubeconfigFile,
    certDir,
    image,
    pluginSocketDir,
  });
  node.supervise('cnpg-operator', operator.binary, operator.args, operator.env);
  await node.waitFor(
    () => accepts(cnpgWebhookAddress),
    `CloudNativePG's webhooks at ${cnpgWebhookAddress.host}:${cnpgWebhookAddress.port} (see ${node.dirs.logs}/cnpg-operator.log)`,
  );
}

/** Every part, in the order the first app needs them. */
export const nodeParts: readonly NodePart[] = [
  tls,
  databases,
  resourceMetrics,
  networkPolicy,
  autoscaling,
  scaleToZero,
  builds,
  backups,
  postgresOperator,
];

/** Whether a TCP server accepts connections at the address. */
function accepts(address: { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(address.port, address.host);
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    for (const event of ['error', 'timeout'] as const)
      socket.once(event, () => {
        socket.destroy();
        resolve(false);
      });
  });
}

function served(node: NodeContext, apiVersion: string, kind: string): Promise<boolean> {
  return resolveResource(node.kc, apiVersion, kind).then(
    () => true,
    () => false,
  );
}

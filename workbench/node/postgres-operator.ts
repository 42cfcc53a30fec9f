// The node's Postgres operator: CloudNativePG (scripts/build-cnpg.sh), run as a process of the node as KEDA
// is, its barman-cloud plugin (scripts/build-barman-cloud.sh), and the volumes its Postgres can write.
// Its pods run as uid 26, never as root, and the node's default StorageClass (kube-controller-manager's
// hostpath provisioner) makes each volume a directory only root may write, whatever the pod's fsGroup:
// Rancher's local-path provisioner (scripts/build-local-path.sh), also a process of the node, makes them
// instead, each a directory open to the pod's user, through a helper pod of the node's volume-helper
// image. Its StorageClass, `local-path`, is not the default: what names it gets it.
//
// The operator is the user system:cnpg with the ClusterRole its release declares; its admission webhooks
// (upstream's, renamed as its release names them) reach it on the node's address through a Service whose
// one endpoint is that address, with the cluster's CA, which signed its serving certificate (pki.ts). It
// makes no certificate of its own and patches no webhook configuration (WEBHOOK_CERT_DIR). The plugin,
// the user system:barman-cloud, serves the operator on a unix socket beside it (no TLS, no Service) and
// gives each Postgres pod that names it a sidecar of the node's barman-cloud-sidecar image, which
// archives WAL and takes base backups with barman's cloud commands into an S3-compatible store: the
// node's (backup-store.ts), each organization into its own bucket. Only Berth writes CloudNativePG's and
// the plugin's kinds: no team is given rights on them. Objects rendered by pure functions.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../src/runtime/index.ts';
import { barmanCloudPlugin } from '../../src/reconcilers/deployment/render/database-archive.ts';
import { cnpgWebhookService } from '../pki.ts';
import { nodeServiceObjects, partMetadata, roleBinding, upstreamClusterRole, upstreamDocuments } from './extension-api.ts';
import { nodeIp, registryAddress } from './network.ts';

export const cnpgUser = 'system:cnpg';
export const localPathUser = 'system:local-path-provisioner';
export const barmanCloudUser = 'system:barman-cloud';
/** The plugin's name, which CloudNativePG's kinds name it by, and its socket's file name (Berth's). */
export { barmanCloudPlugin };
/** The namespace the operator calls its own. */
export const cnpgNamespace = cnpgWebhookService.namespace;
/** Where the provisioner's helper pods run. */
export const localPathNamespace = 'local-path-storage';
/** The StorageClass whose volumes a pod that is not root can write. */
export const localPathStorageClass = 'local-path';
const localPathProvisionerName = 'rancher.io/local-path';

const labels = { 'app.kubernetes.io/name': 'cloudnative-pg', 'app.kubernetes.io/managed-by': 'berth' };
const localPathLabels = { 'app.kubernetes.io/name': 'local-path-provisioner', 'app.kubernetes.io/managed-by': 'berth' };

/** The barman-cloud sidecar image's Python packages, pinned by hash. */
export const barmanCloudRequirements = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../scripts/node-images/barman-cloud/requirements.txt',
);

/** CloudNativePG's Postgres image on the node's registry (images.ts): its tag is the major version, which
 * the operator reads from it. */
export const cnpgPostgresImage = `${registryAddress}/berth/cnpg-postgres:15`;

/** The operator's webhook server (on every address: the API server calls the node's), its metrics, and
 * the provisioner's health port, moved off upstream's 9443, 8080 and 8080. */
export const cnpgWebhookAddress = { host: nodeIp, port: 20943 };
const ports = { operatorMetrics: 20944, localPathHealth: 20945, barmanCloudHealth: 20946 };

/** The operator's ClusterRole as upstream declares it (rbac/role.yaml of the build), named as its
 * release names it. */
export function cnpgOperatorRole(cnpgBin: string): KubeObject {
  return { ...upstreamClusterRole(join(cnpgBin, 'rbac/role.yaml')), metadata: partMetadata(labels, 'cnpg-manager') };
}

/** Upstream's admission webhooks (webhook/manifests.yaml of the build), named as its release names them,
 * each calling the operator's Service with the cluster's CA. */
export function cnpgWebhookConfigurations(cnpgBin: string, caCert: string): KubeObject[] {
  const caBundle = Buffer.from(caCert).toString('base64');
  return upstreamDocuments(join(cnpgBin, 'webhook/manifests.yaml')).map((doc) => {
    const webhooks = (doc as { webhooks?: { clientConfig: { service: { path?: string } } }[] }).webhooks ?? [];
    return {
      ...doc,
      metadata: partMetadata(labels, `cnpg-${doc.metadata?.name ?? ''}`),
      webhooks: webhooks.map((webhook) => ({
        ...webhook,
        clientConfig: { caBundle, service: { ...cnpgWebhookService, port: 443, path: webhook.clientConfig.service.path } },
      })),
    } as KubeObject;
  });
}

/** The barman-cloud plugin's ClusterRole as upstream declares it (rbac/role.yaml of its build), and its
 * binding to the plugin's user. */
export function barmanCloudObjects(pluginBin: string): KubeObject[] {
  return [
    { ...upstreamClusterRole(join(pluginBin, 'rbac/role.yaml')), metadata: partMetadata(labels, 'plugin-barman-cloud') },
    roleBinding(labels, 'plugin-barman-cloud', 'plugin-barman-cloud', { kind: 'User', name: barmanCloudUser }),
  ];
}

/** The plugin's command line and environment: it serves CloudNativePG's operator on a unix socket in
 * `socketDir` (no TLS, no Service), and gives each Postgres pod its sidecar of `sidecarImage`. */
export function barmanCloudCommand(input: { manager: string; kubeconfig: string; socketDir: string; sidecarImage: string }): {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
} {
  return {
    binary: input.manager,
    args: ['operator', `--plugin-path=${input.socketDir}`, `--health-probe-bind-address=127.0.0.1:${ports.barmanCloudHealth}`],
    env: { PATH: process.env.PATH, KUBECONFIG: input.kubeconfig, SIDECAR_IMAGE: input.sidecarImage },
  };
}

/** The operator's namespace, its rights, and the Service its webhooks are called through. */
export function cnpgObjects(): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: partMetadata(labels, cnpgNamespace) },
    roleBinding(labels, 'cnpg-manager', 'cnpg-manager', { kind: 'User', name: cnpgUser }),
    ...nodeServiceObjects({ labels, service: cnpgWebhookService.name, namespace: cnpgNamespace, address: cnpgWebhookAddress }),
  ] as KubeObject[];
}

/** The operator's command line, run in `workDir`, where operator/manager_<arch> is (the operator finds
 * the architectures it can give Postgres pods there), and its environment. */
export function cnpgOperatorCommand(input: {
  manager: string;
  workDir: string;
  kubeconfig: string;
  certDir: string;
  image: string;
  pluginSocketDir: string;
}): {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
} {
  return {
    binary: 'sh',
    args: [
      '-c',
      'cd "$0" && exec "$@"',
      input.workDir,
      input.manager,
      'controller',
      `--webhook-port=${cnpgWebhookAddress.port}`,
      `--metrics-bind-address=127.0.0.1:${ports.operatorMetrics}`,
    ],
    env: {
      PATH: process.env.PATH,
      KUBECONFIG: input.kubeconfig,
      OPERATOR_NAMESPACE: cnpgNamespace,
      // The image each Postgres pod's init container copies the instance manager from.
      OPERATOR_IMAGE_NAME: input.image,
      // Its serving certificate, apiserver.crt and apiserver.key: no certificates of its own.
      WEBHOOK_CERT_DIR: input.certDir,
      MONITORING_QUERIES_CONFIGMAP: '',
      // Its plugins' sockets, each named by its plugin, read once at start: barman-cloud's.
      PLUGIN_SOCKET_DIR: input.pluginSocketDir,
    },
  };
}

/** The provisioner's namespace, its rights (upstream's deploy/local-path-storage.yaml), and the
 * StorageClass. A volume waits for its pod, which decides the node (the provisioner needs one). */
export function localPathObjects(): KubeObject[] {
  const user = { kind: 'User', name: localPathUser } as const;
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: partMetadata(localPathLabels, localPathNamespace) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: partMetadata(localPathLabels, 'local-path-provisioner'),
      rules: [
        {
          apiGroups: [''],
          resources: ['nodes', 'persistentvolumeclaims', 'configmaps', 'pods', 'pods/log'],
          verbs: ['get', 'list', 'watch'],
        },
        { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    roleBinding(localPathLabels, 'local-path-provisioner', 'local-path-provisioner', user),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: partMetadata(localPathLabels, 'local-path-provisioner', localPathNamespace),
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'] }],
    },
    roleBinding(localPathLabels, 'local-path-provisioner', 'local-path-provisioner', user, localPathNamespace),
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: partMetadata(localPathLabels, localPathStorageClass),
      provisioner: localPathProvisionerName,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
  ] as KubeObject[];
}

/** The provisioner's configuration: every volume a directory under `volumesDir`, made and removed by the
 * helper image's /setup and /teardown. */
export function localPathConfig(volumesDir: string): string {
  return JSON.stringify({
    nodePathMap: [{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: [volumesDir] }],
    setupCommand: '/setup',
    teardownCommand: '/teardown',
  });
}

/** The helper pod's template: upstream's, with the node's image. */
export function localPathHelperPod(image: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'helper-pod' },
    spec: {
      priorityClassName: 'system-node-critical',
      tolerations: [{ key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'helper-pod', image, imagePullPolicy: 'IfNotPresent' }],
    },
  });
}

/** The provisioner's flags. */
export function localPathArgs(input: { kubeconfig: string; config: string; helperPod: string }): string[] {
  return [
    'start',
    `--kubeconfig=${input.kubeconfig}`,
    `--namespace=${localPathNamespace}`,
    `--provisioner-name=${localPathProvisionerName}`,
    '--service-account-name=default',
    `--config=${input.config}`,
    `--helper-pod-file=${input.helperPod}`,
    `--health-port=${ports.localPathHealth}`,
  ];
}

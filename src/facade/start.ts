// startFacade: the facade as src/main.ts runs it. It shares the manager's informers when given one
// (one cache per resource for controllers and facade), waits for them to sync, and listens.
import { createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { KubeConfig, V1Namespace, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  codeHostIntegrationKind,
  databaseBackupKind,
  databaseRestoreKind,
  nameStemIndex,
  customHostIndex,
  indexNameStems,
  deploymentKind,
  indexCustomHost,
  isReadableSecret,
  oauthProviderKind,
  revisionKind,
  type CodeHostIntegration,
  type DatabaseBackup,
  type DatabaseRestore,
  type Deployment,
  type HostPolicy,
  type OrganizationQuota,
  type NodeVolumes,
  type OAuthProvider,
  type Revision,
} from '../api/index.ts';
import { CodeHostRegistry } from '../codehost/registry.ts';
import { createInformer, type Informer, type InformerOptions } from '../runtime/informer.ts';
import { uidIndex } from '../runtime/object-store.ts';
import { secretKind, type KubeObject, type ResourceKind } from '../runtime/types.ts';
import { apiKeyLabel, apiKeyRecordFromSecret, type ApiKeyRecord } from './api-keys.ts';
import { buildFacadeApp } from './app.ts';
import { defaultConsoleDir, loadConsole } from './console.ts';
import { kubeObjectWriter } from './kube-writer.ts';
import { kubePodLogReader } from './pod-logs.ts';
import { clusterMetricsSources } from './metrics-sources.ts';
import { kubeEventReader } from './deployment-events.ts';
import { revisionPods } from '../workloads/revision-pods.ts';
import { instrumentFacade } from './metrics.ts';
import type { RegistryAccess, SourceUploads } from './ports.ts';
import type { HostOwnershipProver } from '../domains/host-ownership.ts';
import { byUid, type FacadeCache, type FacadeDependencies, type CodeHostAccess } from './ports.ts';
import { optional } from '../runtime/index.ts';

/** Where informers come from: the runtime's Manager fits (and lends its metrics registry). */
export interface InformerSource {
  informer<T extends KubeObject>(resource: ResourceKind, options?: Omit<InformerOptions<T>, 'logger'>): Informer<T>;
  metrics?: { registry: Registry };
}

export interface FacadeOptions {
  kubeConfig: KubeConfig;
  /** The origins a code-host integration's base URL may name (src/codehost/outbound.ts). Default: the public code hosts. */
  codeHostOrigins?: readonly string[];
  /** Shares its informers; without one the facade runs its own (and stops them on close). */
  manager?: InformerSource;
  /** Where API key Secrets live. */
  operatorNamespace: string;
  port: number;
  host?: string;
  /** A second address to serve the same API on: the node's, for the kubelet and pods (berth dev). */
  nodeAddress?: { host: string; port: number };
  logger: Logger;
  bodyLimit?: number;
  /** How long a write waits for the controller to observe it. Default 10 s. */
  observeTimeoutMs?: number;
  /** The Prometheus-compatible store the Gateway's request metrics are in (--concurrency-metrics):
   * a deployment's request figures are read there. */
  metricsStore?: string;
  /** How long to wait for the caches to fill before listening anyway. Default 60 s. */
  syncTimeoutMs?: number;
  repositories?: CodeHostAccess;
  /** Serve only these namespaces' objects (as the controllers watch them). Default: all. */
  namespaces?: string[];
  /** Berth's registry for pushed images: push credentials and the registry's token endpoint. */
  registry?: RegistryAccess;
  /** Source uploads of internal_source deployments (needs the registry's signing key). */
  uploads?: SourceUploads;
  /** The custom URL hosts deployments may claim. Default: any, none reserved. */
  hostPolicy?: HostPolicy;
  hostOwnership?: HostOwnershipProver;
  /** The most replicas one deployment may ask for. Default: no cap. */
  maxReplicas?: number;
  /** The most custom hosts one organization may hold. Default: no cap. */
  maxCustomHosts?: number;
  /** The NFS servers and inline CSI drivers volumes may name. Default: any. */
  nodeVolumes?: NodeVolumes;
  /** The repositories whose previews may clone their deployment's database. Default: none. */
  previewDatabaseClone?: readonly string[];
  /** The organization policy's quota: a deployment that could never fit it is refused. Default: none. */
  organizationQuota?: OrganizationQuota;
  /** Where clients reach this API. Default: each request's Host. */
  publicUrl?: string;
  /** Where build Jobs run (src/workloads/build-jobs.ts). Default: beside their deployment. */
  buildNamespace?: string;
  /** The built web console served at /console/ (console.ts); false serves none. Default: dist/console. */
  consoleDir?: string | false;
}

export interface RunningFacade {
  url: string;
  port: number;
  /** The API at the node address, when it listens there too. */
  nodeUrl?: string;
  /** Stops serving; with `drainMs`, first answers that long with every connection closed after its response. */
  close(options?: { drainMs?: number }): Promise<void>;
}

const namespaceKind: ResourceKind = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };

/** The caches the HTTP API reads: each kind it answers from, indexed as its routes look things up. */
function facadeCache(source: InformerSource, options: FacadeOptions): FacadeCache & { apiKeySecrets: Informer<V1Secret> } {
  const scope = options.namespaces && options.namespaces.length > 0 ? { namespaces: options.namespaces } : {};
  // Requests name these by id: a uid index answers them without scanning the namespace.
  const findableById = { ...scope, indexes: { [byUid]: uidIndex } };
  const apiKeySecrets = source.informer<V1Secret>(secretKind, {
    namespaces: [options.operatorNamespace],
    labelSelector: `${apiKeyLabel}=true`,
  });
  const deployments = source.informer<Deployment>(deploymentKind, {
    ...scope,
    indexes: {
      [byUid]: uidIndex,
      [customHostIndex]: indexCustomHost,
      [nameStemIndex]: indexNameStems,
    },
  });
  const revisions = source.informer<Revision>(revisionKind, findableById);
  return {
    namespaces: source.informer<V1Namespace>(namespaceKind),
    apiKeySecrets,
    apiKeys: { list: () => apiKeyRecords(apiKeySecrets.list(options.operatorNamespace) as V1Secret[]) },
    oauthProviders: source.informer<OAuthProvider>(oauthProviderKind, scope),
    deployments,
    revisions,
    changes: { deployments, revisions },
    databaseBackups: source.informer<DatabaseBackup>(databaseBackupKind, findableById),
    databaseRestores: source.informer<DatabaseRestore>(databaseRestoreKind, findableById),
    codeHostIntegrations: source.informer<CodeHostIntegration>(codeHostIntegrationKind, findableById),
    pods: revisionPods(source, options.namespaces && options.namespaces.length > 0 ? options.namespaces : undefined),
  };
}

/** What the routes use: the caches, a writer, and the clients and settings the installation gives. */
function facadeDependencies(options: FacadeOptions, cache: FacadeCache): FacadeDependencies {
  const writer = kubeObjectWriter(options.kubeConfig);
  return {
    cache,
    writer,
    repositories:
      options.repositories ??
      registryLister(
        new CodeHostRegistry({ log: options.logger, ...optional('origins', options.codeHostOrigins) }),
        async (namespace, name) => {
          // Read by name, and taken only when shared with Berth, as the controller's cache would.
          const secret = await writer.read<V1Secret>(secretKind, namespace, name);
          return secret && isReadableSecret(secret) ? secret : undefined;
        },
      ),
    podLogs: kubePodLogReader(options.kubeConfig),
    events: kubeEventReader(options.kubeConfig),
    metrics: clusterMetricsSources(options.kubeConfig, options.metricsStore),
    observeTimeoutMs: options.observeTimeoutMs ?? 10_000,
    ...optional('registry', options.registry),
    ...optional('uploads', options.uploads),
    ...optional('hostPolicy', options.hostPolicy),
    ...optional('hostOwnership', options.hostOwnership),
    ...optional('maxReplicas', options.maxReplicas),
    ...optional('maxCustomHosts', options.maxCustomHosts),
    ...optional('nodeVolumes', options.nodeVolumes),
    ...optional('previewDatabaseClone', options.previewDatabaseClone),
    ...optional('organizationQuota', options.organizationQuota),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.buildNamespace ? { buildNamespace: options.buildNamespace } : {}),
  };
}

export async function startFacade(options: FacadeOptions): Promise<RunningFacade> {
  const ownInformers: Informer<KubeObject>[] = [];
  const source: InformerSource = options.manager ?? {
    informer: <T extends KubeObject>(resource: ResourceKind, informerOptions: Omit<InformerOptions<T>, 'logger'> = {}) => {
      const informer = createInformer<T>(options.kubeConfig, resource, { ...informerOptions, logger: options.logger });
      ownInformers.push(informer);
      return informer;
    },
  };
  const cache = facadeCache(source, options);
  const informers = [
    cache.namespaces,
    cache.apiKeySecrets,
    cache.oauthProviders,
    cache.deployments,
    cache.revisions,
    cache.databaseBackups,
    cache.databaseRestores,
    cache.codeHostIntegrations,
    cache.pods,
  ] as Informer<KubeObject>[];
  for (const informer of informers) informer.start();
  await waitForSync(informers, options.syncTimeoutMs ?? 60_000, options.logger);
  const deps = facadeDependencies(options, cache);
  const consoleDir = options.consoleDir ?? defaultConsoleDir();
  const consoleAssets = consoleDir === false ? undefined : loadConsole(consoleDir);
  const app = buildFacadeApp(deps, {
    logger: options.logger,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ...(consoleDir === false ? {} : { console: { assets: consoleAssets } }),
  });
  // While draining, every response closes its connection: a client's next request opens a new one,
  // which the Service sends to a replica that is not stopping.
  let draining = false;
  app.addHook('onSend', async (_request, reply) => {
    if (draining) reply.header('connection', 'close');
  });
  if (options.manager?.metrics) instrumentFacade(app, options.manager.metrics.registry);
  await app.listen({ port: options.port, host: options.host ?? '0.0.0.0' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
  const nodeServer = options.nodeAddress ? await listenAlso(app, options.nodeAddress) : undefined;
  options.logger.info({ port, ...(nodeServer ? { nodeUrl: nodeServer.url } : {}) }, 'serving the HTTP API');
  if (consoleAssets) options.logger.info({ url: `${urlOf(host, port)}/console/` }, 'serving the console');
  return {
    url: urlOf(host, port),
    port,
    ...(nodeServer ? { nodeUrl: nodeServer.url } : {}),
    async close({ drainMs = 0 } = {}) {
      if (drainMs > 0) {
        draining = true;
        options.logger.info({ drainMs }, 'draining the HTTP API before stopping');
        // Idle connections are not closed now: a client about to reuse one would see it reset. Each
        // is closed after its next response; those left idle through the drain are closed at the end.
        await new Promise((resolve) => setTimeout(resolve, drainMs));
      }
      await nodeServer?.close();
      await app.close();
      await Promise.all(ownInformers.map((informer) => informer.stop()));
    },
  };
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The same app on one more address (fastify's `routing` is the request handler it gives its own server). */
async function listenAlso(app: FastifyInstance, address: { host: string; port: number }): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => app.routing(request, response));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(address.port, address.host, () => resolve()));
  const bound = server.address();
  return {
    url: urlOf(address.host, typeof bound === 'object' && bound ? bound.port : address.port),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function apiKeyRecords(secrets: readonly V1Secret[]): ApiKeyRecord[] {
  return secrets.map(apiKeyRecordFromSecret).filter((record): record is ApiKeyRecord => record !== undefined);
}

/** The code-host registry as the facade's CodeHostAccess. */
function registryLister(
  registry: CodeHostRegistry,
  readSecret: (namespace: string, name: string) => Promise<V1Secret | undefined>,
): CodeHostAccess {
  return {
    listRepositories: (integration) => registry.repositoriesOf(integration, readSecret),
    webhookSecret: (integration) => registry.webhookSecretOf(integration, readSecret),
  };
}

async function waitForSync(informers: Informer<KubeObject>[], timeoutMs: number, logger: Logger): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    await Promise.all(informers.map((informer) => informer.waitForSync(signal)));
  } catch {
    logger.warn({ unsynced: informers.filter((i) => !i.hasSynced()).map((i) => i.resource.plural) }, 'serving before every cache synced');
  }
}

// Starts the parts of Berth the options ask for against one cluster: the Manager (shared informers,
// leader election, /healthz /readyz /metrics), the controllers and the HTTP facade. Wiring only.
import { registerPreviewController } from '../reconcilers/preview/index.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { registerCodeHostIntegrationController } from '../reconcilers/codehost-integration/index.ts';
import {
  defaultDeploymentControllerOptions,
  httpScaledObjectKind,
  interceptorRouteKind,
  prepareBuildNamespace,
  objectStoreKind,
  postgresClusterKind,
  registerDeploymentControllers,
  type DeploymentInformers,
  scaledObjectKind,
} from '../reconcilers/deployment/index.ts';
import { writableStorePath } from '../workloads/metrics-store.ts';
import { protectMetricsStore } from '../workloads/metrics-store-policy.ts';
import { labelManagedSecrets } from '../workloads/readable-secrets.ts';
import { registerOAuthProviderController } from '../reconcilers/oauth-provider/index.ts';
import { registerDatabaseBackupController } from '../reconcilers/database-backup/index.ts';
import { registerDatabaseRestoreController } from '../reconcilers/database-restore/index.ts';
import { registerBackupScheduleController } from '../reconcilers/database-backup/schedule-controller.ts';
import { registerTracingProjectController } from '../reconcilers/tracing-project/index.ts';
import { registerOrganizationController } from '../reconcilers/organization/index.ts';
import { admittedNamespacesOf, type InstallationReach } from '../reconcilers/organization/render.ts';
import { databaseAddressesOf } from './database-reach.ts';
import { registerBackupStoreController } from '../reconcilers/backup-store/index.ts';
import { startFacade, type RunningFacade } from '../facade/start.ts';
import { publicCodeHostOrigins } from '../codehost/outbound.ts';
import { dnsOwnershipProver, type HostOwnershipProver } from '../domains/host-ownership.ts';
import { isKubeApiError, KindNotServedError, Manager, type Logger, optional, resolveResource } from '../runtime/index.ts';
import { ensureRegistrySigning, type RegistrySigning } from '../registry/signing.ts';
import { registrySourceArchives } from '../registry/source-archives.ts';
import type { RegistryAccess } from '../facade/ports.ts';
import { bearerToken } from '../facade/routes/registry.ts';
import { registryIssuer, registryService } from '../registry/tokens.ts';
import {
  agentServerLicenseSecretName,
  organizationPolicyObjectName,
  type DatabaseEngine,
  resolveDatabaseEngine,
  type Activator,
  type AppTls,
  type HostPolicy,
  type OrganizationQuota,
  type RequestConcurrency,
} from '../api/index.ts';
import type { Options } from './options.ts';
import { networkPolicyCheckFor } from './path-check.ts';

/** Flags first, then the defaults of an installation. With a registry whose tokens Berth issues,
 * organizations' sources and built images are kept there, each organization's reachable only with its
 * own credential (Secret berth-organization in its namespace). */
export function imagesFor(options: Options) {
  const defaults = defaultDeploymentControllerOptions;
  const pushRegistry = options.pushRegistry;
  return {
    registry: pushRegistry ?? options.registry ?? 'registry.berth-system.svc:5000',
    ...(pushRegistry ? { registryCredentials: organizationPolicyObjectName } : {}),
    ...(options.agentServerLicenseSecret ? { agentServerLicense: agentServerLicenseSecretName } : {}),
    images: {
      ...defaults.images,
      builder: options.builderImage ?? defaults.images.builder,
      git: options.gitImage ?? defaults.images.git,
      buildTools: options.buildToolsImage ?? defaults.images.buildTools,
      agentTools: options.agentToolsImage ?? defaults.images.agentTools,
      ...agentServerOf(options.agentServerImage),
      postgres: options.postgresImage ?? defaults.images.postgres,
      cnpgPostgres: options.cnpgPostgresImage ?? defaults.images.cnpgPostgres,
      redis: options.redisImage ?? defaults.images.redis,
      ...optional('networkWait', options.networkWaitImage),
    },
  };
}

/** Backups (asked for, and on a schedule) and restores of the deployments' databases. */
function registerDatabaseControllers(
  manager: Manager,
  informers: DeploymentInformers,
  options: Omit<Options, 'databaseEngine'> & { databaseEngine: DatabaseEngine },
  images: { cnpgPostgres?: string },
  scope: { namespaces?: string[] },
): void {
  registerDatabaseBackupController(manager, informers, { databaseEngine: options.databaseEngine, ...scope });
  registerDatabaseRestoreController(manager, informers, {
    databaseEngine: options.databaseEngine,
    clusterSettings: { images, requestScale: options.requestScale, ...optional('cnpgStorageClass', options.cnpgStorageClass) },
    ...scope,
  });
  const { databaseBackups } = informers;
  if (databaseBackups)
    registerBackupScheduleController(
      manager,
      { ...informers, databaseBackups },
      { schedule: options.backupSchedule, databaseEngine: options.databaseEngine },
    );
}

/** Where deployments are reached from outside the cluster. */
function routingFor(options: Options) {
  const appUrls = options.appUrlTemplate;
  const gateway = options.gateway;
  const issuer = options.tlsIssuer;
  const tls: AppTls | undefined =
    issuer && gateway && appUrls?.scheme === 'https'
      ? { issuer, gateway, appUrls, listenersPerGateway: options.listenersPerGateway }
      : undefined;
  return {
    ...optional('appUrls', appUrls),
    ...optional('tls', tls),
    ...optional('gateway', gateway),
    ...(options.ingressClass ? { ingressClassName: options.ingressClass } : {}),
  };
}

/** Where apps scale on requests in flight, KEDA must serve ScaledObjects: a refusal that says so at start,
 * rather than a cache that never fills. */
async function requireScaledObjects(kubeConfig: KubeConfig): Promise<void> {
  const { apiVersion, kind } = scaledObjectKind;
  await resolveResource(kubeConfig, apiVersion, kind).catch((error: unknown) => {
    throw new Error(
      `--concurrency-metrics needs KEDA: this cluster serves no ${kind} (${apiVersion}). Install KEDA, or leave --concurrency-metrics unset for a HorizontalPodAutoscaler on CPU`,
      { cause: error },
    );
  });
}

/** Whether the cluster serves a kind (a CRD installed or not). Any other failure of the lookup ends the
 * start: a choice made on it (`auto`'s engine) would hold for every database made until the next. */
function serves(kubeConfig: KubeConfig, { apiVersion, kind }: { apiVersion: string; kind: string }): Promise<boolean> {
  return resolveResource(kubeConfig, apiVersion, kind).then(
    () => true,
    (error: unknown) => {
      if (error instanceof KindNotServedError || isKubeApiError(error, 404)) return false;
      throw error;
    },
  );
}

/** The engine of new databases (--database-engine, `auto` by default), and whether the cluster serves
 * CloudNativePG's Cluster. `cnpg` where it serves none is refused at start, rather than Deployments whose
 * databases never come. */
async function engineOfNewDatabases(kubeConfig: KubeConfig, options: Options, logger: Logger) {
  const postgresClusters = await serves(kubeConfig, postgresClusterKind);
  const databaseEngine = resolveDatabaseEngine(options.databaseEngine, postgresClusters);
  if (typeof databaseEngine !== 'string') throw new Error(databaseEngine.error);
  const why = postgresClusters ? 'the cluster serves CloudNativePG' : 'the cluster serves no CloudNativePG';
  logger.info(
    { databaseEngine, chosen: options.databaseEngine },
    `new databases run on ${databaseEngine} (${options.databaseEngine}: ${why})`,
  );
  return { databaseEngine, postgresClusters };
}

/** KEDA reads apps' scale from the metrics store: a store that takes writes where KEDA reads is refused
 * at start, with what to point the flag at instead. */
async function refuseWritableStore(store: string): Promise<void> {
  const path = await writableStorePath(store);
  if (path)
    throw new Error(
      `--concurrency-metrics takes writes at ${path}, and whoever writes there moves every app's scale: point it at a query-only endpoint (vmselect, vmauth passing /api/v1/query alone, or Prometheus without its remote-write receiver)`,
    );
}

/** The organization policy's limits, as the controllers and the HTTP API hold deployments to them. */
function organizationLimitsOf(options: Options): OrganizationLimits {
  const policy = options.organizationPolicy;
  const hard = policy?.resourceQuota;
  return {
    ...optional('maxReplicas', policy?.maxReplicas),
    ...optional('maxCustomHosts', policy?.maxCustomHosts),
    ...optional('nodeVolumes', policy?.nodeVolumes),
    ...optional('previewDatabaseClone', policy?.previewDatabaseClone),
    ...(hard ? { organizationQuota: { hard, requestScale: options.requestScale } } : {}),
  };
}

/** What organizationLimitsOf gives both the controllers and the HTTP API. */
interface OrganizationLimits {
  maxReplicas?: number;
  maxCustomHosts?: number;
  nodeVolumes?: NonNullable<Options['organizationPolicy']>['nodeVolumes'];
  previewDatabaseClone?: readonly string[];
  organizationQuota?: OrganizationQuota;
}

/** The activator for dev_zero, as the flags name it. It needs the Gateway's routes
 * (an Ingress cannot reach a Service in another namespace) and KEDA's two kinds, refused at start
 * otherwise, with what is missing. */
async function activatorFor(kubeConfig: KubeConfig, options: Options, gateway: unknown): Promise<{ activator?: Activator }> {
  if (!options.activatorProxy || !options.activatorScaler) return {};
  const activator = { proxy: options.activatorProxy, scalerAddress: options.activatorScaler, idleSeconds: options.activatorIdleSeconds };
  if (!gateway) throw new Error('--activator-proxy needs a Gateway (--gateway): an Ingress cannot reach a Service in another namespace');
  for (const { apiVersion, kind } of [scaledObjectKind, interceptorRouteKind]) {
    await resolveResource(kubeConfig, apiVersion, kind).catch((error: unknown) => {
      throw new Error(
        `--activator-proxy needs KEDA and its HTTP add-on (v0.14.0 or later): this cluster serves no ${kind} (${apiVersion}). Install them, or leave --activator-proxy unset (dev_zero then runs as dev)`,
        { cause: error },
      );
    });
  }
  const servesHttpScaledObjects = await serves(kubeConfig, httpScaledObjectKind);
  return { activator: { ...activator, servesHttpScaledObjects } };
}

/** Where apps' request concurrency is read for autoscaling. */
function requestConcurrencyFor(options: Options): { requestConcurrency?: RequestConcurrency } {
  const serverAddress = options.concurrencyMetrics;
  return serverAddress ? { requestConcurrency: { serverAddress, query: options.concurrencyQuery } } : {};
}

/** Where the HTTP API reads a deployment's request figures: the store apps scale from. */
function metricsStoreOf(options: Options): { metricsStore?: string } {
  const store = requestConcurrencyFor(options).requestConcurrency?.serverAddress;
  return store ? { metricsStore: store } : {};
}

/** What builds wait for before they start: a builder the embedding process is still making (the local node's). */
export interface WaitingOn {
  builder?: string;
}

export interface RunningBerth {
  manager: Manager;
  facade?: RunningFacade;
  /** Graceful stop: the manager releases its lease while the facade drains (options.drainSeconds) and
   * stops taking requests; then the caches stop. */
  stop(): Promise<void>;
}

export async function startBerth(kubeConfig: KubeConfig, options: Options, logger: Logger, waiting: WaitingOn = {}): Promise<RunningBerth> {
  const manager = new Manager({
    kubeConfig,
    logger,
    healthPort: options.probeAddress.port,
    healthHost: options.probeAddress.host,
    ...(options.leaderElect ? { leaderElection: { namespace: options.namespace } } : {}),
  });
  const installation = await installationOf(kubeConfig, options, logger);
  const codeHost = options.components.includes('controller')
    ? await registerControllers(manager, options, installation, waiting)
    : undefined;
  await manager.start();
  const facade = options.components.includes('facade') ? await startBerthFacade(manager, options, installation, codeHost) : undefined;
  return {
    manager,
    facade,
    async stop() {
      // Another replica takes the Lease while this one's HTTP API drains from its still-current caches.
      await Promise.all([manager.stopLeading(), facade?.close({ drainMs: options.drainSeconds * 1000 })]);
      await manager.stop();
    },
  };
}

/** What the controllers and the HTTP API share: one answer each, read once from the options. */
interface Installation {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Every informer, controller's and facade's alike, watches the same namespaces (all when none given),
   * and the build namespace, where the builds of those namespaces run. */
  scope: { namespaces?: string[] };
  /** What the installation runs and where builds push: the controllers' and the uploads' one answer. */
  images: ReturnType<typeof imagesFor>;
  pushRegistry: string | undefined;
  signing: RegistrySigning | undefined;
  routing: ReturnType<typeof routingFor>;
  /** One rule for custom URL hosts, held by the facade before a write and by the controller after one. */
  hostPolicy: HostPolicy;
  /** The code hosts integrations may call: the flag, else the public ones. */
  codeHostOrigins: readonly string[];
  /** Where the organization policy asks for proof of a custom host's ownership: how it is checked. */
  hostOwnership: HostOwnershipProver | undefined;
}

async function installationOf(kubeConfig: KubeConfig, options: Options, logger: Logger): Promise<Installation> {
  const watched = [...options.watchNamespaces, ...(options.buildNamespace ? [options.buildNamespace] : [])];
  const pushRegistry = options.pushRegistry;
  const routing = routingFor(options);
  return {
    kubeConfig,
    logger,
    scope: options.watchNamespaces.length > 0 ? { namespaces: [...new Set(watched)] } : {},
    images: imagesFor(options),
    pushRegistry,
    signing: pushRegistry ? await ensureRegistrySigning(kubeConfig, options.namespace) : undefined,
    routing,
    hostPolicy: {
      allowedDomains: options.customUrlDomains,
      reservedHosts: options.reservedHosts,
      ...(routing.appUrls ? { reservedDomains: [routing.appUrls.domain] } : {}),
    },
    codeHostOrigins: options.codeHostOrigins ?? publicCodeHostOrigins,
    hostOwnership: options.organizationPolicy?.customHostProof === 'dns' ? dnsOwnershipProver({ servers: options.dnsServers }) : undefined,
  };
}
/** The controllers of the components' `controller` half; answers the code hosts' registry the HTTP API shares. */
async function registerControllers(manager: Manager, options: Options, installation: Installation, waiting: WaitingOn) {
  const { kubeConfig, logger, scope, images, hostPolicy, codeHostOrigins, routing, hostOwnership } = installation;
  const scaling = requestConcurrencyFor(options);
  const store = scaling.requestConcurrency?.serverAddress;
  if (store) {
    await requireScaledObjects(kubeConfig);
    await refuseWritableStore(store);
  }
  const { databaseEngine, postgresClusters } = await engineOfNewDatabases(kubeConfig, options, logger);
  const objectStores = postgresClusters && (await serves(kubeConfig, objectStoreKind));
  const activation = await activatorFor(kubeConfig, options, routing.gateway);
  const networkPolicyCheck = await networkPolicyCheckFor(kubeConfig, options, logger);
  const buildNamespace = options.buildNamespace;
  const blocked = options.buildBlockedCidrs;
  if (buildNamespace) manager.whenLeading('build namespace', () => prepareBuildNamespace(kubeConfig, buildNamespace, logger, blocked));
  if (store) manager.whenLeading('metrics store', () => protectMetricsStore(kubeConfig, { url: store, buildNamespace }, logger));
  manager.whenLeading('readable Secrets', () => labelManagedSecrets(kubeConfig, scope.namespaces, logger));
  const { informers } = registerDeploymentControllers(manager, {
    ...images,
    buildPrivileged: options.buildPrivileged,
    codeHostOrigins,
    notificationOrigins: options.notificationOrigins,
    ...(waiting.builder ? { awaitedBuilder: waiting.builder } : {}),
    ...(options.buildNamespace ? { buildNamespace: options.buildNamespace } : {}),
    ...optional('buildResources', options.buildResources),
    ...optional('buildPlacement', options.buildPlacement),
    sourcePollIntervalMs: options.sourcePollSeconds * 1000,
    buildsPerOrganization: options.buildsPerOrganization,
    previewBuildsPerOrganization: options.previewBuildsPerOrganization,
    firstInputDeadlineMs: options.firstInputDeadlineSeconds * 1000,
    progressDeadlineSeconds: options.progressDeadlineSeconds,
    scaleDownWindowSeconds: options.scaleDownWindowSeconds,
    ...organizationLimitsOf(options),
    requestScale: options.requestScale,
    hostPolicy,
    ...optional('hostOwnership', hostOwnership),
    ...routing,
    ...scaling,
    ...activation,
    ...(options.proxyNamespace ? { proxyNamespace: options.proxyNamespace } : {}),
    networkPolicyCheck,
    databaseEngine,
    postgresClusters,
    objectStores,
    ...optional('cnpgStorageClass', options.cnpgStorageClass),
    ...scope,
  });
  registerDatabaseControllers(manager, informers, { ...options, databaseEngine }, images.images, scope);
  registerTracingProjectController(manager, scope);
  registerOAuthProviderController(manager, { ...scope, privateNetworks: options.oauthPrivateNetworks });
  registerOrganizationControllerIfAny(manager, options, installation, {
    admittedNamespaces: admittedNamespacesOf({
      relays: [activation.activator?.proxy.namespace, routing.gateway?.namespace, options.proxyNamespace],
      ...optional('databaseOperator', postgresClusters ? options.cnpgOperatorNamespace : undefined),
    }),
    // Only a NetworkPolicy blocks them (the chart grants the API server's read with one).
    databaseAddresses: options.organizationPolicy?.networkPolicy
      ? await databaseAddressesOf(kubeConfig, { postgresClusters, backupStore: options.backupStore }, logger)
      : [],
  });
  if (options.backupStore && options.backupStoreSecret)
    registerBackupStoreController(manager, {
      url: options.backupStore,
      adminUrl: options.backupStoreAdmin ?? options.backupStore,
      adminSecret: { namespace: options.namespace, name: options.backupStoreSecret },
      ...scope,
    });
  const codeHost = registerCodeHostIntegrationController(manager, { ...scope, origins: codeHostOrigins });
  registerPreviewController(manager, {
    registry: codeHost.registry,
    readSecret: codeHost.readSecret,
    intervalMs: options.sourcePollSeconds * 1000,
    forkSecrets: options.previewForkSecrets,
    ...scope,
  });
  return codeHost;
}

/** The organization controller, where the installation gives organizations anything to keep. */
function registerOrganizationControllerIfAny(
  manager: Manager,
  options: Options,
  installation: Installation,
  reach: InstallationReach,
): void {
  const { pushRegistry, signing, routing, hostPolicy, scope } = installation;
  const license = options.agentServerLicenseSecret;
  if (!options.organizationPolicy && !(pushRegistry && signing) && !routing.tls && !license) return;
  registerOrganizationController(manager, {
    policy: options.organizationPolicy ?? {},
    reach,
    ...(pushRegistry && signing ? { registry: { host: pushRegistry, key: signing.pushKey } } : {}),
    ...(routing.tls ? { tls: { config: routing.tls, hostPolicy, maxCustomHosts: options.organizationPolicy?.maxCustomHosts } } : {}),
    ...(license ? { agentServerLicense: { namespace: options.namespace, name: license } } : {}),
    ...scope,
  });
}

/** The HTTP API, on the manager's caches; uploads where builds push, and the controllers' code-host clients. */
async function startBerthFacade(
  manager: Manager,
  options: Options,
  installation: Installation,
  codeHost: Awaited<ReturnType<typeof registerControllers>> | undefined,
): Promise<RunningFacade> {
  const { kubeConfig, logger, scope, images, pushRegistry, signing, hostPolicy, codeHostOrigins, hostOwnership } = installation;
  // Source uploads are signed with the push credentials' key and kept in the registry builds push to.
  const registry = pushRegistry && signing ? pushRegistryAccess(pushRegistry, signing) : undefined;
  return startFacade({
    kubeConfig,
    manager,
    operatorNamespace: options.namespace,
    ...scope,
    port: options.facadeAddress.port,
    host: options.facadeAddress.host,
    ...optional('nodeAddress', options.facadeNodeAddress),
    logger,
    hostPolicy,
    ...optional('hostOwnership', hostOwnership),
    codeHostOrigins,
    ...organizationLimitsOf(options),
    ...(options.buildNamespace ? { buildNamespace: options.buildNamespace } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.consoleDir ? { consoleDir: options.consoleDir === 'off' ? false : options.consoleDir } : {}),
    ...metricsStoreOf(options),
    ...(registry
      ? {
          registry,
          uploads: {
            key: registry.signing.pushKey,
            store: registrySourceArchives(images.registry, undefined, (repository) => ownToken(registry, repository)),
          },
        }
      : {}),
    // One code-host client (and one App installation token) per integration for both halves.
    ...(codeHost
      ? {
          repositories: {
            listRepositories: (integration) => codeHost.registry.repositoriesOf(integration, codeHost.readSecret),
            webhookSecret: (integration) => codeHost.registry.webhookSecretOf(integration, codeHost.readSecret),
          },
        }
      : {}),
  });
}

/** The registry for pushed images, with the signing material every replica shares (one Secret). */
function pushRegistryAccess(host: string, signing: RegistrySigning): RegistryAccess {
  return { host, service: registryService, issuer: registryIssuer, signing };
}

/** Berth's own bearer token for one repository (it keeps uploaded sources there): long enough for the largest upload. */
function ownToken(registry: RegistryAccess, repository: string): string {
  const access = [{ type: 'repository', name: repository, actions: ['pull', 'push'] }];
  return bearerToken(registry, { subject: 'berth', access, nowSeconds: Math.floor(Date.now() / 1000), ttlSeconds: 900 });
}

/** The durable agent server's image, when one is named (none: the reference's image). */
function agentServerOf(image: string | undefined): { agentServer?: string } {
  return image ? { agentServer: image } : {};
}

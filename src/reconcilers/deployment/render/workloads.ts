// Everything a Deployment runs, rendered in one call: the set of workload manifests for a spec and the
// revision being served. Pure; the reconciler applies what differs from the cache and prunes the rest.
import {
  appHost,
  childNames,
  type DatabaseEngine,
  parseCustomUrl,
  routeListenerName,
  type Activator,
  type AppTls,
  type AppUrlTemplate,
} from '../../../api/index.ts';
import { routeServiceNames, type RouteServices } from '../../../api/child-names.ts';
import { optional, type KubeObject } from '../../../runtime/index.ts';
import {
  renderApplication,
  renderApplicationService,
  renderCanary,
  renderRouteService,
  renderQueueWorker,
  type ServingRevision,
  type WorkloadInput,
} from './application.ts';
import { agentServerLicenseFor, durableServerOf, renderRunBacklogScaledObject } from './agent-server.ts';
import { renderApplicationAutoscaler, renderQueueWorkerAutoscaler, servesScaledObjects, type AutoscalingSettings } from './autoscalers.ts';
import { applicationMinScale, backingServices, scaling } from './backing.ts';
import type { OwnerDeployment } from './common.ts';
import {
  canaryBackends,
  serviceBackend,
  renderHttpRoute,
  renderIngress,
  type ExternalRoute,
  type GatewayRef,
  type RouteBackend,
  type ShardListener,
} from './ingress.ts';
import { renderPostgres, renderPostgresService } from './postgres.ts';
import {
  postgresClusterSettings,
  renderPostgresCluster,
  renderPostgresClusterService,
  type RecoverySource,
  type ServingDatabase,
} from './postgres-cluster.ts';
import { databaseArchiveOf, renderObjectStore, type BackupStoreReach } from './database-archive.ts';
import { activatorBackend, renderActivatedScaledObject, renderInterceptorRoute } from './scale-to-zero.ts';
import { scaleToZero, type ScaleToZero } from './tier.ts';
import { renderRedis, renderRedisService } from './redis.ts';
import type { DeploymentSpecInput } from './spec.ts';

export interface WorkloadSettings extends AutoscalingSettings {
  applicationPort: number;
  images: { postgres: string; cnpgPostgres?: string; redis: string; agentServer?: string; networkWait?: string };
  /** The StorageClass of a CloudNativePG Cluster's volume (render/postgres-cluster.ts). */
  cnpgStorageClass?: string;
  requestScale: number;
  progressDeadlineSeconds: number;
  ingressClassName?: string;
  /** Each Deployment's own URL (src/api/app-urls.ts), when the installation gives them one. */
  appUrls?: AppUrlTemplate;
  /** Routes are HTTPRoutes on this Gateway; without one, an Ingress. */
  gateway?: GatewayRef;
  /** TLS for https:// URLs: whose listeners, on the Gateway or its shards, serve the routes' hosts. */
  tls?: AppTls;
  /** The organization's pull secret for Berth's registry (Secret berth-organization), when it has one. */
  registryCredentials?: string;
  /** Berth's registry: with registryCredentials, its images are pulled with them at every start. */
  registry?: string;
  /** The request-driven activator: with it, a dev_zero app that has a URL scales to zero when idle. */
  activator?: Activator;
  /** The organizations' copy of the reference agent server's licence key (src/api/agent-server-license.ts). */
  agentServerLicense?: string;
}

export interface WorkloadsInput {
  owner: OwnerDeployment;
  spec: DeploymentSpecInput;
  /** Absent while no revision has an image yet (the first build): only the backing services are rendered. */
  serving?: ServingRevision;
  settings: WorkloadSettings;
  /** An app that scales to zero keeps a pod (rollout/keep-awake.ts): while a revision rolls out, and for
   * its idle window once DEPLOYED. */
  keepOnePod?: boolean;
  /** The room of the database that exists already: a StatefulSet's claim (volumeClaimTemplates are
   * immutable), or the serving Cluster's volume (never shrunk). */
  existingDatabaseStorage?: string;
  /** What holds the database (database.ts): a StatefulSet unless it says otherwise. */
  databaseEngine?: DatabaseEngine;
  /** The organization's bucket, where a CloudNativePG database archives its WAL (database-archive.ts). */
  backupStore?: BackupStoreReach;
  /** Which CloudNativePG Cluster serves and its archive's server name (database.ts); unset, the first. */
  servingDatabase?: ServingDatabase;
  /** The backup the first Cluster begins from (a preview's clone, preview-clone.ts); unset, it begins empty. */
  databaseRecovery?: RecoverySource;
  /** A canary of a new revision beside `serving` (canary.ts): its pods, and the percent of requests routed to them. */
  canary?: CanaryWorkload;
  /** The Services the routes name (route-targets.ts): the route Services, unless an upgrade still routes
   * to the application's and canary's own. */
  routeTo?: RouteServices;
  /** The shards of the Gateway holding the organization's listeners (gateway-shards.ts), by listener: a
   * route whose host's listener is on one names it too. */
  listenerShards?: ReadonlyMap<string, string>;
}

export interface CanaryWorkload {
  serving: ServingRevision;
  replicas: number;
  /** 0 until its pods are available (a route to a Service without endpoints would answer 500s). */
  weight: number;
}

/** What the application's (and queue worker's, and pre-deploy command's) pods are made from, for the
 * revision they run. */
export function workloadInput(input: Omit<WorkloadsInput, 'serving'>, serving: ServingRevision): WorkloadInput {
  const { owner, spec, settings } = input;
  const backing = backingServices(spec);
  const license = agentServerLicenseFor(spec, {
    agentServerImage: settings.images.agentServer,
    licenseSecret: settings.agentServerLicense,
  });
  return {
    owner,
    spec,
    serving,
    backing,
    ...optional('durableServer', durableServerOf(spec, settings.images.agentServer, backing)),
    ...(license ? { agentServerLicense: license } : {}),
    port: settings.applicationPort,
    images: settings.images,
    requestScale: settings.requestScale,
    progressDeadlineSeconds: settings.progressDeadlineSeconds,
    ...(settings.registryCredentials ? { registryCredentials: settings.registryCredentials, credentialedRegistry: settings.registry } : {}),
    ...optional('restoredDatabase', restoredDatabaseOf(input)),
  };
}

/** The Cluster a restore switched the database to, if one did: what the app's pods were started against. */
function restoredDatabaseOf({ databaseEngine, servingDatabase }: Omit<WorkloadsInput, 'serving'>): string | undefined {
  return databaseEngine === 'cnpg' && servingDatabase?.restored ? servingDatabase.cluster : undefined;
}

export function renderWorkloads(input: WorkloadsInput): KubeObject[] {
  const { owner, spec, serving, settings } = input;
  const backing = backingServices(spec);
  const routes = externalRoutes(owner, spec, settings);
  const activation = activationOf(owner, spec, settings, routes, input.keepOnePod ?? false);
  const routeTo = input.routeTo ?? routeServiceNames(owner.uid);
  const desired: KubeObject[] = [renderApplicationService({ owner, spec })];
  if (routes.length > 0) desired.push(renderRouteService({ owner, spec }, routeServiceNames(owner.uid).stable, 'application'));
  if (serving) {
    const workload = workloadInput(input, serving);
    desired.push(renderApplication(workload));
    const autoscalers = activation
      ? activatedAutoscalers(activation)
      : [renderApplicationAutoscaler(owner, spec, settings, routeTo.stable)];
    for (const autoscaler of autoscalers) if (autoscaler) desired.push(autoscaler);
    if (input.canary)
      desired.push(
        renderRouteService({ owner, spec }, routeTo.canary, 'canary'),
        renderCanary(workloadInput(input, input.canary.serving), input.canary.replicas),
      );
    if (backing.queueWorker) {
      desired.push(renderQueueWorker(workload));
      const queueAutoscaler =
        workload.durableServer?.queued && servesScaledObjects(settings)
          ? renderRunBacklogScaledObject(owner, spec, settings)
          : renderQueueWorkerAutoscaler(owner, spec, settings);
      if (queueAutoscaler) desired.push(queueAutoscaler);
    }
  }
  if (backing.database) desired.push(...renderDatabase(input));
  if (backing.redis) desired.push(renderRedis(owner, spec, settings.images.redis, settings.requestScale), renderRedisService(owner));
  const backends = routeBackends(routeTo, activation, input.canary);
  const gateway = settings.gateway;
  if (gateway) for (const route of routes) desired.push(renderHttpRoute(owner, route, gateway, backends, shardOf(input, route)));
  else if (routes.length > 0) desired.push(renderIngress(owner, routes, routeTo.stable, settings.ingressClassName));
  return desired;
}

/** The database's objects: a CloudNativePG Cluster, or a StatefulSet and its headless Service. */
function renderDatabase(input: WorkloadsInput): KubeObject[] {
  const { owner, spec, settings, databaseEngine, existingDatabaseStorage, backupStore } = input;
  const requestScale = settings.requestScale;
  if (databaseEngine === 'cnpg') {
    const serving = input.servingDatabase ?? { cluster: childNames(owner.name).postgresCluster, serverName: owner.uid };
    const first = serving.cluster === childNames(owner.name).postgresCluster && !serving.restored;
    const cluster = renderPostgresCluster({
      ...postgresClusterSettings(owner, spec, settings),
      cluster: serving.cluster,
      ...(serving.restored ? { restored: true } : {}),
      ...(first && input.databaseRecovery ? { recovery: input.databaseRecovery } : {}),
      ...(backupStore ? { archive: databaseArchiveOf(owner, serving.serverName) } : {}),
      ...optional('existingStorage', existingDatabaseStorage),
    });
    const service = renderPostgresClusterService(owner, serving.cluster);
    return backupStore ? [renderObjectStore(owner, backupStore), cluster, service] : [cluster, service];
  }
  return [
    renderPostgres({ owner, spec, image: settings.images.postgres, requestScale, ...optional('existingStorage', existingDatabaseStorage) }),
    renderPostgresService(owner),
  ];
}

/** The shard serving a route's host, and its listener there, when not the configured Gateway. */
function shardOf({ owner, settings, listenerShards }: WorkloadsInput, route: ExternalRoute): ShardListener | undefined {
  if (!settings.tls || !listenerShards) return undefined;
  const sectionName = routeListenerName(settings.tls, owner.namespace, route.host);
  const name = listenerShards.get(sectionName);
  return name ? { name, sectionName } : undefined;
}

/** Where the routes send requests: the activator, or the application with a canary's share beside it. */
function routeBackends(routeTo: RouteServices, activation: Activation | undefined, canary: CanaryWorkload | undefined): RouteBackend[] {
  if (activation) return [activatorBackend(activation.activator.proxy)];
  if (canary && canary.weight > 0) return canaryBackends(routeTo, canary.weight);
  return [serviceBackend(routeTo.stable)];
}

interface Activation {
  owner: OwnerDeployment;
  activator: Activator;
  routes: ExternalRoute[];
  maxReplicas: number;
  keepOnePod: boolean;
  /** Seconds without a request before zero (sourceConfig.idleSeconds). */
  idleSeconds?: number;
  scaleDownWindowSeconds: number;
}

/** How a dev_zero app scales to zero here, if it does (tier.ts decides; maxScale 0 keeps nothing running). */
function activationOf(
  owner: OwnerDeployment,
  spec: DeploymentSpecInput,
  settings: WorkloadSettings,
  routes: ExternalRoute[],
  keepOnePod: boolean,
): Activation | undefined {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const scale = scaling(applicationMinScale(spec), resources.maxScale);
  if (scaleToZeroWith(settings, spec, routes) !== 'activated' || scale.kind !== 'autoscaled' || !settings.activator) return undefined;
  const idleSeconds = spec.sourceConfig?.idleSeconds;
  return {
    owner,
    activator: settings.activator,
    routes,
    maxReplicas: scale.maxReplicas,
    keepOnePod,
    ...(idleSeconds ? { idleSeconds } : {}),
    scaleDownWindowSeconds: settings.scaleDownWindowSeconds,
  };
}

/** Whether the app scales to zero with the installation's settings and its routes, or why not (tier.ts). */
export function scaleToZeroWith(
  settings: WorkloadSettings,
  spec: DeploymentSpecInput,
  routes: readonly ExternalRoute[],
): ScaleToZero | undefined {
  return scaleToZero(spec.sourceConfig?.deploymentType, {
    activator: !!settings.activator && !!settings.gateway,
    routed: routes.length > 0,
  });
}

function activatedAutoscalers(activation: Activation): KubeObject[] {
  const { owner, activator, routes, ...scale } = activation;
  return [renderInterceptorRoute(owner, routes), renderActivatedScaledObject(owner, activator, scale)];
}

/** The Deployment's own URL's host, then its customUrl's host and path. */
export function externalRoutes(owner: OwnerDeployment, spec: DeploymentSpecInput, settings: WorkloadSettings): ExternalRoute[] {
  const names = childNames(owner.name);
  const routes: ExternalRoute[] = [];
  if (settings.appUrls) routes.push({ objectName: names.ingress, host: appHost(settings.appUrls, owner.name, owner.namespace), path: '/' });
  // The CRD admits only absolute http(s) URLs; one without a usable host name gets no route.
  const custom = spec.sourceConfig?.customUrl ? parseCustomUrl(spec.sourceConfig.customUrl) : undefined;
  if (custom) routes.push({ objectName: settings.gateway ? names.customRoute : names.ingress, ...custom });
  return routes;
}

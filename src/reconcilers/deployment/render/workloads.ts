// Everything a Deployment runs, rendered in one call: the set of workload manifests for a spec and the
// revision being served. Pure; the reconciler applies what differs from the cache and prunes the rest.
import { appHost, childNames, parseCustomUrl, type AppUrlTemplate, type RequestConcurrency } from '../../../api/index.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { renderApplication, renderApplicationService, renderQueueWorker, type ServingRevision } from './application.ts';
import { renderApplicationAutoscaler, renderQueueWorkerAutoscaler } from './autoscalers.ts';
import { backingServices } from './backing.ts';
import type { OwnerDeployment } from './common.ts';
import { renderHttpRoute, renderIngress, type ExternalRoute, type GatewayRef } from './ingress.ts';
import { renderPostgres, renderPostgresService } from './postgres.ts';
import { renderRedis, renderRedisService } from './redis.ts';
import type { DeploymentSpecInput } from './spec.ts';

export interface WorkloadSettings {
  applicationPort: number;
  images: { postgres: string; redis: string };
  requestScale: number;
  progressDeadlineSeconds: number;
  ingressClassName?: string;
  /** Each Deployment's own URL (src/api/app-urls.ts), when the installation gives them one. */
  appUrls?: AppUrlTemplate;
  /** Routes are HTTPRoutes on this Gateway; without one, an Ingress. */
  gateway?: GatewayRef;
  /** The organization's pull secret for Berth's registry (Secret berth-organization), when it has one. */
  registryCredentials?: string;
  /** Where apps' requests in flight are read: the application then scales on them through KEDA. */
  requestConcurrency?: RequestConcurrency;
}

export interface WorkloadsInput {
  owner: OwnerDeployment;
  spec: DeploymentSpecInput;
  /** Absent while no revision has an image yet (the first build): only the backing services are rendered. */
  serving?: ServingRevision;
  settings: WorkloadSettings;
  /** The claim size of the database that exists already (volumeClaimTemplates are immutable). */
  existingDatabaseStorage?: string;
}

export function renderWorkloads(input: WorkloadsInput): KubeObject[] {
  const { owner, spec, serving, settings } = input;
  const backing = backingServices(spec);
  const desired: KubeObject[] = [renderApplicationService({ owner, spec })];
  if (serving) {
    const workload = {
      owner,
      spec,
      serving,
      backing,
      port: settings.applicationPort,
      images: settings.images,
      requestScale: settings.requestScale,
      progressDeadlineSeconds: settings.progressDeadlineSeconds,
    };
    if (settings.registryCredentials) Object.assign(workload, { registryCredentials: settings.registryCredentials });
    desired.push(renderApplication(workload));
    const autoscaler = renderApplicationAutoscaler(owner, spec, settings.requestConcurrency);
    if (autoscaler) desired.push(autoscaler);
    if (backing.queueWorker) {
      desired.push(renderQueueWorker(workload));
      const queueAutoscaler = renderQueueWorkerAutoscaler(owner, spec);
      if (queueAutoscaler) desired.push(queueAutoscaler);
    }
  }
  if (backing.database) {
    desired.push(
      renderPostgres({
        owner,
        spec,
        image: settings.images.postgres,
        requestScale: settings.requestScale,
        ...(input.existingDatabaseStorage ? { existingStorage: input.existingDatabaseStorage } : {}),
      }),
      renderPostgresService(owner),
    );
  }
  if (backing.redis) desired.push(renderRedis(owner, spec, settings.images.redis, settings.requestScale), renderRedisService(owner));
  const routes = externalRoutes(owner, spec, settings);
  if (settings.gateway) for (const route of routes) desired.push(renderHttpRoute(owner, route, settings.gateway));
  else if (routes.length > 0) desired.push(renderIngress(owner, routes, settings.ingressClassName));
  return desired;
}

/** The Deployment's own URL's host, then its customUrl's host and path. */
function externalRoutes(owner: OwnerDeployment, spec: DeploymentSpecInput, settings: WorkloadSettings): ExternalRoute[] {
  const names = childNames(owner.name);
  const routes: ExternalRoute[] = [];
  if (settings.appUrls) routes.push({ objectName: names.ingress, host: appHost(settings.appUrls, owner.name, owner.namespace), path: '/' });
  // The CRD admits only absolute http(s) URLs; one without a usable host name gets no route.
  const custom = spec.sourceConfig?.customUrl ? parseCustomUrl(spec.sourceConfig.customUrl) : undefined;
  if (custom) routes.push({ objectName: settings.gateway ? names.customRoute : names.ingress, ...custom });
  return routes;
}

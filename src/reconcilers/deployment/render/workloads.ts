// Everything a Deployment runs, rendered in one call: the set of workload manifests for a spec and the
// revision being served. Pure; the reconciler applies what differs from the cache and prunes the rest.
import { parseCustomUrl } from '../../../api/index.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { renderApplication, renderApplicationService, renderQueueWorker, type ServingRevision } from './application.ts';
import { renderApplicationAutoscaler, renderQueueWorkerAutoscaler } from './autoscalers.ts';
import { backingServices } from './backing.ts';
import type { OwnerDeployment } from './common.ts';
import { renderIngress } from './ingress.ts';
import { renderPostgres, renderPostgresService } from './postgres.ts';
import { renderRedis, renderRedisService } from './redis.ts';
import type { DeploymentSpecInput } from './spec.ts';

export interface WorkloadSettings {
  applicationPort: number;
  images: { postgres: string; redis: string };
  requestScale: number;
  progressDeadlineSeconds: number;
  ingressClassName?: string;
  /** The organization's pull secret for Berth's registry (Secret berth-organization), when it has one. */
  registryCredentials?: string;
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
    const autoscaler = renderApplicationAutoscaler(owner, spec);
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
  // The CRD admits only absolute http(s) URLs; one without a usable host name gets no Ingress.
  const route = spec.sourceConfig?.customUrl ? parseCustomUrl(spec.sourceConfig.customUrl) : undefined;
  if (route) desired.push(renderIngress(owner, route, settings.ingressClassName));
  return desired;
}

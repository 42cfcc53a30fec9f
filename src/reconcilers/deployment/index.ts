// Wiring of the Deployment controller into a Manager: its informers, what enqueues a Deployment, and
// the reconcile loop. src/cli/run.ts calls registerDeploymentControllers(manager, options).
//
// The modules, each with one job (a child's name comes from src/api/child-names.ts):
//   informers.ts, pass.ts     the caches a pass reads (the pods' cache is src/workloads/, the HTTP API's too),
//                             and what one pass carries
//   digest.ts                 the revision rule: the canonical digest of a revision config
//   inputs.ts                 the Secrets and integration a spec refers to (problems, never throws)
//   source-head.ts            a tracked branch's head commit (build on push)
//   choose-revisions.ts       steps 1-2: the Revision the spec describes and the one to serve, or a Halt
//   revision-records.ts       the Revisions of a Deployment, summarized; revisions.ts: choose and prune
//   target-image.ts           step 3: the target's image (a build Job's state: build-state.ts)
//   workloads.ts, writer.ts   step 4: apply what differs (runtime/applied-hash.ts), prune what is no longer rendered
//   lifecycle.ts, pods.ts     where the target stands: its rollout, what its pods' kubelet and scheduler say
//   outcome.ts                step 5: what a pass saw for its status (the target's phase, workloads, URLs)
//   status.ts, next-status.ts the phase and kstatus verdict, and the stored status they make
//   status-decision.ts        a pass's status decided once: the writes, their order, their Events (pure)
//   write-status.ts           the one place status is written, once per pass (finalize.ts's passes too)
//   tier.ts                   what a tier means here (whether dev_zero scales to zero, its condition)
//   scale-to-zero.ts          a Deployment's tier decided, and its namespace's grant to the activator
//   scaling-status.ts         what the autoscaler is doing (status.scaling)
//   certificate-status.ts     whether the https:// URL's certificates are issued (CertificateReady)
//   build-namespace.ts        the build namespace and its NetworkPolicy, kept by the leader
//   options.ts                what an installation chooses (images, registry, routing, TLS)
//   render/                   pure renderers: spec in, manifests out (workloads.ts: the whole set)
//   reconcile.ts, finalize.ts the loop and the deletion finalizer
import { deploymentKind, sourceKind, tlsOrganizationLabel } from '../../api/index.ts';
import { servesScaledObjects } from './render/autoscalers.ts';
import {
  ownerKeys,
  owned,
  unlessStatusOnly,
  watch,
  type Controller,
  type DeepReadonly,
  type KubeObject,
  type Manager,
  type ObjectKey,
} from '../../runtime/index.ts';
import { childKinds, deploymentInformers, secretReaderIndex, type DeploymentInformers } from './informers.ts';
import { activatorGrantLabel } from './render/scale-to-zero.ts';
import { grantHolders } from './scale-to-zero.ts';
import { resolveOptions, type DeploymentControllerOptions } from './options.ts';
import { createDeploymentReconciler } from './reconcile.ts';
import { workloadChangeMatters } from './lifecycle.ts';
import { podChangeMatters } from './pods.ts';
import { autoscalerChangeMatters } from './scaling-status.ts';
import { revisionLabel } from './render/common.ts';
import { buildForDeploymentLabel, revisionNamespaceOf } from '../../workloads/build-jobs.ts';
import { createDeploymentWriter, type DeploymentWriter } from './writer.ts';

export { cleanupFinalizer } from './finalize.ts';
export { defaultDeploymentControllerOptions, type DeploymentControllerOptions } from './options.ts';
export { prepareBuildNamespace } from './build-namespace.ts';
export { defaultScaleDownWindowSeconds, scaledObjectKind } from './render/autoscalers.ts';
export { httpScaledObjectKind, interceptorRouteKind } from './render/scale-to-zero.ts';
export { createDeploymentWriter, type DeploymentWriter } from './writer.ts';

export interface DeploymentControllers {
  deployment: Controller;
  informers: DeploymentInformers;
}

export function registerDeploymentControllers(
  manager: Manager,
  overrides: Partial<DeploymentControllerOptions> = {},
  dependencies: { writer?: DeploymentWriter } = {},
): DeploymentControllers {
  const options = resolveOptions(overrides);
  const informers = deploymentInformers(manager, options.namespaces, {
    httpRoutes: options.gateway !== undefined,
    ...(options.tls ? { tls: options.tls } : {}),
    scaledObjects: servesScaledObjects(options),
    ...(options.activator
      ? { activatorNamespace: options.activator.proxy.namespace, httpScaledObjects: !!options.activator.servesHttpScaledObjects }
      : {}),
  });
  const writer = dependencies.writer ?? createDeploymentWriter(manager.kubeConfig);
  const reconcile = createDeploymentReconciler({ informers, writer, options });

  const deploymentsInNamespace = (namespace: string | undefined) =>
    informers.deployments.list(namespace ?? '').filter((d) => d.metadata.namespace === namespace);
  const keyOf = (d: { metadata: { namespace?: string; name?: string } }): ObjectKey => ({
    namespace: d.metadata.namespace ?? '',
    name: d.metadata.name ?? '',
  });

  /** The Deployment whose Revision a pod or build Job is labelled with (src/workloads/build-jobs.ts). */
  const deploymentOfRevision = (object: DeepReadonly<KubeObject>): ObjectKey[] => {
    const revision = informers.revisions.get(revisionNamespaceOf(object), object.metadata?.labels?.[revisionLabel] ?? '');
    return revision ? [{ namespace: revision.metadata.namespace ?? '', name: revision.spec.deploymentName }] : [];
  };

  const deployment = manager.addController({
    name: 'deployment',
    informer: informers.deployments,
    // Berth's own status writes (of the Deployment, its Revisions, its TracingProject) need no pass of
    // their own: the pass that wrote them had decided from everything else (runtime/status-only.ts).
    changed: unlessStatusOnly,
    owns: [
      { informer: informers.revisions, changed: unlessStatusOnly },
      // The application's and queue worker's status moves many times in a rollout; passes read little of it.
      owned({ informer: informers.appsDeployments, changed: workloadChangeMatters }),
      informers.statefulSets,
      informers.services,
      informers.ingresses,
      ...(informers.httpRoutes ? [{ informer: informers.httpRoutes, changed: unlessStatusOnly }] : []),
      ...(informers.scaledObjects ? [{ informer: informers.scaledObjects, changed: unlessStatusOnly }] : []),
    ],
    watches: [
      watch({
        // A Secret's value is part of the revision digest: its owner, and every Deployment that reads it.
        informer: informers.secrets,
        map: (secret) => {
          const readers = informers.deployments
            .byIndex(secretReaderIndex, `${secret.metadata?.namespace}/${secret.metadata?.name}`)
            .map(keyOf);
          return [...ownerKeys(secret, deploymentKind), ...readers];
        },
      }),
      watch({
        // The TracingProject has no ownerReference (it outlives the Deployment): same name, same namespace.
        informer: informers.tracingProjects,
        map: (project) => [{ namespace: project.metadata.namespace ?? '', name: project.spec.deploymentName }],
        changed: unlessStatusOnly,
      }),
      watch({
        // An integration that appears, changes or goes may unblock or block the Deployments that use one.
        informer: informers.integrations,
        map: (integration) =>
          deploymentsInNamespace(integration.metadata.namespace)
            .filter((d) => sourceKind(d.spec.source)?.usesIntegration)
            .map(keyOf),
      }),
      watch({
        // Berth's HorizontalPodAutoscaler is owned by the Deployment; KEDA's by the ScaledObject Berth owns.
        informer: informers.autoscalers,
        map: (object) => {
          const owners = ownerKeys(object, deploymentKind);
          if (owners.length > 0 || !informers.scaledObjects) return owners;
          return ownerKeys(object, childKinds.scaledObject).flatMap(({ namespace, name }) => {
            const scaledObject = informers.scaledObjects?.get(namespace, name);
            return scaledObject ? ownerKeys(scaledObject, deploymentKind) : [];
          });
        },
        changed: autoscalerChangeMatters,
      }),
      watch({
        // A build Job beside its Deployment is owned by it; one in the build namespace names its Deployment's
        // uid; a pre-deploy Job is its Revision's (render/pre-deploy.ts), found by its revision label.
        informer: informers.jobs,
        map: (object) => {
          const owners = ownerKeys(object, deploymentKind);
          if (owners.length > 0) return owners;
          const uid = object.metadata?.labels?.[buildForDeploymentLabel];
          if (!uid) return deploymentOfRevision(object);
          return deploymentsInNamespace(revisionNamespaceOf(object))
            .filter((d) => d.metadata.uid === uid)
            .map(keyOf);
        },
      }),
      ...(informers.certificates
        ? [
            watch({
              // An organization's certificate that turns ready (or not) is every one of its Deployments' news.
              informer: informers.certificates,
              map: (object) => deploymentsInNamespace(object.metadata?.labels?.[tlsOrganizationLabel] ?? '').map(keyOf),
            }),
          ]
        : []),
      ...(informers.activatorGrants
        ? [
            watch({
              // A namespace's grant to the activator, changed or removed by someone else, is put back by
              // the Deployments that hold it.
              informer: informers.activatorGrants,
              map: (object) => grantHolders(informers, object.metadata?.labels?.[activatorGrantLabel] ?? '').map(keyOf),
            }),
          ]
        : []),
      watch({
        // A pod of a revision that turns Ready, fails to pull or crashes moves that revision's phase.
        informer: informers.pods,
        map: deploymentOfRevision,
        changed: podChangeMatters,
      }),
    ],
    reconcile,
    concurrency: options.concurrency,
  });

  return { deployment, informers };
}

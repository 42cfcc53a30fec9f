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
//   sources.ts                what enqueues a Deployment: the children it owns, the other kinds it watches
import { unlessStatusOnly, type Controller, type Manager } from '../../runtime/index.ts';
import { servesScaledObjects } from './render/autoscalers.ts';
import { deploymentInformers, type DeploymentInformers } from './informers.ts';
import { resolveOptions, type DeploymentControllerOptions } from './options.ts';
import { createDeploymentReconciler } from './reconcile.ts';
import { deploymentOwns, deploymentWatches } from './sources.ts';
import { relayNamespacesOf } from './network-path.ts';
import { createDeploymentWriter, type DeploymentWriter } from './writer.ts';

export { cleanupFinalizer } from './finalize.ts';
export { defaultDeploymentControllerOptions, type DeploymentControllerOptions } from './options.ts';
export { prepareBuildNamespace } from './build-namespace.ts';
export { defaultScaleDownWindowSeconds, scaledObjectKind } from './render/autoscalers.ts';
export { httpScaledObjectKind, interceptorRouteKind } from './render/scale-to-zero.ts';
export { createDeploymentWriter, type DeploymentWriter } from './writer.ts';
export { resolveIntegration } from './inputs.ts';
export { ownerReference } from './render/common.ts';

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
    networkPolicyCheck: !!options.networkPolicyCheck,
  });
  const writer = dependencies.writer ?? createDeploymentWriter(manager.kubeConfig);
  const reconcile = createDeploymentReconciler({ informers, writer, options });

  const deployment = manager.addController({
    name: 'deployment',
    informer: informers.deployments,
    // Berth's own status writes (of the Deployment, its Revisions, its TracingProject) need no pass of
    // their own: the pass that wrote them had decided from everything else (runtime/status-only.ts).
    changed: unlessStatusOnly,
    owns: deploymentOwns(informers),
    watches: deploymentWatches(informers, relayNamespacesOf(options)),
    reconcile,
    concurrency: options.concurrency,
  });

  return { deployment, informers };
}

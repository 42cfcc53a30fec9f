// Wiring of the Deployment controller into a Manager: its informers, what enqueues a Deployment, and
// the reconcile loop. src/cli/run.ts calls registerDeploymentControllers(manager, options).
//
// A pass runs four rooms in order, each a folder that writes only its own objects; a room imports the
// rooms below it and the wiring here, never one above (a child's name comes from src/api/child-names.ts):
//   revisions/   steps 1-2: the Revision the spec describes and the one to serve, or a Halt
//                (choose-revisions.ts); writes Revisions. The revision rule (digest.ts), the Secrets and
//                integration a spec refers to (inputs.ts), a tracked branch's head (source-head.ts),
//                the Revisions summarized (revision-records.ts), chosen and pruned (revisions.ts)
//   builds/      step 3: the target's image (target-image.ts); writes build Jobs. A build Job's state
//                (build-state.ts), a build another revision made that serves again (build-reuse.ts), the
//                build namespace and its NetworkPolicy, kept by the leader (build-namespace.ts)
//   rollout/     step 4: apply what differs, prune what is no longer rendered (workloads.ts, through
//                runtime/applied-hash.ts); writes the workloads. Where the target stands (lifecycle.ts,
//                pods.ts), the canary's steps and verdict (canary.ts, canary-pass.ts), the routes' Services
//                (route-targets.ts), the activator's grant (scale-to-zero.ts), a path a NetworkPolicy
//                blocks (network-path.ts)
//   status/      step 5: what a pass saw (outcome.ts), the phase and kstatus verdict (status.ts,
//                next-status.ts), the writes decided once (status-decision.ts, pure), written once per
//                pass (write-status.ts: the one place status is written, finalize.ts's passes too); what
//                the autoscaler does (scaling-status.ts), the URL's certificates (certificate-status.ts),
//                whether an agent server's database admits its connections (database-connections.ts)
//   render/      pure renderers below them all: spec in, manifests out (workloads.ts: the whole set;
//                tier.ts: what a tier means here)
// and the wiring: informers.ts and pass.ts (the caches a pass reads and what one pass carries; the pods'
// cache is src/workloads/), problem.ts (why a spec cannot be served), options.ts (what an installation
// chooses), writer.ts (every write), reconcile.ts and finalize.ts (the loop and the deletion finalizer,
// with retained-data.ts), sources.ts (what enqueues a Deployment).
import {
  unlessStatusOnly,
  withRecorder,
  type Controller,
  type DeepReadonly,
  type Manager,
  type ObjectKey,
  optional,
} from '../../runtime/index.ts';
import type { V1Secret } from '@kubernetes/client-node';
import { secretValues } from '../../codehost/index.ts';
import { createNotifier } from '../../notifications/notifier.ts';
import { notifyingRecorder } from '../../notifications/recorder.ts';
import { servesScaledObjects } from './render/autoscalers.ts';
import { deploymentInformers, type DeploymentInformers } from './informers.ts';
export type { DeploymentInformers };
import { resolveOptions, type DeploymentControllerOptions } from './options.ts';
import { createDeploymentReconciler } from './reconcile.ts';
import { deploymentOwns, deploymentWatches } from './sources.ts';
import { relayNamespacesOf } from './rollout/network-path.ts';
import { createDeploymentWriter, type DeploymentWriter } from './writer.ts';

export { cleanupFinalizer } from './finalize.ts';
export { defaultDeploymentControllerOptions, type DeploymentControllerOptions } from './options.ts';
export { prepareBuildNamespace } from './builds/build-namespace.ts';
export { defaultScaleDownWindowSeconds, scaledObjectKind } from './render/autoscalers.ts';
export { httpScaledObjectKind, interceptorRouteKind } from './render/scale-to-zero.ts';
export { postgresClusterKind } from './render/postgres-cluster.ts';
export { objectStoreKind } from './render/database-archive.ts';
export { createDeploymentWriter, type DeploymentWriter } from './writer.ts';
export { resolveIntegration } from './revisions/inputs.ts';
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
    ...optional('tls', options.tls),
    scaledObjects: servesScaledObjects(options),
    postgresClusters: !!options.postgresClusters,
    objectStores: !!options.postgresClusters && !!options.objectStores,
    ...(options.activator
      ? { activatorNamespace: options.activator.proxy.namespace, httpScaledObjects: !!options.activator.servesHttpScaledObjects }
      : {}),
    networkPolicyCheck: !!options.networkPolicyCheck,
    namespaces: !!options.networkPolicyCheck || !!options.hostOwnership,
  });
  const writer = dependencies.writer ?? createDeploymentWriter(manager.kubeConfig);
  const notifier = createNotifier({
    logger: manager.logger.child({ controller: 'deployment-notifications' }),
    secretValue: (namespace, name, key) => {
      const secret: DeepReadonly<V1Secret> | undefined = informers.secrets.get(namespace, name);
      return secret && secretValues(secret)[key];
    },
    origins: options.notificationOrigins,
    retryBaseMs: options.notificationRetryBaseMs,
  });
  // A verdict that comes after its pass wakes the Deployment (the controller is made just below).
  const wake = (key: ObjectKey) => deployment.enqueue(key);
  const reconcile = withRecorder(createDeploymentReconciler({ informers, writer, options, wake }), (recorder) =>
    notifyingRecorder(recorder, notifier),
  );

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

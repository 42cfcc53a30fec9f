// Berth's controller runtime. It knows no Berth kind: everything is keyed by a ResourceKind
// ({ apiVersion, kind, plural, namespaced? }, the shape of the `<kind>Kind` descriptors in src/api).
//
// Typical wiring (src/main.ts):
//
//   const manager = new Manager({ kubeConfig, healthPort: 8081,
//     leaderElection: { namespace: 'berth-system' } });            // lease 15 s / renew 10 s / retry 2 s
//   const deployments = manager.informer<Deployment>(deploymentKind, { labelIndexes: [labels.deployment] });
//   const revisions = manager.informer<Revision>(revisionKind);
//   manager.addController({
//     name: 'deployment', informer: deployments, owns: [revisions], concurrency: 4,
//     reconcile: async ({ namespace, name }, { logger, signal, recorder }) => {
//       const deployment = deployments.get(namespace, name);        // read-only, shared: never mutate
//       if (!deployment) return;                                     // deleted: owned objects are GC'd
//       ...
//       await applyObject(kubeConfig, renderChild(deployment), 'berth');
//       await writeStatus(kubeConfig, deployment, nextStatus, 'berth');  // no write if equal; stale: run again
//       recorder.event(deployment, 'Normal', 'RevisionCreated', `created ${revisionName}`);
//       return { requeueAfter: 30_000 };                             // optional
//     },
//   });
//   await manager.start();
//   process.once('SIGTERM', () => void manager.stop().then(() => process.exit(0)));
//
// Informer (createInformer / manager.informer): list+watch cache with bookmarks, resume from the last
//   resourceVersion, relist on 410 Gone (deletes emitted for what vanished), reconnect with capped
//   backoff, an inactivity timer for silent watches. get(namespace, name), list(namespace?),
//   byIndex('namespace' | 'owner' (owner uid) | <label key from labelIndexes>, value), addIndex(),
//   onAdd/onUpdate/onDelete (return an unsubscribe function), hasSynced(), waitForSync(), start(), stop().
//   Cluster-scoped objects live under namespace ''. Objects are shared, typed DeepReadonly: copy before
//   changing (structuredClone). Equal parts of cached objects are one frozen copy (subtree-pool.ts).
// WorkQueue: dedup, one run per key at a time (re-run once if added meanwhile), N keys in parallel,
//   per-key backoff 5 ms doubling to 5 min (reset on success), requeueAfter, bounded drain on shutdown.
// Controller (manager.addController): primary informer, owned informers (an owned object's event
//   enqueues its owner when the ownerReference's kind and group match the primary), custom `watches`
//   mappings, resync of every key (default 10 min), reconcile(key, { logger, signal, recorder }).
//   Each source may filter its updates (`changed`, e.g. unlessStatusOnly). Throwing retries with backoff. Reconciles run only while this replica leads.
// Manager: one KubeConfig, shared informers, controllers, optional Lease leader election, prom-client
//   registry (manager.metrics.registry), /healthz /readyz /metrics (healthPort, 0 = any free port),
//   event recorder (manager.recorder.event(object, 'Normal' | 'Warning', reason, message), aggregated),
//   stop(): stops intake, drains reconciles (bounded), releases the lease, closes watches and server.
// Writes: applyObject(kc, object, fieldManager) (server-side apply, force), writeStatus (at most once
//   per pass, refused when decided from a stale cache: StaleObjectError, the pass runs again soon),
//   withAppliedHash/upToDate (apply a rendered object only when the cached one differs from it),
//   deleteObject, kubeRequest (any API request over a pooled connection, errors as KubeApiError).
//   Every request to the API server, from these or from client-node's generated clients, is counted
//   in berth_kube_api_requests_total{verb,resource,code}.
// Logging: createLogger() (pino) redacts secret fields, auth headers, secret values and Secret data.

export { applyObject, applyUnlessCurrent, deleteObject, KindNotServedError, replaceObject, resolveResource } from './apply.ts';
export { appliedHashOf, contains, upToDate, withAppliedHash } from './applied-hash.ts';
export { staleCacheRetryMs, StaleObjectError, writeStatus } from './status-write.ts';
export { describeKubeApiRequest, onKubeApiRequest, type KubeApiRequestLabels } from './api-request-counter.ts';
export { backoffDelay, sleep, withTimeout, type BackoffPolicy } from './backoff.ts';
export { fieldsOwnedBy, ownedFieldsView, projectFields, stripManagedFields, type CacheTransform, type FieldSet } from './cache-view.ts';
export {
  Controller,
  owned,
  ownerKeys,
  watch,
  withRecorder,
  type ControllerOptions,
  type Reconcile,
  type ReconcileContext,
  type OwnedSource,
  type ReconcileResult,
  type UpdateFilter,
  type WatchSource,
} from './controller.ts';
export { statusOnlyUpdate, unlessStatusOnly } from './status-only.ts';
export { createEventRecorder, type EventRecorder, type EventType } from './events.ts';
export {
  createInformer,
  type AddHandler,
  type DeleteHandler,
  type Informer,
  type InformerOptions,
  type UpdateHandler,
} from './informer.ts';
export { closeKubeConnections, isKubeApiError, KubeApiError, kubeRequest, kubeText, type KubeRequest } from './kube-request.ts';
export { LeaderElector, type LeaderElectionConfig } from './leader-election.ts';
export { createLogger, redactPaths, type Logger } from './logger.ts';
export { Manager, type ManagerOptions } from './manager.ts';
export { createRuntimeMetrics, type RuntimeMetrics } from './metrics.ts';
export { uidIndex, type IndexFunction } from './object-store.ts';
export { labelSelectorOf } from './label-selector.ts';
export { optional } from './optional.ts';
export { decodeSecretValue } from './secret-data.ts';
export {
  collectionPath,
  keyString,
  objectKey,
  objectPath,
  parseKeyString,
  secretKind,
  type DeepReadonly,
  type KubeObject,
  type ObjectKey,
  type ResourceKind,
} from './types.ts';
export { WorkQueue, type ProcessResult, type WorkQueueOptions } from './work-queue.ts';

// The pods of revisions as both halves of Berth read them: the controller (a rollout's failures, a
// build's progress) and the HTTP API (their logs). One cache, defined here, indexed by the revision
// label and trimmed to what either reads; neither half reaches into the other for it.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { CacheTransform, DeepReadonly, Informer, KubeObject, Manager, ResourceKind } from '../runtime/index.ts';
import { labels } from '../api/group.ts';
import { optional } from '../runtime/index.ts';

/** On every object a Deployment runs: its part (application, queue-worker, build, postgres, ...). */
export const componentLabel = 'app.kubernetes.io/component';
/** The values of componentLabel: each part a Deployment runs. */
export type Component = 'application' | 'canary' | 'queue-worker' | 'postgres' | 'redis' | 'build' | 'pre-deploy';
/** On a revision's pods (and the objects that make them): the Revision's name. */
export const revisionLabel = 'berth.dev/revision';

export const podKind = { apiVersion: 'v1', kind: 'Pod', plural: 'pods' } as const satisfies ResourceKind;

/** Whose pods: the application's and the queue worker's ('workload'), or the build Job's ('build'). */
export type PodRole = 'workload' | 'build';

/** The components whose pods serve or work: the application's, a canary's and the queue worker's. */
export const workloadComponents: ReadonlySet<string> = new Set<Component>(['application', 'canary', 'queue-worker']);

export function hasRole(pod: DeepReadonly<V1Pod>, role: PodRole): boolean {
  const labels = pod.metadata?.labels ?? {};
  // The Job controller labels its pods with the Job's name; Berth labels the workloads' by component.
  if (role === 'build') return Boolean(labels['batch.kubernetes.io/job-name'] ?? labels['job-name']);
  return workloadComponents.has(labels[componentLabel] ?? '');
}

/** The pods of one revision in one role, from the cache revisionPods makes. */
export function podsOfRevision(
  pods: { byIndex(index: string, value: string): DeepReadonly<V1Pod>[] },
  namespace: string,
  revision: string,
  role: PodRole,
): DeepReadonly<V1Pod>[] {
  return pods.byIndex(revisionLabel, revision).filter((pod) => pod.metadata?.namespace === namespace && hasRole(pod, role));
}

/** The pods of one deployment in its namespace (labelled with `deploymentLabel`, its deploymentLabelValue),
 * from the cache revisionPods makes. */
export function podsOfDeployment(
  pods: { list(namespace?: string): DeepReadonly<V1Pod>[] },
  namespace: string,
  deploymentLabel: string,
): DeepReadonly<V1Pod>[] {
  return pods.list(namespace).filter((pod) => pod.metadata?.labels?.[labels.deployment] === deploymentLabel);
}

/** The pods that carry a revision label (the application's, the queue worker's, a build's), indexed by it. */
export function revisionPods(manager: Pick<Manager, 'informer'>, namespaces?: string[]): Informer<V1Pod> {
  return manager.informer<V1Pod>(podKind, {
    ...optional('namespaces', namespaces),
    labelSelector: revisionLabel,
    labelIndexes: [revisionLabel],
    transform: podView,
  });
}

/**
 * What the pod cache keeps: identity, labels, and the status members the decisions above and the log
 * routes read. Pod specs (env, volumes, probes) are most of a pod's JSON and nothing here reads them.
 */
export const podView: CacheTransform = (object: KubeObject) => {
  const pod = object as V1Pod;
  const { name, namespace, uid, labels, creationTimestamp, deletionTimestamp, resourceVersion } = pod.metadata ?? {};
  const container = (s: V1ContainerStatus): V1ContainerStatus => ({
    name: s.name,
    ready: s.ready,
    restartCount: s.restartCount,
    image: s.image,
    imageID: s.imageID,
    ...optional('state', s.state),
    ...(s.lastState?.terminated ? { lastState: { terminated: s.lastState.terminated } } : {}),
  });
  const status = pod.status ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, uid, labels, creationTimestamp, resourceVersion, ...optional('deletionTimestamp', deletionTimestamp) },
    spec: {
      containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name })),
      ...(pod.spec?.initContainers?.length ? { initContainers: pod.spec.initContainers.map((c) => ({ name: c.name })) } : {}),
    },
    status: {
      phase: status.phase,
      ...(status.conditions
        ? { conditions: status.conditions.map(({ type, status: s, reason, message }) => ({ type, status: s, reason, message })) }
        : {}),
      ...(status.initContainerStatuses ? { initContainerStatuses: status.initContainerStatuses.map(container) } : {}),
      ...(status.containerStatuses ? { containerStatuses: status.containerStatuses.map(container) } : {}),
    },
  } as KubeObject;
};

// Where a revision's build Job runs, as both halves of Berth find it: the controller (to start and
// observe it, to remove it) and the HTTP API (its logs). Builds run in a namespace of their own
// (`--build-namespace`), apart from the organization's apps: the default builder needs privileges that
// no Pod Security level of an organization namespace allows. There, Jobs from every organization sit
// side by side, so each is named by its Revision's uid (unique in the cluster, never chosen by a
// tenant) and labelled with the namespace and Revision it builds. Without a build namespace, a Job
// runs beside its Deployment and is named after its Revision.
import type { V1Pod } from '@kubernetes/client-node';
import { buildJobName } from '../api/child-names.ts';
import type { DeepReadonly } from '../runtime/index.ts';
import { revisionLabel } from './revision-pods.ts';

/** Where builds run unless told otherwise (`--build-namespace`, the chart's `builder.namespace`). */
export const defaultBuildNamespace = 'berth-builds';

/** On a build Job in the build namespace, and on its pod: the namespace of the Deployment it builds. */
export const buildForNamespaceLabel = 'berth.dev/build-for-namespace';
/** On a build Job in the build namespace: the uid of the Deployment it builds (what its removal looks for). */
export const buildForDeploymentLabel = 'berth.dev/build-for-deployment';

export interface BuildRevision {
  namespace: string;
  name: string;
  uid: string;
}

export interface BuildJobLocation {
  namespace: string;
  name: string;
  /** True when the Job runs apart from its Deployment (no ownerReference can join them). */
  apart: boolean;
}

export function buildJobLocation(buildNamespace: string | undefined, revision: BuildRevision): BuildJobLocation {
  if (!buildNamespace || buildNamespace === revision.namespace)
    return { namespace: revision.namespace, name: buildJobName(revision.name), apart: false };
  return { namespace: buildNamespace, name: `build-${revision.uid}`, apart: true };
}

/** The Job controller labels a Job's pods with the Job's name. */
function jobNameOf(pod: DeepReadonly<V1Pod>): string | undefined {
  const labels = pod.metadata?.labels ?? {};
  return labels['batch.kubernetes.io/job-name'] ?? labels['job-name'];
}

/** The pods of one of a revision's Jobs (its build, its pre-deploy command), from the revision pods'
 * cache (indexed by the revision label). */
export function podsOfBuild(
  pods: { byIndex(index: string, value: string): DeepReadonly<V1Pod>[] },
  revisionName: string,
  location: Pick<BuildJobLocation, 'namespace' | 'name'>,
): DeepReadonly<V1Pod>[] {
  return pods
    .byIndex(revisionLabel, revisionName)
    .filter((pod) => pod.metadata?.namespace === location.namespace && jobNameOf(pod) === location.name);
}

/** The namespace whose Revision a pod belongs to: its own, or, for a build pod apart, the one it builds for. */
export function revisionNamespaceOf(object: { metadata?: { namespace?: string; labels?: Record<string, string> } }): string {
  return object.metadata?.labels?.[buildForNamespaceLabel] ?? object.metadata?.namespace ?? '';
}

// What Berth and Kubernetes said about a deployment: the Events of its namespace about the Deployment
// itself, its Revisions, its pods and the workloads rendered for it, newest first. Pure: the route reads
// the namespace's Events and the caches, this picks and shapes them.
import type { KubeConfig } from '@kubernetes/client-node';
import { childNames } from '../api/child-names.ts';
import { kubeRequest } from '../runtime/index.ts';

/** A core/v1 Event as the API server serves it (only what is read here). */
export interface KubeEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  metadata?: { creationTimestamp?: string };
  involvedObject?: { kind?: string; name?: string; uid?: string };
  source?: { component?: string };
  reportingComponent?: string;
  series?: { count?: number; lastObservedTime?: string };
}

export interface DeploymentEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  object: { kind: string; name: string };
  count: number;
  first_seen: string;
  last_seen: string;
  source: string;
}

/** The objects of one deployment, by uid (the Deployment, its Revisions and pods) and by name (its workloads). */
export interface DeploymentObjects {
  name: string;
  uids: ReadonlySet<string>;
}

/** The names of the workloads Berth renders for a deployment. */
function workloadNames(deploymentName: string) {
  const names = childNames(deploymentName);
  return {
    appsDeployments: [names.application, names.queueWorker, names.canary],
    statefulSets: [names.postgres, names.redis],
    postgresClusters: [names.postgresCluster, names.postgresClusterSpare],
  };
}

/** Whether an object is one of those workloads, or a ReplicaSet one of its Deployments makes. */
function ownedByName(
  { appsDeployments, statefulSets, postgresClusters }: ReturnType<typeof workloadNames>,
  kind: string,
  name: string,
): boolean {
  switch (kind) {
    case 'Deployment':
      return appsDeployments.includes(name);
    case 'ReplicaSet':
      // A ReplicaSet is its Deployment's name and one hash segment.
      return appsDeployments.some((owner) => name.startsWith(`${owner}-`) && /^[a-z0-9]+$/.test(name.slice(owner.length + 1)));
    case 'StatefulSet':
      return statefulSets.includes(name);
    // CloudNativePG's, where it holds the database.
    case 'Cluster':
      return postgresClusters.includes(name);
    case 'HorizontalPodAutoscaler':
    case 'ScaledObject':
    case 'Service':
      return appsDeployments.includes(name);
    default:
      return false;
  }
}

const timeOf = (event: KubeEvent, which: 'first' | 'last'): string =>
  (which === 'first'
    ? (event.firstTimestamp ?? event.eventTime)
    : (event.series?.lastObservedTime ?? event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp)) ??
  event.metadata?.creationTimestamp ??
  '';

/** The events about the deployment's objects, newest first, at most `limit`, as the wire carries them. */
export function deploymentEvents(events: readonly KubeEvent[], objects: DeploymentObjects, limit: number): DeploymentEvent[] {
  const workloads = workloadNames(objects.name);
  const concerns = ({ involvedObject: involved = {} }: KubeEvent) =>
    (involved.uid !== undefined && objects.uids.has(involved.uid)) || ownedByName(workloads, involved.kind ?? '', involved.name ?? '');
  return events
    .filter(concerns)
    .map((event): DeploymentEvent => ({
      type: event.type === 'Warning' ? 'Warning' : 'Normal',
      reason: event.reason ?? '',
      message: event.message ?? '',
      object: { kind: event.involvedObject?.kind ?? '', name: event.involvedObject?.name ?? '' },
      count: Math.max(1, event.series?.count ?? event.count ?? 1),
      first_seen: timeOf(event, 'first'),
      last_seen: timeOf(event, 'last'),
      source: event.reportingComponent || event.source?.component || '',
    }))
    .sort((a, b) => (Date.parse(b.last_seen) || 0) - (Date.parse(a.last_seen) || 0))
    .slice(0, limit);
}

/** The namespace's Events, from the API server (at most the newest 1,000 it keeps). */
export function kubeEventReader(kubeConfig: KubeConfig): { list(namespace: string): Promise<KubeEvent[]> } {
  return {
    list: async (namespace) =>
      (
        await kubeRequest<{ items: KubeEvent[] }>(kubeConfig, {
          method: 'GET',
          path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events?limit=1000`,
        })
      ).items,
  };
}

// Brings the cluster's workloads to a rendered set: applies a manifest only where the cached object
// differs from it (runtime/applied-hash.ts), and deletes the workloads Berth made that are no longer rendered
// (e.g. the HPA once maxScale is 0), but for databases. Returns the current object of every rendered manifest.
import type { Informer, KubeObject } from '../../../runtime/index.ts';
import { upToDate, withAppliedHash } from '../../../runtime/applied-hash.ts';
import { workloadInformers, type DeploymentInformers } from '../informers.ts';
import type { OwnerDeployment } from '../render/common.ts';
import type { DeploymentWriter } from '../writer.ts';

export type CurrentWorkloads = Map<string, KubeObject>;

export function workloadKey(kind: string | undefined, name: string | undefined): string {
  return `${kind}/${name}`;
}

/** The workload caches by `apiVersion/kind`, made once per set of informers rather than in every pass. */
const cachesByKind = new WeakMap<DeploymentInformers, { caches: Informer[]; byKind: Map<string, Informer> }>();

function workloadCaches(informers: DeploymentInformers): { caches: Informer[]; byKind: Map<string, Informer> } {
  let found = cachesByKind.get(informers);
  if (!found) {
    const caches = workloadInformers(informers);
    found = { caches, byKind: new Map(caches.map((informer) => [`${informer.resource.apiVersion}/${informer.resource.kind}`, informer])) };
    cachesByKind.set(informers, found);
  }
  return found;
}

export async function syncWorkloads(
  informers: DeploymentInformers,
  writer: DeploymentWriter,
  owner: OwnerDeployment,
  desired: KubeObject[],
): Promise<CurrentWorkloads> {
  const { caches, byKind } = workloadCaches(informers);
  const current: CurrentWorkloads = new Map();
  for (const manifest of desired) {
    const stamped = withAppliedHash(manifest);
    const cached = byKind.get(`${manifest.apiVersion}/${manifest.kind}`)?.get(owner.namespace, manifest.metadata?.name ?? '') as
      KubeObject | undefined;
    current.set(
      workloadKey(manifest.kind, manifest.metadata?.name),
      cached && upToDate(cached, stamped) ? cached : await writer.apply(stamped),
    );
  }
  for (const informer of caches) {
    // A database is never pruned: a restore's Cluster is not rendered until its switch, and the one it
    // retired no longer is (reconcilers/database-restore). Both go with the Deployment or the restore.
    if (informer === informers.postgresClusters) continue;
    for (const object of informer.byIndex('owner', owner.uid)) {
      const metadata = object.metadata;
      if (!metadata?.name || metadata.namespace !== owner.namespace || metadata.deletionTimestamp) continue;
      // Only what Berth made: another controller's object that names this Deployment as owner is not ours to delete.
      if (metadata.labels?.['app.kubernetes.io/managed-by'] !== 'berth') continue;
      if (current.has(workloadKey(informer.resource.kind, metadata.name))) continue;
      await writer.delete(informer.resource, owner.namespace, metadata.name);
    }
  }
  return current;
}

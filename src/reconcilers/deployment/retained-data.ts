// A Deployment's database outlives it unless its user chose otherwise (sourceConfig.databaseRetention):
// at deletion its volume claim and its password Secret are released (no owner, so garbage collection
// leaves them) and labelled; a Deployment of the same name made in that namespace later takes the
// password back, and its StatefulSet (or its Cluster, whose operator adopts a claim of its name) the claim
// of the same name, so it serves the same data with the engine it was made with.
import type { V1Secret } from '@kubernetes/client-node';
import { childNames } from '../../api/child-names.ts';
import type { DatabaseEngine } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import { childKinds } from './informers.ts';
import { componentLabel, ownerReference, type OwnerDeployment } from './render/common.ts';
import { databaseClaimName } from './database.ts';
import type { DeploymentWriter } from './writer.ts';

/** On what a deleted Deployment left behind: `kubectl get pvc,secrets -l berth.dev/retained-data` finds it. */
export const retainedDataLabel = 'berth.dev/retained-data';

/** Releases the database's claim and password from the Deployment (a Cluster's claim from the Cluster)
 * before its children are deleted. The password keeps the name of the Cluster that served (`cluster`);
 * a Deployment made again on it archives under its own uid. */
export async function releaseDatabase(
  writer: DeploymentWriter,
  owner: OwnerDeployment,
  engine: DatabaseEngine,
  cluster: string,
): Promise<void> {
  const released = { ownerReferences: [], labels: { [retainedDataLabel]: owner.name } };
  await writer.patchMetadata(childKinds.persistentVolumeClaim, owner.namespace, databaseClaimName(owner, engine, cluster), released);
  await writer.patchMetadata(childKinds.secret, owner.namespace, childNames(owner.name).postgresCredentials, released);
}

/** Whether `secret` is the password a deleted Deployment of this name left, unowned: this one's to take back. */
export function isRetainedPassword(secret: DeepReadonly<V1Secret>, owner: OwnerDeployment): boolean {
  const metadata = secret.metadata;
  return (
    metadata?.labels?.[retainedDataLabel] === owner.name &&
    metadata.labels[componentLabel] === 'postgres' &&
    (metadata.ownerReferences ?? []).length === 0
  );
}

/** Takes the retained password (and the claim's label) back: owned again, no longer marked retained. */
export async function adoptDatabase(
  writer: DeploymentWriter,
  owner: OwnerDeployment,
  engine: DatabaseEngine,
  cluster: string,
): Promise<void> {
  await writer.patchMetadata(childKinds.secret, owner.namespace, childNames(owner.name).postgresCredentials, {
    ownerReferences: [ownerReference(owner)],
    labels: { [retainedDataLabel]: null },
  });
  await writer.patchMetadata(childKinds.persistentVolumeClaim, owner.namespace, databaseClaimName(owner, engine, cluster), {
    labels: { [retainedDataLabel]: null },
  });
}

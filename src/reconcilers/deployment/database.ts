// A Deployment's own Postgres, whichever engine holds it: which engine that is, whether it serves, and
// where its data is. The engine is read from the password Secret (src/api/database-engine.ts), so a
// database keeps the engine it was made with whatever the installation's flag says now.
import type { V1Secret } from '@kubernetes/client-node';
import {
  type Deployment,
  backupStoreSecretName,
  childNames,
  databaseClusterAnnotation,
  databaseEngineAnnotation,
  restoredByLabel,
  postgresClusterClaimName,
  type DatabaseEngine,
} from '../../api/index.ts';
import { backupStoreReachOf, type BackupStoreReach } from './render/database-archive.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import type { DeploymentInformers } from './informers.ts';
import type { OwnerDeployment } from './render/common.ts';
import { clusterStorageOf, postgresClusterReady, type ServingDatabase } from './render/postgres-cluster.ts';

export type { ServingDatabase };
import { backingServices } from './render/backing.ts';

/** The engine of the database whose password is `credentials`; a new database's is the installation's. */
export function databaseEngineOf(credentials: DeepReadonly<V1Secret> | undefined, configured: DatabaseEngine): DatabaseEngine {
  if (!credentials) return configured;
  return credentials.metadata?.annotations?.[databaseEngineAnnotation] === 'cnpg' ? 'cnpg' : 'statefulset';
}

/** The engine of this Deployment's database, as the cache says. */
export function databaseEngineFor(informers: DeploymentInformers, configured: DatabaseEngine, owner: OwnerDeployment): DatabaseEngine {
  return databaseEngineOf(informers.secrets.get(owner.namespace, childNames(owner.name).postgresCredentials), configured);
}

/** What the password Secret's annotation says (api/database-engine.ts): the first Cluster unless a
 * restore switched it. A value that names no Cluster of this Deployment's is not read: the Secret is the
 * tenant's to edit, the Clusters are not. The archive's server name is the Deployment's uid, or the
 * restore's that made the serving Cluster (`restoredBy`, its label). */
export function servingDatabaseOf(
  credentials: DeepReadonly<V1Secret> | undefined,
  owner: OwnerDeployment,
  restoredBy?: (cluster: string) => string | undefined,
): ServingDatabase {
  const names = childNames(owner.name);
  const named = credentials?.metadata?.annotations?.[databaseClusterAnnotation];
  const cluster = named === names.postgresClusterSpare ? named : names.postgresCluster;
  const restore = restoredBy?.(cluster);
  return restore ? { cluster, serverName: restore, restored: true } : { cluster, serverName: owner.uid };
}

/** The serving database of this Deployment, as the cache says. */
export function servingDatabaseFor(informers: DeploymentInformers, owner: OwnerDeployment): ServingDatabase {
  const credentials = informers.secrets.get(owner.namespace, childNames(owner.name).postgresCredentials);
  return servingDatabaseOf(
    credentials,
    owner,
    (cluster) => informers.postgresClusters?.get(owner.namespace, cluster)?.metadata?.labels?.[restoredByLabel],
  );
}

/** The room of the Cluster that serves a Deployment (its storage.size), from the cache; none before it is made. */
export function servingClusterStorage(informers: DeploymentInformers, owner: OwnerDeployment): string | undefined {
  return clusterStorageOf(informers.postgresClusters?.get(owner.namespace, servingDatabaseFor(informers, owner).cluster));
}

/** The other of a Deployment's two Cluster names. */
export function otherClusterOf(deploymentName: string, cluster: string): string {
  const names = childNames(deploymentName);
  return cluster === names.postgresCluster ? names.postgresClusterSpare : names.postgresCluster;
}

/** The Cluster a restore makes: whichever of the two does not serve. */
export function spareClusterOf(owner: Pick<OwnerDeployment, 'name'>, serving: ServingDatabase): string {
  return otherClusterOf(owner.name, serving.cluster);
}

/** Whether the database answers: the StatefulSet's replica ready, or the serving Cluster ready. */
export function databaseServes(informers: DeploymentInformers, owner: OwnerDeployment, engine: DatabaseEngine): boolean {
  const names = childNames(owner.name);
  if (engine === 'cnpg')
    return postgresClusterReady(informers.postgresClusters?.get(owner.namespace, servingDatabaseFor(informers, owner).cluster));
  return (informers.statefulSets.get(owner.namespace, names.postgres)?.status?.readyReplicas ?? 0) >= 1;
}

/** The organization's bucket a CloudNativePG database archives into: where the cluster serves the
 * plugin's ObjectStore and the namespace has its backup store's Secret. */
export function archiveStoreOf(informers: DeploymentInformers, owner: OwnerDeployment): BackupStoreReach | undefined {
  if (!informers.objectStores) return undefined;
  return backupStoreReachOf(informers.secrets.get(owner.namespace, backupStoreSecretName));
}

/** The volume claim that holds the data: the StatefulSet's replica's, or the serving Cluster's first instance's. */
export function databaseClaimName(owner: Pick<OwnerDeployment, 'name'>, engine: DatabaseEngine, cluster?: string): string {
  const names = childNames(owner.name);
  return engine === 'cnpg' ? postgresClusterClaimName(cluster ?? names.postgresCluster) : names.postgresClaim;
}

/** Whether Berth can back up the deployment's database: its own, on CloudNativePG, archived into the
 * organization's store. */
export function databaseBacksUp(informers: DeploymentInformers, configured: DatabaseEngine, deployment: DeepReadonly<Deployment>): boolean {
  if (!backingServices(deployment.spec).database) return false;
  const owner = { name: deployment.metadata.name!, namespace: deployment.metadata.namespace!, uid: deployment.metadata.uid! };
  return databaseEngineFor(informers, configured, owner) === 'cnpg' && archiveStoreOf(informers, owner) !== undefined;
}

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
  databaseServerNameAnnotation,
  restoredByLabel,
  postgresClusterClaimName,
  type DatabaseEngine,
} from '../../api/index.ts';
import { backupStoreReachOf, type BackupStoreReach } from './render/database-archive.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import type { DeploymentInformers } from './informers.ts';
import type { OwnerDeployment } from './render/common.ts';
import { postgresClusterReady, type ServingDatabase } from './render/postgres-cluster.ts';

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

const uidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the password Secret's annotations say (api/database-engine.ts): the first Cluster under the
 * Deployment's uid unless a restore switched it. A value that names no Cluster of this Deployment's, or
 * no uid, is not read: the Secret is the tenant's to edit, the Clusters and the archive are not. */
export function servingDatabaseOf(credentials: DeepReadonly<V1Secret> | undefined, owner: OwnerDeployment): ServingDatabase {
  const names = childNames(owner.name);
  const annotations = credentials?.metadata?.annotations ?? {};
  const cluster = annotations[databaseClusterAnnotation];
  const serverName = annotations[databaseServerNameAnnotation];
  return {
    cluster: cluster === names.postgresClusterSpare ? cluster : names.postgresCluster,
    serverName: serverName && uidPattern.test(serverName) ? serverName : owner.uid,
  };
}

/** The serving database of this Deployment, as the cache says. */
export function servingDatabaseFor(informers: DeploymentInformers, owner: OwnerDeployment): ServingDatabase {
  const serving = servingDatabaseOf(informers.secrets.get(owner.namespace, childNames(owner.name).postgresCredentials), owner);
  const restored = informers.postgresClusters?.get(owner.namespace, serving.cluster)?.metadata?.labels?.[restoredByLabel] !== undefined;
  return restored ? { ...serving, restored } : serving;
}

/** The Cluster a restore makes: whichever of the two does not serve. */
export function spareClusterOf(owner: Pick<OwnerDeployment, 'name'>, serving: ServingDatabase): string {
  const names = childNames(owner.name);
  return serving.cluster === names.postgresCluster ? names.postgresClusterSpare : names.postgresCluster;
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

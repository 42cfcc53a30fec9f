// Where a deployment's Postgres runs. The installation chooses the engine of a new database
// (--database-engine); a database keeps the engine it was made with, which its password Secret records,
// so a change of the flag never moves data.
export const databaseEngines = ['statefulset', 'cnpg'] as const;
export type DatabaseEngine = (typeof databaseEngines)[number];
export const defaultDatabaseEngine: DatabaseEngine = 'statefulset';

/** On the database's password Secret: the engine that holds its data. A password made before engines
 * were recorded is a StatefulSet's. */
export const databaseEngineAnnotation = 'berth.dev/database-engine';

/**
 * On the same Secret, once a restore has switched the Deployment to a database of its own
 * (reconcilers/database-restore): the CloudNativePG Cluster that serves. Unset, the first Cluster
 * (`<name>-db-1`). The Secret outlives the Deployment with the data (retained-data.ts), so a Deployment
 * made again finds the database that served; the switch is this one write.
 */
export const databaseClusterAnnotation = 'berth.dev/database-cluster';

/** On a Cluster a restore made: the restore's uid, which is also the server name it archives under (a
 * label only Berth writes: tenants have no rights on Clusters). Such a Cluster keeps the bootstrap it was
 * made with. */
export const restoredByLabel = 'berth.dev/restored-by';

/** What CloudNativePG runs a Cluster's instances from where the installation names none: its own image,
 * whose tag gives the major version the operator reads. */
export const defaultCnpgPostgresImage = 'ghcr.io/cloudnative-pg/postgresql:16';

// Where a deployment's Postgres runs. The installation chooses the engine of a new database
// (--database-engine); a database keeps the engine it was made with, which its password Secret records,
// so a change of the flag never moves data.
export const databaseEngines = ['statefulset', 'cnpg'] as const;
export type DatabaseEngine = (typeof databaseEngines)[number];
/** The engine a database whose Secret records none has, and new ones where the choice is not made yet. */
export const defaultDatabaseEngine: DatabaseEngine = 'statefulset';

/** What an installation may choose for new databases: an engine, or `auto`, CloudNativePG where the
 * cluster serves its Cluster, else the StatefulSet. */
export const databaseEngineChoices = ['auto', ...databaseEngines] as const;
export type DatabaseEngineChoice = (typeof databaseEngineChoices)[number];
export const defaultDatabaseEngineChoice: DatabaseEngineChoice = 'auto';

/** The engine of new databases, from the installation's choice and whether the cluster serves
 * CloudNativePG's Cluster; or why Berth cannot start with that choice. */
export function resolveDatabaseEngine(choice: DatabaseEngineChoice, servesClusters: boolean): DatabaseEngine | { error: string } {
  if (choice === 'auto') return servesClusters ? 'cnpg' : 'statefulset';
  if (choice === 'cnpg' && !servesClusters)
    return {
      error:
        '--database-engine cnpg needs CloudNativePG: this cluster serves no Cluster (postgresql.cnpg.io/v1). Install CloudNativePG, or choose --database-engine auto or statefulset',
    };
  return choice;
}

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

// Where a deployment's Postgres runs. The installation chooses the engine of a new database
// (--database-engine); a database keeps the engine it was made with, which its password Secret records,
// so a change of the flag never moves data.
export const databaseEngines = ['statefulset', 'cnpg'] as const;
export type DatabaseEngine = (typeof databaseEngines)[number];
export const defaultDatabaseEngine: DatabaseEngine = 'statefulset';

/** On the database's password Secret: the engine that holds its data. A password made before engines
 * were recorded is a StatefulSet's. */
export const databaseEngineAnnotation = 'berth.dev/database-engine';

/** What CloudNativePG runs a Cluster's instances from where the installation names none: its own image,
 * whose tag gives the major version the operator reads. */
export const defaultCnpgPostgresImage = 'ghcr.io/cloudnative-pg/postgresql:16';

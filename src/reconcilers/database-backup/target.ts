// What a DatabaseBackup can back up now: the Deployment's CloudNativePG database once it serves and
// archives, or a reason to wait, or a reason it never can (a StatefulSet's database, a team's own, a
// cluster without CloudNativePG). Pure: the controller gathers the facts from its caches.
import type { DatabaseEngine } from '../../api/index.ts';

export interface BackupFacts {
  deploymentName: string;
  /** The Deployment, when it exists and is not going. */
  deployment?: { uid: string; external: boolean };
  engine: DatabaseEngine;
  /** The cluster serves CloudNativePG's Backup and the plugin's ObjectStore. */
  backupsServed: boolean;
  /** The namespace has its organization's backup store (Secret berth-backups). */
  storeKept: boolean;
  /** The database's ObjectStore exists and its Cluster serves. */
  databaseReady: boolean;
  /** The serving Cluster and its archive's server name (deployment/database.ts). */
  databaseName: string;
  serverName: string;
}

export type BackupTarget =
  { state: 'wait' | 'refuse'; reason: string; message: string } | { state: 'take'; databaseName: string; serverName: string };

export function backupTarget(facts: BackupFacts): BackupTarget {
  const { deployment, deploymentName } = facts;
  if (!deployment)
    return { state: 'wait', reason: 'DeploymentNotFound', message: `Deployment ${deploymentName} does not exist in this namespace.` };
  if (deployment.external)
    return {
      state: 'refuse',
      reason: 'ExternalDatabase',
      message: `Deployment ${deploymentName} uses its team's own Postgres (sourceConfig.externalDatabase): Berth backs up only the databases it runs.`,
    };
  if (!facts.backupsServed)
    return {
      state: 'refuse',
      reason: 'BackupsNeedCloudNativePG',
      message:
        'This cluster serves no CloudNativePG Backup or no barman-cloud ObjectStore: install CloudNativePG and its barman-cloud plugin to back up databases.',
    };
  if (facts.engine !== 'cnpg')
    return {
      state: 'refuse',
      reason: 'BackupsNeedCloudNativePG',
      message: `Deployment ${deploymentName}'s database is a StatefulSet: only databases made on CloudNativePG (--database-engine auto or cnpg) are backed up.`,
    };
  if (!facts.storeKept)
    return {
      state: 'wait',
      reason: 'AwaitingBackupStore',
      message: 'This namespace has no backup store yet (Secret berth-backups): Berth writes it where it runs with --backup-store.',
    };
  if (!facts.databaseReady)
    return { state: 'wait', reason: 'DatabaseStarting', message: `Waiting for ${facts.databaseName} to serve and archive.` };
  return { state: 'take', databaseName: facts.databaseName, serverName: facts.serverName };
}

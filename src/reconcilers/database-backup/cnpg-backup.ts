// The CloudNativePG Backup a DatabaseBackup is taken as: one per DatabaseBackup, of the same name, owned by
// it, through the barman-cloud plugin (the Cluster's archive names the bucket and the server name), and
// what its status says in a DatabaseBackup's words. Pure.
import { apiVersion, databaseBackupKind, type DatabaseBackupPhase } from '../../api/index.ts';
import type { DeepReadonly, KubeObject, ResourceKind } from '../../runtime/index.ts';
import { barmanCloudPlugin } from '../deployment/render/database-archive.ts';

export const cnpgBackupKind = {
  apiVersion: 'postgresql.cnpg.io/v1',
  kind: 'Backup',
  plural: 'backups',
} as const satisfies ResourceKind;

/** What Berth reads of a Backup's status (api/v1/backup_types.go, v1.30.0). */
export interface CnpgBackupStatus {
  phase?: string;
  backupId?: string;
  startedAt?: string;
  stoppedAt?: string;
  beginLSN?: string;
  endLSN?: string;
  error?: string;
}

export interface CnpgBackup extends KubeObject {
  spec: Record<string, unknown>;
  status?: CnpgBackupStatus;
}

/** The DatabaseBackup a Backup is taken for. */
export interface BackupOwner {
  name: string;
  namespace: string;
  uid: string;
}

export function renderCnpgBackup(owner: BackupOwner, cluster: string): CnpgBackup {
  return {
    apiVersion: cnpgBackupKind.apiVersion,
    kind: cnpgBackupKind.kind,
    metadata: {
      name: owner.name,
      namespace: owner.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'berth' },
      ownerReferences: [
        { apiVersion, kind: databaseBackupKind.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: { cluster: { name: cluster }, method: 'plugin', pluginConfiguration: { name: barmanCloudPlugin } },
  };
}

/** Whether the Backup is the one Berth made for this DatabaseBackup (not one of the same name made by hand). */
export function takenFor(backup: DeepReadonly<KubeObject>, owner: BackupOwner): boolean {
  return backup.metadata?.ownerReferences?.some((reference) => reference.uid === owner.uid && reference.controller === true) ?? false;
}

const endings: Record<string, DatabaseBackupPhase> = {
  completed: 'Completed',
  failed: 'Failed',
  walArchivingFailing: 'Failed',
  'invalid backup definition': 'Failed',
  started: 'Running',
  running: 'Running',
  finalizing: 'Running',
};

/** A Backup's phase as a DatabaseBackup's: pending (or none yet) is Pending. */
export function backupPhaseOf(status: DeepReadonly<CnpgBackupStatus> | undefined): DatabaseBackupPhase {
  return endings[status?.phase ?? ''] ?? 'Pending';
}

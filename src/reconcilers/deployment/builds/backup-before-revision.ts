// Step 3's gate before a migrating revision (backup-gate.ts): the backup asked for once, then observed.
import { defaultBeforeRevisionBackup, type Deployment } from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { databaseBacksUp } from '../database.ts';
import type { Pass } from '../pass.ts';
import type { OwnerDeployment } from '../render/common.ts';
import type { RevisionRecord } from '../revisions/revision-records.ts';
import { beforeRevisionBackupName, migrates, renderBeforeRevisionBackup, type BackupGate } from './backup-gate.ts';

/**
 * The backup before the target revision, asked for once, when it migrates a database Berth can back up
 * and the deployment's policy is not off; undefined when no backup is due.
 */
export async function backupBeforeRevision(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  target: RevisionRecord,
  image: string,
  serving: { name: string; image: string | undefined } | undefined,
): Promise<BackupGate | undefined> {
  const policy = deployment.spec.sourceConfig?.backups?.beforeRevision ?? defaultBeforeRevisionBackup;
  const backups = pass.informers.databaseBackups;
  if (policy === 'off' || !backups || !serving || serving.name === target.name) return undefined;
  if (
    !migrates(deployment, target.object.spec, image, serving.image) ||
    !databaseBacksUp(pass.informers, pass.options.databaseEngine, deployment)
  )
    return undefined;
  const name = beforeRevisionBackupName(target.name);
  let backup = backups.get(owner.namespace, name);
  if (!backup) {
    const { object, created } = await pass.writer.createOrGet(renderBeforeRevisionBackup(owner, target.name, new Date()));
    backup = object;
    if (created)
      pass.context.recorder.event(
        deployment,
        'Normal',
        'BackupStarted',
        `Backing up the database before Revision ${target.name}, which migrates it: DatabaseBackup ${name}.`,
      );
  }
  return { name, phase: backup.status?.phase ?? 'Pending', ...optionalMessage(backup.status?.message), policy };
}

function optionalMessage(message: string | undefined): { message?: string } {
  return message ? { message } : {};
}

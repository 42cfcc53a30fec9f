// The status of a DatabaseBackup: where it waits, why it never can be taken, or what its CloudNativePG
// Backup reports. Pure: the stored status comes back as it is when nothing but timestamps would change.
import { markVerdict, statusesEqual, type DatabaseBackupStatus, type Verdict } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import { backupPhaseOf, type CnpgBackupStatus } from './cnpg-backup.ts';
import type { BackupTarget } from './target.ts';

export function nextDatabaseBackupStatus(
  previous: DeepReadonly<DatabaseBackupStatus> | undefined,
  target: BackupTarget,
  taken: DeepReadonly<CnpgBackupStatus> | undefined,
  generation: number,
  now: Date,
): DatabaseBackupStatus {
  const { fields, verdict } = target.state === 'take' ? takenStatus(target, taken) : untakenStatus(target);
  const next: DatabaseBackupStatus = {
    ...fields,
    ...(verdict.state === 'ready' ? {} : { message: verdict.message }),
    observedGeneration: generation,
    conditions: markVerdict(previous?.conditions, verdict, generation, now),
  };
  // The stored status itself when it says the same: the caller writes nothing.
  return previous && statusesEqual(previous as DatabaseBackupStatus, next) ? (previous as DatabaseBackupStatus) : next;
}

type Outcome = { fields: DatabaseBackupStatus; verdict: Verdict };

function untakenStatus(target: Extract<BackupTarget, { state: 'wait' | 'refuse' }>): Outcome {
  const state = target.state === 'wait' ? 'progressing' : 'stalled';
  return {
    fields: { phase: target.state === 'wait' ? 'Pending' : 'Failed' },
    verdict: { state, reason: target.reason, message: target.message },
  };
}

function takenStatus(target: Extract<BackupTarget, { state: 'take' }>, taken: DeepReadonly<CnpgBackupStatus> | undefined): Outcome {
  const phase = backupPhaseOf(taken);
  const fields: DatabaseBackupStatus = {
    phase,
    databaseName: target.databaseName,
    serverName: target.serverName,
    ...copied(taken),
  };
  return { fields, verdict: verdictOf(phase, target.databaseName, taken) };
}

function copied(taken: DeepReadonly<CnpgBackupStatus> | undefined): DatabaseBackupStatus {
  const { backupId, startedAt, stoppedAt, beginLSN, endLSN } = taken ?? {};
  return Object.fromEntries(Object.entries({ backupId, startedAt, stoppedAt, beginLSN, endLSN }).filter(([, value]) => value));
}

function verdictOf(phase: string, database: string, taken: DeepReadonly<CnpgBackupStatus> | undefined): Verdict {
  if (phase === 'Completed')
    return {
      state: 'ready',
      reason: 'Completed',
      message: `The backup of ${database} completed: a restore from it has everything written before it ended.`,
    };
  if (phase === 'Failed')
    return { state: 'stalled', reason: 'BackupFailed', message: taken?.error || `CloudNativePG reports the backup of ${database} failed.` };
  if (phase === 'Running') return { state: 'progressing', reason: 'Running', message: `Backing up ${database}.` };
  return { state: 'progressing', reason: 'Pending', message: `The backup of ${database} is asked for; CloudNativePG has not begun it.` };
}

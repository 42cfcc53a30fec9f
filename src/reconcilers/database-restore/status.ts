// The status of a DatabaseRestore from the step it is at (step.ts). Pure: the stored status comes back as
// it is when nothing but timestamps would change.
import { markVerdict, statusesEqual, type DatabaseRestoreStatus, type Verdict } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import type { RestoreFacts, RestoreStep } from './step.ts';

export function nextDatabaseRestoreStatus(
  previous: DeepReadonly<DatabaseRestoreStatus> | undefined,
  step: RestoreStep,
  facts: RestoreFacts,
  generation: number,
  now: Date,
): DatabaseRestoreStatus {
  const { phase, verdict } = phaseOf(step, facts);
  const kept = previous ?? {};
  const made = phase === 'Restoring' || phase === 'Completed' || (phase === 'Failed' && step.step === 'abandon');
  const next: DatabaseRestoreStatus = {
    phase,
    ...(kept.backupBeforeName || step.step === 'await-backup'
      ? { backupBeforeName: kept.backupBeforeName ?? (step as { name: string }).name }
      : {}),
    ...(made ? { databaseName: facts.target.cluster } : {}),
    ...(phase === 'Completed' ? { retiredDatabaseName: retiredOf(facts), switchedAt: kept.switchedAt ?? now.toISOString() } : {}),
    ...(verdict.state === 'ready' ? {} : { message: verdict.message }),
    observedGeneration: generation,
    conditions: markVerdict(previous?.conditions, verdict, generation, now),
  };
  return previous && statusesEqual(previous as DatabaseRestoreStatus, next) ? (previous as DatabaseRestoreStatus) : next;
}

/** The Cluster that served before the switch: the other of the two. */
function retiredOf(facts: RestoreFacts): string {
  return facts.target.other;
}

function phaseOf(step: RestoreStep, facts: RestoreFacts): { phase: NonNullable<DatabaseRestoreStatus['phase']>; verdict: Verdict } {
  const database = facts.target.cluster;
  switch (step.step) {
    case 'wait':
      return { phase: 'Pending', verdict: { state: 'progressing', reason: step.reason, message: step.message } };
    case 'refuse':
      return { phase: 'Failed', verdict: { state: 'stalled', reason: step.reason, message: step.message } };
    case 'back-up':
    case 'await-backup':
      return {
        phase: 'BackingUp',
        verdict: { state: 'progressing', reason: 'BackingUp', message: `Backing up ${facts.serving.cluster} before it is replaced.` },
      };
    case 'restore':
    case 'await-restore':
      return {
        phase: 'Restoring',
        verdict: { state: 'progressing', reason: 'Restoring', message: 'message' in step ? step.message : `Restoring into ${database}.` },
      };
    case 'abandon':
      return {
        phase: 'Failed',
        verdict: {
          state: 'stalled',
          reason: 'RestoreFailed',
          message: `${step.message} ${database} was deleted; Deployment ${facts.deploymentName} serves its database as before.`,
        },
      };
    case 'switch':
    case 'retire':
      return {
        phase: 'Completed',
        verdict: {
          state: 'ready',
          reason: 'Restored',
          message: `Deployment ${facts.deploymentName} serves ${database}, restored from DatabaseBackup ${facts.backup?.name ?? ''}.`,
        },
      };
  }
}

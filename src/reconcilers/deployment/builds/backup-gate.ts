// A revision that migrates its database rolls out only after a backup of it (docs/data.md §2.5): one
// DatabaseBackup, reason before-revision, named after the revision and recorded on it. Berth cannot read
// a migration, so a revision migrates when it runs a pre-deploy command or is an agent server (whose
// start runs its migrations), and its image differs from the one serving. Only a database CloudNativePG
// holds, with a backup store, is backed up; any other rolls out as before. Pure: the pass asks for the
// backup in backup-before-revision.ts.
import {
  boundedName,
  databaseBackupFor,
  isBuiltSource,
  type DatabaseBackup,
  type DatabaseBackupPhase,
  type Deployment,
  type RevisionSpec,
} from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import type { OwnerDeployment } from '../render/common.ts';

/** The reason of a revision that waits for a backup of its database before it rolls out. */
export const backingUpReason = 'BackingUp';

/** Where the backup before the target revision stands. */
export interface BackupGate {
  /** The DatabaseBackup's name. */
  name: string;
  phase: DatabaseBackupPhase;
  message?: string;
  policy: 'required' | 'best_effort';
}

/** The gate lets the revision roll out: its backup completed, or failed where the policy allows it. */
export function backupGatePasses(gate: BackupGate): boolean {
  return gate.phase === 'Completed' || (gate.phase === 'Failed' && gate.policy === 'best_effort');
}

/** Whether the target revision migrates the database, as far as Berth can tell. */
export function migrates(
  deployment: DeepReadonly<Deployment>,
  target: DeepReadonly<Pick<RevisionSpec, 'source' | 'sourceRevisionConfig'>>,
  image: string,
  servingImage: string | undefined,
): boolean {
  if (!servingImage || servingImage === image) return false;
  const agentServer = isBuiltSource(target.source) && Boolean(target.sourceRevisionConfig?.graphConfigPath);
  return Boolean(deployment.spec.sourceConfig?.preDeployCommand) || agentServer;
}

export function beforeRevisionBackupName(revisionName: string): string {
  return boundedName(revisionName, '-backup');
}

export function renderBeforeRevisionBackup(owner: OwnerDeployment, revisionName: string, now: Date): DatabaseBackup {
  return databaseBackupFor(owner, { name: beforeRevisionBackupName(revisionName) }, { reason: 'before-revision', revisionName }, now);
}

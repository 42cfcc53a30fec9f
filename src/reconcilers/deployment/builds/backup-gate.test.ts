import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../../api/index.ts';
import { backupGatePasses, beforeRevisionBackupName, migrates, renderBeforeRevisionBackup } from './backup-gate.ts';

const deployment = (preDeployCommand?: string) =>
  ({ spec: { source: 'external_docker', sourceConfig: preDeployCommand ? { preDeployCommand } : {} } }) as unknown as Deployment;
const image = { source: 'external_docker', sourceRevisionConfig: {} } as const;
const agentServer = { source: 'codehost', sourceRevisionConfig: { graphConfigPath: 'langgraph.json' } } as const;

describe('migrates', () => {
  it('is a pre-deploy command or an agent server, with an image other than the serving one', () => {
    expect(migrates(deployment('alembic upgrade head'), image, 'app:2', 'app:1')).toBe(true);
    expect(migrates(deployment(), agentServer, 'app:2', 'app:1')).toBe(true);
    expect(migrates(deployment(), image, 'app:2', 'app:1')).toBe(false);
    // The same image migrates nothing new; a first revision has no data to keep.
    expect(migrates(deployment('alembic upgrade head'), image, 'app:1', 'app:1')).toBe(false);
    expect(migrates(deployment('alembic upgrade head'), image, 'app:1', undefined)).toBe(false);
  });
});

describe('the backup before a revision', () => {
  it('is a DatabaseBackup named after the revision, under its Deployment, reason before-revision', () => {
    const backup = renderBeforeRevisionBackup({ name: 'notes', namespace: 'org', uid: 'uid-1' }, 'notes-0123456789', new Date(0));
    expect(backup).toMatchObject({
      kind: 'DatabaseBackup',
      metadata: {
        name: 'notes-0123456789-backup',
        namespace: 'org',
        annotations: { 'berth.dev/requested-at': '1970-01-01T00:00:00.000Z' },
        ownerReferences: [{ kind: 'Deployment', name: 'notes', uid: 'uid-1' }],
      },
      spec: { deploymentName: 'notes', reason: 'before-revision', revisionName: 'notes-0123456789' },
    });
    expect(beforeRevisionBackupName(`${'a'.repeat(52)}-0123456789`).length).toBeLessThanOrEqual(63);
  });

  it('lets the revision go once completed, or failed where the policy is best_effort', () => {
    const gate = (phase: 'Pending' | 'Completed' | 'Failed', policy: 'required' | 'best_effort') => ({ name: 'b', phase, policy });
    expect(backupGatePasses(gate('Completed', 'required'))).toBe(true);
    expect(backupGatePasses(gate('Failed', 'best_effort'))).toBe(true);
    expect(backupGatePasses(gate('Failed', 'required'))).toBe(false);
    expect(backupGatePasses(gate('Pending', 'best_effort'))).toBe(false);
  });
});

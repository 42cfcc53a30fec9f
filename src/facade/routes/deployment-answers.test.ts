import { describe, expect, it } from 'vitest';
import type { DatabaseBackup, Revision } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import type { FacadeCache } from '../ports.ts';
import { migrationCrossed } from './deployment-answers.ts';

function revision(name: string, generation: number, backupName?: string): DeepReadonly<Revision> {
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Revision',
    metadata: {
      name,
      namespace: 'acme',
      uid: `uid-${name}`,
      labels: { 'berth.dev/deployment-generation': String(generation) },
      creationTimestamp: `2026-12-07T10:0${generation}:00Z`,
    },
    spec: { source: 'external_docker', digest: name, sourceRevisionConfig: { imageUri: `${name}:1` } },
    status: { status: 'DEPLOYED', ...(backupName ? { backupName } : {}) },
  } as unknown as DeepReadonly<Revision>;
}

const backups: Record<string, DeepReadonly<DatabaseBackup>> = {
  'r2-backup': { metadata: { name: 'r2-backup', namespace: 'acme', uid: 'uid-b2' }, status: { phase: 'Completed' } } as DatabaseBackup,
};
const cache = {
  databaseBackups: { get: (namespace: string, name: string) => (namespace === 'acme' ? backups[name] : undefined) },
} as unknown as Pick<FacadeCache, 'databaseBackups'>;

describe("a redeploy's answer", () => {
  const [r1, r2, r3, r4] = [revision('r1', 1), revision('r2', 2, 'r2-backup'), revision('r3', 3, 'r3-gone'), revision('r4', 4)];
  const all = [r4, r3, r2, r1];

  it('names the first later revision that migrated, and the backup taken before it, by their ids', () => {
    expect(migrationCrossed(cache, r1, all)).toEqual({ revision_id: 'uid-r2', backup_id: 'uid-b2', backup_status: 'COMPLETED' });
  });

  it('says so when that backup is no longer listed, and nothing when the rollback crosses no migration', () => {
    expect(migrationCrossed(cache, r2, all)).toEqual({ revision_id: 'uid-r3', backup_id: null, backup_status: null });
    expect(migrationCrossed(cache, r3, all)).toBeNull();
  });
});

import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { DatabaseBackup } from '../../api/index.ts';
import type { Informer } from '../../runtime/index.ts';
import { newestCompleted, registerBackupMetrics } from './metrics.ts';

const backup = (namespace: string, deploymentName: string, phase: 'Completed' | 'Failed', stoppedAt: string) =>
  ({
    metadata: { namespace, name: `${deploymentName}-${stoppedAt}` },
    spec: { deploymentName },
    status: { phase, stoppedAt },
  }) as DatabaseBackup;

const backups = [
  backup('org', 'notes', 'Completed', '2026-12-06T03:00:10Z'),
  backup('org', 'notes', 'Completed', '2026-12-07T03:00:10Z'),
  backup('org', 'notes', 'Failed', '2026-12-08T03:00:10Z'),
  backup('org', 'ledger', 'Failed', '2026-12-08T03:00:10Z'),
];

describe('backup metrics', () => {
  it("give each deployment its newest completed backup's end, and none to one without", () => {
    expect(newestCompleted(backups)).toEqual(new Map([['org/notes', Date.parse('2026-12-07T03:00:10Z') / 1000]]));
  });

  it('are read from the cache at each scrape', async () => {
    const registry = new Registry();
    const metrics = registerBackupMetrics(registry, { list: () => backups } as unknown as Informer<DatabaseBackup>);
    metrics.ended('Completed');
    const text = await registry.metrics();
    expect(text).toContain(
      `berth_database_backup_last_completed_timestamp_seconds{namespace="org",deployment="notes"} ${Date.parse('2026-12-07T03:00:10Z') / 1000}`,
    );
    expect(text).toContain('berth_database_backups_ended_total{phase="Completed"} 1');
    expect(text).not.toContain('deployment="ledger"');
  });
});

// What a Deployment says about its database's archive, where Berth gives it one (a CloudNativePG
// database with the organization's backup store, render/database-archive.ts): CloudNativePG's own
// ContinuousArchiving condition of the Cluster, with where the WAL goes. Pure.
import type { ConditionDecision } from '../../../api/index.ts';
import type { DeepReadonly, KubeObject } from '../../../runtime/index.ts';
import type { BackupStoreReach, DatabaseArchive } from '../render/database-archive.ts';

export const databaseArchivingCondition = 'DatabaseArchiving';

type ClusterObject = DeepReadonly<
  KubeObject & { status?: { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] } }
>;

export function databaseArchiving(
  cluster: ClusterObject | undefined,
  archive: DatabaseArchive,
  reach: BackupStoreReach,
): ConditionDecision {
  const where = `the organization's bucket ${reach.bucket} (server name ${archive.serverName})`;
  const archiving = cluster?.status?.conditions?.find((condition) => condition.type === 'ContinuousArchiving');
  if (archiving?.status === 'True')
    return { type: databaseArchivingCondition, status: 'True', reason: 'Archiving', message: `Its WAL is archived into ${where}.` };
  if (archiving?.status === 'False')
    return {
      type: databaseArchivingCondition,
      status: 'False',
      reason: archiving.reason || 'ArchivingFailed',
      message: `Its WAL is not archived into ${where}: ${archiving.message || 'CloudNativePG gives no reason'}.`,
    };
  return {
    type: databaseArchivingCondition,
    status: 'Unknown',
    reason: 'ArchiveStarting',
    message: `Its WAL is archived into ${where} once the database has archived its first segment.`,
  };
}

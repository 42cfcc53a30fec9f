// Where a CloudNativePG database's WAL and base backups go: the organization's bucket on the backup store
// (Secret berth-backups, which the backup-store controller writes), through an ObjectStore of the
// barman-cloud plugin per Deployment, under a server name of the Deployment's uid, so a Deployment
// deleted and made again under the same name (its data retained) never meets the old one's archive
// (docs/data.md §2.2). Pure.
import type { V1Secret } from '@kubernetes/client-node';
import { backupStoreSecretKeys, backupStoreSecretName, childNames } from '../../../api/index.ts';
import { decodeSecretValue, type DeepReadonly, type KubeObject, type ResourceKind } from '../../../runtime/index.ts';
import { childMetadata, type OwnerDeployment } from './common.ts';

export const objectStoreKind = {
  apiVersion: 'barmancloud.cnpg.io/v1',
  kind: 'ObjectStore',
  plural: 'objectstores',
} as const satisfies ResourceKind;

/** The plugin CloudNativePG calls for the archive and for backups. */
export const barmanCloudPlugin = 'barman-cloud.cloudnative-pg.io';

/** How long base backups and the WAL to recover from them are kept, where nobody says otherwise. */
export const defaultArchiveRetention = '14d';

/** The organization's bucket and the server it is on, as its Secret says. */
export interface BackupStoreReach {
  bucket: string;
  endpoint: string;
}

/** What the database's archive is, for its Cluster: the ObjectStore's name and the server name. */
export interface DatabaseArchive {
  objectStore: string;
  serverName: string;
}

export interface ObjectStore extends KubeObject {
  spec: Record<string, unknown>;
}

/** The bucket and server of the organization's Secret, when it names both. */
export function backupStoreReachOf(secret: DeepReadonly<V1Secret> | undefined): BackupStoreReach | undefined {
  const bucket = decodeSecretValue(secret?.data?.[backupStoreSecretKeys.bucket]);
  const endpoint = decodeSecretValue(secret?.data?.[backupStoreSecretKeys.endpoint]);
  return bucket && endpoint ? { bucket, endpoint } : undefined;
}

/** The ObjectStore takes the database's name (`<name>-postgres`, its Secret's and Service's too: one
 * name claimed, kinds apart); the server name is the Deployment's uid, or a restore's for the database
 * it made (a new archive must begin empty). */
export function databaseArchiveOf(owner: OwnerDeployment, serverName = owner.uid): DatabaseArchive {
  return { objectStore: childNames(owner.name).postgres, serverName };
}

export function renderObjectStore(owner: OwnerDeployment, reach: BackupStoreReach, retention = defaultArchiveRetention): ObjectStore {
  const key = (name: string) => ({ name: backupStoreSecretName, key: name });
  return {
    apiVersion: objectStoreKind.apiVersion,
    kind: objectStoreKind.kind,
    metadata: childMetadata(owner, databaseArchiveOf(owner).objectStore, 'postgres'),
    spec: {
      retentionPolicy: retention,
      configuration: {
        destinationPath: `s3://${reach.bucket}/`,
        endpointURL: reach.endpoint,
        s3Credentials: {
          accessKeyId: key(backupStoreSecretKeys.accessKeyId),
          secretAccessKey: key(backupStoreSecretKeys.secretAccessKey),
        },
        wal: { compression: 'gzip' },
        // A backup's checkpoint at once, not spread: a spread one sleeps 100 ms per dirty buffer while
        // ahead of schedule, and a backup before a revision holds its rollout (bench/data.ts: 17.0 s
        // for a backup just after 1,000 rows were written, 10.4 s with it).
        data: { compression: 'gzip', immediateCheckpoint: true },
      },
      instanceSidecarConfiguration: {
        // boto3 signs for a region, and its default checksums are ones S3-compatible servers refuse
        // (plugin-barman-cloud#393).
        env: [
          { name: 'AWS_DEFAULT_REGION', value: 'us-east-1' },
          { name: 'AWS_REQUEST_CHECKSUM_CALCULATION', value: 'when_required' },
          { name: 'AWS_RESPONSE_CHECKSUM_VALIDATION', value: 'when_required' },
        ],
      },
    },
  };
}

/** The Cluster's plugin entry: the plugin archives its WAL into the archive. */
export function archivePlugin(archive: DatabaseArchive): Record<string, unknown> {
  return {
    name: barmanCloudPlugin,
    isWALArchiver: true,
    parameters: { barmanObjectName: archive.objectStore, serverName: archive.serverName },
  };
}

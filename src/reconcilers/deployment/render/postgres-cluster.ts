// The Deployment's Postgres as a CloudNativePG Cluster (where that is the database's engine): one
// instance, sized by the db* fields as the StatefulSet is, with the apps' contract unchanged
// (docs/data.md §2.1a): user `postgres`, the password of Berth's own Secret (superuser access), database
// `postgres`, at the host `<name>-postgres` (Berth's Service, which follows the serving Cluster's
// primary: a restore's switch moves it, docs/data.md §2.4). CloudNativePG makes the server's certificates
// and owns the instance's claim. Pure.
import type { V1Secret, V1Service } from '@kubernetes/client-node';
import {
  childNames,
  databaseEngineAnnotation,
  defaultCnpgPostgresImage,
  deploymentLabelValue,
  type DatabaseEngine,
} from '../../../api/index.ts';
import { optional, type DeepReadonly, type KubeObject, type ResourceKind } from '../../../runtime/index.ts';
import { quantityValue } from '../../../runtime/quantity.ts';
import { labels } from '../../../api/group.ts';
import { childMetadata, renderPasswordSecret, type OwnerDeployment } from './common.ts';
import { postgresDefaultsFor, postgresMaxConnections, postgresResources, postgresStorage } from './postgres.ts';
import type { DeploymentSpecInput } from './spec.ts';
import { archivePlugin, barmanCloudPlugin, type DatabaseArchive } from './database-archive.ts';

export const postgresClusterKind = {
  apiVersion: 'postgresql.cnpg.io/v1',
  kind: 'Cluster',
  plural: 'clusters',
} as const satisfies ResourceKind;

/** CloudNativePG's own default, kept where the server's memory allows it. */
const defaultSharedBuffersMb = 128;

/** The Cluster's fields Berth sets (CloudNativePG's `postgresql.cnpg.io/v1` API); its webhook defaults the rest. */
export interface PostgresCluster extends KubeObject {
  spec: Record<string, unknown>;
}

/** Which of a Deployment's two Clusters serves (`<name>-db-1` or `-db-2`), and the server name its
 * archive writes under. */
export interface ServingDatabase {
  cluster: string;
  serverName: string;
  /** A restore made it: it keeps the bootstrap it was made with. */
  restored?: boolean;
}

/** Where a restore's Cluster begins: a base backup in the Deployment's archive (the ObjectStore), of the
 * server name it was taken under, replayed only to where it ended. */
export interface RecoverySource {
  objectStore: string;
  serverName: string;
  backupId: string;
  /** A point in time after the backup's end to replay its server's archive up to; unset: the backup's end. */
  targetTime?: string;
  /** The room of the database the backup was taken of: the Cluster is made no smaller. */
  storage?: string;
}

export interface PostgresClusterInput {
  owner: OwnerDeployment;
  spec: DeploymentSpecInput;
  image: string;
  /** The Cluster's name: the first (`<name>-db-1`) unless a restore made another. */
  cluster?: string;
  /** Scales the CPU and memory requests (limits unchanged): --request-scale. Default 1. */
  requestScale?: number;
  /** The StorageClass of the instance's volume; unset, the cluster's default. */
  storageClass?: string;
  /** Where its WAL is archived (database-archive.ts); unset, nowhere. */
  archive?: DatabaseArchive;
  /** A restore's Cluster: recovered from this backup. Unset, the first Cluster is made empty (initdb) and
   * another keeps the bootstrap it was made with (a restore's field, which Berth's pass never applies). */
  recovery?: RecoverySource;
  /** The Cluster is one a restore made (its bootstrap is the restore's, whatever its name). */
  restored?: boolean;
  /** The room the Cluster has already: never shrunk (its operator refuses a smaller volume). */
  existingStorage?: string;
}

/** The installation's settings a Cluster is rendered with. */
export function postgresClusterSettings(
  owner: OwnerDeployment,
  spec: DeploymentSpecInput,
  settings: { images: { cnpgPostgres?: string }; requestScale: number; cnpgStorageClass?: string },
): Pick<PostgresClusterInput, 'owner' | 'spec' | 'image' | 'requestScale' | 'storageClass'> {
  return {
    owner,
    spec,
    image: settings.images.cnpgPostgres ?? defaultCnpgPostgresImage,
    requestScale: settings.requestScale,
    ...(settings.cnpgStorageClass ? { storageClass: settings.cnpgStorageClass } : {}),
  };
}

/** The recovery source's name inside the Cluster's spec. */
const recoverySourceName = 'origin';

/** The database's password Secret, whichever its engine: `username` is what CloudNativePG reads beside
 * `password` for the superuser, and the annotation records the engine the data lives in. */
export function renderPostgresCredentials(owner: OwnerDeployment, password: string, engine: DatabaseEngine): V1Secret {
  const secret = renderPasswordSecret(owner, childNames(owner.name).postgresCredentials, 'postgres', password);
  return {
    ...secret,
    metadata: { ...secret.metadata, annotations: { [databaseEngineAnnotation]: engine } },
    stringData: { ...secret.stringData, username: 'postgres' },
  };
}

/** A quarter of the server's memory request, at most CloudNativePG's default: its webhook refuses a
 * Cluster whose memory is under its shared buffers (the development tiers' is small). */
export function sharedBuffersMb(spec: DeploymentSpecInput, requestScale = 1): number {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const memoryMb =
    (resources.dbMemoryMb ?? postgresDefaultsFor(spec.sourceConfig?.deploymentType, resources.dbSize).memoryMb) * requestScale;
  return Math.max(16, Math.min(defaultSharedBuffersMb, Math.floor(memoryMb / 4)));
}

export function renderPostgresCluster(input: PostgresClusterInput): PostgresCluster {
  const { owner, spec } = input;
  const names = childNames(owner.name);
  const name = input.cluster ?? names.postgresCluster;
  return {
    apiVersion: postgresClusterKind.apiVersion,
    kind: postgresClusterKind.kind,
    metadata: childMetadata(owner, name, 'postgres'),
    spec: {
      instances: 1,
      imageName: input.image,
      // A one-instance disruption budget would block every drain of its node for ever.
      enablePDB: false,
      enableSuperuserAccess: true,
      superuserSecret: { name: names.postgresCredentials },
      ...bootstrapOf(input, name === names.postgresCluster && !input.restored),
      postgresql: {
        parameters: {
          max_connections: String(postgresMaxConnections(spec)),
          shared_buffers: `${sharedBuffersMb(spec, input.requestScale)}MB`,
        },
      },
      resources: postgresResources(spec, input.requestScale),
      storage: {
        size: clusterStorage(spec, [input.recovery?.storage, input.existingStorage]),
        ...optional('storageClass', input.storageClass),
      },
      // The instance's pod and claim carry the Deployment's label; CloudNativePG sets their component.
      inheritedMetadata: { labels: { [labels.deployment]: deploymentLabelValue(owner.name) } },
      ...(input.archive ? { plugins: [archivePlugin(input.archive)] } : {}),
    },
  };
}

/** The apps connect as `postgres` to database `postgres`; `app` owns it and nobody reads its Secret. A
 * restore stops at the backup's end (targetImmediate), or replays the archive up to its point in time:
 * what was written after is what the restore undoes. */
function bootstrapOf(input: PostgresClusterInput, first: boolean): Record<string, unknown> {
  const { recovery } = input;
  if (recovery)
    return {
      bootstrap: {
        recovery: {
          source: recoverySourceName,
          database: 'postgres',
          owner: 'app',
          recoveryTarget: recovery.targetTime
            ? { backupID: recovery.backupId, targetTime: recovery.targetTime }
            : { backupID: recovery.backupId, targetImmediate: true },
        },
      },
      // The plugin reads the server name from here, and defaults it to the new Cluster's name.
      externalClusters: [
        {
          name: recoverySourceName,
          plugin: {
            name: barmanCloudPlugin,
            parameters: { barmanObjectName: recovery.objectStore, serverName: recovery.serverName },
          },
        },
      ],
    };
  return first ? { bootstrap: { initdb: { database: 'postgres', owner: 'app' } } } : {};
}

/** The spec's room for the database (db_storage_gi, or its tier's), or more when the database recovered
 * from had more, or the Cluster has more already: a backup restores into no less room than it was
 * taken from, and a volume never shrinks. */
function clusterStorage(spec: DeploymentSpecInput, floors: readonly (string | undefined)[]): string {
  const size = (quantity: string) => quantityValue(quantity) ?? 0;
  return floors.reduce<string>((largest, floor) => (floor && size(floor) > size(largest) ? floor : largest), postgresStorage(spec));
}

/** The backup a Cluster was recovered from, as it was rendered (bootstrapOf); undefined for one made
 * empty. What a Cluster was made with stays its bootstrap. Pure. */
export function recoveryOfCluster(cluster: DeepReadonly<KubeObject>): RecoverySource | undefined {
  const spec = (cluster as { spec?: ClusterRecoveryFields }).spec;
  const target = spec?.bootstrap?.recovery?.recoveryTarget;
  const parameters = spec?.externalClusters?.find((external) => external.name === recoverySourceName)?.plugin?.parameters;
  if (!target?.backupID || !parameters?.barmanObjectName || !parameters.serverName) return undefined;
  const source = { objectStore: parameters.barmanObjectName, serverName: parameters.serverName, backupId: target.backupID };
  return target.targetTime ? { ...source, targetTime: target.targetTime } : source;
}

/** The room a Cluster's instances have (spec.storage.size). Pure. */
export function clusterStorageOf(cluster: DeepReadonly<KubeObject> | undefined): string | undefined {
  return (cluster as { spec?: ClusterRecoveryFields } | undefined)?.spec?.storage?.size;
}

interface ClusterRecoveryFields {
  storage?: { size?: string };
  bootstrap?: { recovery?: { recoveryTarget?: { backupID?: string; targetTime?: string } } };
  externalClusters?: readonly { name?: string; plugin?: { parameters?: { barmanObjectName?: string; serverName?: string } } }[];
}

/** `<name>-postgres`: the apps' host, Berth's own Service (a Cluster refuses an additional Service
 * another Cluster owns), on the serving Cluster's primary. */
export function renderPostgresClusterService(owner: OwnerDeployment, cluster: string): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: childMetadata(owner, childNames(owner.name).postgres, 'postgres'),
    spec: {
      type: 'ClusterIP',
      selector: { 'cnpg.io/cluster': cluster, 'cnpg.io/instanceRole': 'primary' },
      ports: [{ name: 'postgres', port: 5432, targetPort: 5432 }],
    },
  };
}

/** Whether the Cluster serves: CloudNativePG's Ready condition (its healthy phase) with every instance
 * ready and the primary where it should be. */
export function postgresClusterReady(cluster: DeepReadonly<KubeObject> | undefined): boolean {
  const status = (cluster as { status?: ClusterStatus } | undefined)?.status;
  if (!status) return false;
  const ready = status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
  return (
    ready && (status.readyInstances ?? 0) >= 1 && status.currentPrimary !== undefined && status.currentPrimary === status.targetPrimary
  );
}

/** What of a Cluster's update a Deployment's pass reads: its readiness, its archive's condition, and its spec. */
export function postgresClusterChangeMatters(object: DeepReadonly<KubeObject>, previous: DeepReadonly<KubeObject>): boolean {
  return (
    postgresClusterReady(object) !== postgresClusterReady(previous) ||
    archivingOf(object) !== archivingOf(previous) ||
    object.metadata?.generation !== previous.metadata?.generation ||
    Boolean(object.metadata?.deletionTimestamp) !== Boolean(previous.metadata?.deletionTimestamp)
  );
}

/** CloudNativePG's ContinuousArchiving condition, as one comparable string. */
function archivingOf(cluster: DeepReadonly<KubeObject>): string {
  const condition = (cluster as { status?: ClusterStatus }).status?.conditions?.find((c) => c.type === 'ContinuousArchiving');
  return condition ? `${condition.status}/${condition.reason ?? ''}/${condition.message ?? ''}` : '';
}

interface ClusterStatus {
  conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
  readyInstances?: number;
  currentPrimary?: string;
  targetPrimary?: string;
}

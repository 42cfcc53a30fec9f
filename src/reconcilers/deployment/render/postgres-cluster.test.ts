import type { V1Deployment, V1Secret, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { optional } from '../../../runtime/index.ts';
import { databaseClusterAnnotation, databaseEngineAnnotation } from '../../../api/index.ts';
import { databaseClaimName, databaseEngineOf, servingDatabaseOf, spareClusterOf } from '../database.ts';
import {
  postgresClusterChangeMatters,
  postgresClusterReady,
  clusterStorageOf,
  recoveryOfCluster,
  renderPostgresCluster,
  renderPostgresClusterService,
  renderPostgresCredentials,
  sharedBuffersMb,
  type PostgresCluster,
} from './postgres-cluster.ts';
import { backupStoreReachOf, type ObjectStore } from './database-archive.ts';
import { renderWorkloads } from './workloads.ts';

const owner = { name: 'shop', namespace: 'ns', uid: 'uid-1' };
const settings = {
  applicationPort: 8000,
  images: { postgres: 'postgres:16', cnpgPostgres: 'cnpg/postgresql:16', redis: 'redis:7' },
  cnpgStorageClass: 'local-path',
  requestScale: 1,
  progressDeadlineSeconds: 600,
  scaleDownWindowSeconds: 60,
};
const withDatabase = { source: 'external_docker', sourceConfig: { resourceSpec: { dbMemoryMb: 1024, dbMaxConnections: 50 } } } as const;
const readyStatus = {
  conditions: [{ type: 'Ready', status: 'True' }],
  readyInstances: 1,
  currentPrimary: 'shop-db-1-1',
  targetPrimary: 'shop-db-1-1',
};

describe('a database as a CloudNativePG Cluster', () => {
  it('renders a Cluster in place of the StatefulSet and its Service, and only that', () => {
    const names = (engine: 'cnpg' | 'statefulset') =>
      renderWorkloads({ owner, spec: withDatabase, settings, databaseEngine: engine }).map((o) => `${o.kind}/${o.metadata?.name}`);
    expect(names('cnpg')).toEqual(['Service/shop', 'Cluster/shop-db-1', 'Service/shop-postgres']);
    expect(names('statefulset')).toEqual(['Service/shop', 'StatefulSet/shop-postgres', 'Service/shop-postgres']);
  });

  it("keeps the apps' contract: user postgres with Berth's password, database postgres, at <name>-postgres", () => {
    const cluster = renderPostgresCluster({ owner, spec: withDatabase, image: 'cnpg/postgresql:16', storageClass: 'local-path' });
    expect(cluster.metadata?.ownerReferences?.[0]).toMatchObject({ uid: 'uid-1', controller: true });
    expect(cluster.spec).toMatchObject({
      instances: 1,
      imageName: 'cnpg/postgresql:16',
      enablePDB: false,
      enableSuperuserAccess: true,
      superuserSecret: { name: 'shop-postgres' },
      bootstrap: { initdb: { database: 'postgres', owner: 'app' } },
      postgresql: { parameters: { max_connections: '50', shared_buffers: '128MB' } },
      storage: { size: '10Gi', storageClass: 'local-path' },
      inheritedMetadata: { labels: { 'berth.dev/deployment': 'shop' } },
    });
    expect(cluster.spec.managed).toBeUndefined();
    // The host is Berth's Service on the serving Cluster's primary, not one the Cluster owns: a restore's
    // Cluster could not take it over.
    expect(renderPostgresClusterService(owner, 'shop-db-1').spec).toEqual({
      type: 'ClusterIP',
      selector: { 'cnpg.io/cluster': 'shop-db-1', 'cnpg.io/instanceRole': 'primary' },
      ports: [{ name: 'postgres', port: 5432, targetPort: 5432 }],
    });
    const credentials = renderPostgresCredentials(owner, 'secret', 'cnpg');
    expect(credentials.stringData).toEqual({ password: 'secret', username: 'postgres' });
    expect(credentials.metadata?.annotations).toEqual({ [databaseEngineAnnotation]: 'cnpg' });
  });

  it("archives its WAL into the organization's bucket, under the Deployment's uid, where there is a store", () => {
    const backupStore = { bucket: 'berth-org', endpoint: 'http://store:7070' };
    const objects = renderWorkloads({ owner, spec: withDatabase, settings, databaseEngine: 'cnpg', backupStore });
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'Service/shop',
      'ObjectStore/shop-postgres',
      'Cluster/shop-db-1',
      'Service/shop-postgres',
    ]);
    const [, store, cluster] = objects as [unknown, ObjectStore, PostgresCluster];
    expect(store.spec).toMatchObject({
      retentionPolicy: '14d',
      configuration: {
        destinationPath: 's3://berth-org/',
        endpointURL: 'http://store:7070',
        s3Credentials: { accessKeyId: { name: 'berth-backups', key: 'ACCESS_KEY_ID' } },
        data: { immediateCheckpoint: true },
      },
    });
    expect(cluster.spec.plugins).toEqual([
      {
        name: 'barman-cloud.cloudnative-pg.io',
        isWALArchiver: true,
        parameters: { barmanObjectName: 'shop-postgres', serverName: 'uid-1' },
      },
    ]);
    // No store (or no Secret yet): no archive, and nothing names one.
    expect(renderPostgresCluster({ owner, spec: withDatabase, image: 'i:16' }).spec.plugins).toBeUndefined();
    const secret = (data: Record<string, string>): V1Secret => ({
      data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
    });
    expect(backupStoreReachOf(secret({ BUCKET: 'berth-org', ENDPOINT: 'http://store:7070' }))).toEqual(backupStore);
    expect(backupStoreReachOf(secret({ BUCKET: 'berth-org' }))).toBeUndefined();
    expect(backupStoreReachOf(undefined)).toBeUndefined();
  });

  it('renders the Cluster a restore switched to, under its own server name, keeping the bootstrap the restore gave it', () => {
    const backupStore = { bucket: 'berth-org', endpoint: 'http://store:7070' };
    const servingDatabase = { cluster: 'shop-db-2', serverName: 'restore-uid', restored: true };
    const objects = renderWorkloads({ owner, spec: withDatabase, settings, databaseEngine: 'cnpg', backupStore, servingDatabase });
    const cluster = objects.find((o) => o.kind === 'Cluster') as PostgresCluster;
    const service = objects.find((o) => o.kind === 'Service' && o.metadata?.name === 'shop-postgres') as V1Service;
    expect(cluster.metadata?.name).toBe('shop-db-2');
    expect(cluster.spec.bootstrap).toBeUndefined();
    expect(cluster.spec.plugins).toMatchObject([{ parameters: { serverName: 'restore-uid' } }]);
    expect(service.spec?.selector).toMatchObject({ 'cnpg.io/cluster': 'shop-db-2' });
    // Back on the first name after a second restore: still the restore's bootstrap.
    const back = renderPostgresCluster({ owner, spec: withDatabase, image: 'i:16', cluster: 'shop-db-1', restored: true });
    expect(back.spec.bootstrap).toBeUndefined();
  });

  it("replaces the app's and queue worker's pods at each switch to a restored Cluster, and names it on them", () => {
    const spec = { ...withDatabase, sourceConfig: { resourceSpec: { ...withDatabase.sourceConfig.resourceSpec, queueMinScale: 1 } } };
    const serving = { name: 'shop-aaaaaaaaaa', image: 'app:1' };
    const templates = (servingDatabase?: { cluster: string; serverName: string; restored?: boolean }) =>
      renderWorkloads({ owner, spec, settings, serving, databaseEngine: 'cnpg', ...optional('servingDatabase', servingDatabase) })
        .filter((o): o is V1Deployment => o.kind === 'Deployment')
        .map((deployment) => [deployment.metadata?.name, deployment.spec?.template.metadata?.annotations?.[databaseClusterAnnotation]]);
    // The first Cluster: nothing on the pods (an upgrade of Berth replaces none). Redis never reads it.
    expect(templates()).toEqual([
      ['shop', undefined],
      ['shop-queue', undefined],
      ['shop-redis', undefined],
    ]);
    expect(templates({ cluster: 'shop-db-1', serverName: 'uid-1' })).toEqual(templates());
    // Each restore's Cluster in turn: a new template, so new pods.
    expect(templates({ cluster: 'shop-db-2', serverName: 'restore-1', restored: true })).toEqual([
      ['shop', 'shop-db-2'],
      ['shop-queue', 'shop-db-2'],
      ['shop-redis', undefined],
    ]);
    expect(templates({ cluster: 'shop-db-1', serverName: 'restore-2', restored: true })).toEqual([
      ['shop', 'shop-db-1'],
      ['shop-queue', 'shop-db-1'],
      ['shop-redis', undefined],
    ]);
  });

  it('restores from one backup of the archive, under the server name it was taken with, to where it ended', () => {
    const recovery = { objectStore: 'shop-postgres', serverName: 'uid-1', backupId: '20261206T101010' };
    const cluster = renderPostgresCluster({ owner, spec: withDatabase, image: 'i:16', cluster: 'shop-db-2', recovery });
    expect(cluster.spec.bootstrap).toEqual({
      recovery: {
        source: 'origin',
        database: 'postgres',
        owner: 'app',
        recoveryTarget: { backupID: '20261206T101010', targetImmediate: true },
      },
    });
    expect(cluster.spec.externalClusters).toEqual([
      {
        name: 'origin',
        plugin: { name: 'barman-cloud.cloudnative-pg.io', parameters: { barmanObjectName: 'shop-postgres', serverName: 'uid-1' } },
      },
    ]);
    expect(recoveryOfCluster(cluster)).toEqual(recovery);
  });

  it('restores to a point in time past the backup: the archive replayed up to it, which the Cluster says back', () => {
    const recovery = { objectStore: 'shop-postgres', serverName: 'uid-1', backupId: '20261206T101010', targetTime: '2026-12-06T10:20:00Z' };
    const cluster = renderPostgresCluster({ owner, spec: withDatabase, image: 'i:16', cluster: 'shop-db-2', recovery });
    expect(cluster.spec.bootstrap).toMatchObject({
      recovery: { recoveryTarget: { backupID: '20261206T101010', targetTime: '2026-12-06T10:20:00Z' } },
    });
    expect(JSON.stringify(cluster.spec.bootstrap)).not.toContain('targetImmediate');
    expect(recoveryOfCluster(cluster)).toEqual(recovery);
  });

  it("begins a preview's first Cluster from its deployment's backup, and reads that back from the Cluster it made", () => {
    const recovery = { objectStore: 'shop-postgres', serverName: 'parent-uid', backupId: '20261207T010101' };
    const clusterOf = (input: Partial<Parameters<typeof renderWorkloads>[0]>) =>
      renderWorkloads({ owner, spec: withDatabase, settings, databaseEngine: 'cnpg', databaseRecovery: recovery, ...input }).find(
        (o) => o.kind === 'Cluster',
      ) as PostgresCluster;
    const first = clusterOf({});
    expect(first.spec.bootstrap).toMatchObject({ recovery: { recoveryTarget: { backupID: '20261207T010101' } } });
    expect(recoveryOfCluster(first)).toEqual(recovery);
    // A restore's Cluster keeps its own bootstrap; the recovery is the first Cluster's alone.
    const restored = clusterOf({ servingDatabase: { cluster: 'shop-db-2', serverName: 'restore-uid', restored: true } });
    expect(restored.spec.bootstrap).toBeUndefined();
    const empty = renderPostgresCluster({ owner, spec: withDatabase, image: 'i:16' });
    expect(recoveryOfCluster(empty)).toBeUndefined();
  });

  it('recovers into no less room than the backed-up database had, never shrinks a Cluster, and grows one the spec asks more of', () => {
    const recovery = { objectStore: 'shop-postgres', serverName: 'parent-uid', backupId: '20261207T010101', storage: '10Gi' };
    const spec = (dbStorageGi?: number) =>
      ({
        source: 'external_docker',
        sourceConfig: { deploymentType: 'dev_zero', resourceSpec: { ...optional('dbStorageGi', dbStorageGi) } },
      }) as const;
    const sized = (input: Partial<Parameters<typeof renderPostgresCluster>[0]>, dbStorageGi?: number) =>
      clusterStorageOf(renderPostgresCluster({ owner, spec: spec(dbStorageGi), image: 'i:16', ...input }));
    expect(sized({})).toBe('1Gi');
    expect(sized({ recovery })).toBe('10Gi');
    expect(sized({ recovery }, 20)).toBe('20Gi');
    // Once made, what the Cluster has is the floor: a later pass renders the same room, or more if asked.
    expect(sized({ existingStorage: '10Gi' })).toBe('10Gi');
    expect(sized({ existingStorage: '10Gi' }, 12)).toBe('12Gi');
    expect(sized({ existingStorage: 'not a quantity' })).toBe('1Gi');
  });

  it("reads the serving Cluster from the password Secret, and only a name of this Deployment's", () => {
    const secret = (annotations: Record<string, string>): V1Secret => ({ metadata: { annotations } });
    const restoredBy = (cluster: string) => (cluster === 'shop-db-2' ? 'restore-uid' : undefined);
    expect(servingDatabaseOf(undefined, owner)).toEqual({ cluster: 'shop-db-1', serverName: 'uid-1' });
    // The server name is the restore's that made the Cluster (its label, Berth's alone), never the Secret's.
    expect(servingDatabaseOf(secret({ [databaseClusterAnnotation]: 'shop-db-2' }), owner, restoredBy)).toEqual({
      cluster: 'shop-db-2',
      serverName: 'restore-uid',
      restored: true,
    });
    // A tenant's edit of its own Secret cannot point Berth at another Deployment's Cluster.
    expect(servingDatabaseOf(secret({ [databaseClusterAnnotation]: 'other-db-1' }), owner, restoredBy)).toEqual({
      cluster: 'shop-db-1',
      serverName: 'uid-1',
    });
    expect(spareClusterOf(owner, { cluster: 'shop-db-1', serverName: 'uid-1' })).toBe('shop-db-2');
    expect(spareClusterOf(owner, { cluster: 'shop-db-2', serverName: 'uid-1' })).toBe('shop-db-1');
  });

  it("keeps shared buffers under a small server's memory, which CloudNativePG's webhook requires", () => {
    expect(sharedBuffersMb({ source: 'external_docker', sourceConfig: { deploymentType: 'dev', resourceSpec: {} } }, 0.25)).toBe(16);
    expect(sharedBuffersMb({ source: 'external_docker', sourceConfig: { resourceSpec: { dbMemoryMb: 256 } } })).toBe(64);
    expect(sharedBuffersMb(withDatabase)).toBe(128);
  });

  it('counts a Cluster ready only when it says Ready, with its instance ready and its primary in place', () => {
    const cluster = (status: object) => ({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', status });
    expect(postgresClusterReady(cluster(readyStatus))).toBe(true);
    expect(postgresClusterReady(cluster({ ...readyStatus, conditions: [{ type: 'Ready', status: 'False' }] }))).toBe(false);
    expect(postgresClusterReady(cluster({ ...readyStatus, readyInstances: 0 }))).toBe(false);
    expect(postgresClusterReady(cluster({ ...readyStatus, targetPrimary: 'shop-db-1-2' }))).toBe(false);
    expect(postgresClusterReady(undefined)).toBe(false);
    expect(postgresClusterChangeMatters(cluster(readyStatus), cluster({ ...readyStatus, readyInstances: 0 }))).toBe(true);
    expect(postgresClusterChangeMatters(cluster({ ...readyStatus, phase: 'x' }), cluster(readyStatus))).toBe(false);
    const archiving = { ...readyStatus, conditions: [...readyStatus.conditions, { type: 'ContinuousArchiving', status: 'True' }] };
    expect(postgresClusterChangeMatters(cluster(archiving), cluster(readyStatus))).toBe(true);
  });
});

describe('the engine of a database', () => {
  const secret = (annotations?: Record<string, string>): V1Secret => ({
    metadata: { name: 'shop-postgres', ...(annotations ? { annotations } : {}) },
  });

  it("is the installation's for a new database, and the recorded one for a database that exists", () => {
    expect(databaseEngineOf(undefined, 'cnpg')).toBe('cnpg');
    expect(databaseEngineOf(undefined, 'statefulset')).toBe('statefulset');
    expect(databaseEngineOf(secret({ [databaseEngineAnnotation]: 'cnpg' }), 'statefulset')).toBe('cnpg');
    expect(databaseEngineOf(secret({ [databaseEngineAnnotation]: 'statefulset' }), 'cnpg')).toBe('statefulset');
    // A password made before engines were recorded is a StatefulSet's: a new flag never moves its data.
    expect(databaseEngineOf(secret(), 'cnpg')).toBe('statefulset');
  });

  it("keeps its data in the StatefulSet's replica's claim, or the Cluster's first instance's", () => {
    expect(databaseClaimName(owner, 'statefulset')).toBe('data-shop-postgres-0');
    expect(databaseClaimName(owner, 'cnpg')).toBe('shop-db-1-1');
  });
});

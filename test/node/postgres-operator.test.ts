// The node's Postgres operator (workbench/node/postgres-operator.ts): CloudNativePG, built here from its
// pinned module, makes a Postgres of one instance from a `Cluster`, on a volume of the local-path
// StorageClass that its Postgres (uid 26, never root) can write; the database answers through the
// Cluster's -rw Service with the credentials CloudNativePG made; the barman-cloud plugin archives its WAL
// and takes a base backup into the organization's bucket on the node's backup store, with the keys Berth
// gave the organization (Secret berth-backups), which another organization's keys cannot read; the
// admission webhooks, called through the node's address with the cluster's CA, refuse what CloudNativePG
// refuses; the volume's directory goes with the Cluster. Berth runs only as the backup store's keeper:
// what later slices of "Data that lasts" (docs/data.md) build on is under test.
// Cost: about 90 s on the node (initdb and the first start of one Postgres, a base backup, the volume's
// helper pods).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import aws4 from 'aws4';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { backupStoreSecretKeys, backupStoreSecretName } from '../../src/api/backup-store.ts';
import { ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { backupStoreAdminSecret, backupStoreAdminUrl, backupStoreUrl, prepareBackupStore } from '../../workbench/node/backup-store.ts';
import { nodeDirs } from '../../workbench/node/node.ts';
import { barmanCloudPlugin, cnpgPostgresImage, localPathStorageClass } from '../../workbench/node/postgres-operator.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { apply, kubectlOk } from './support.ts';

const run = promisify(execFile);
const psql = '/usr/lib/postgresql/15/bin/psql';

let berth: BerthProcess | undefined;
let namespace: string;
let other: string;

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-cnpg-op');
  namespace = await useNamespace('cnpg');
  other = await useNamespace('cnpg-other');
  for (const organization of [namespace, other]) await ensureOrganizationNamespace(kc, organization, randomUUID());
  // Berth keeps each organization's account and bucket on the node's store with its admin credential.
  const store = prepareBackupStore(join(nodeDirs(dirname(inject('nodePartsDir'))).root, 'backup-store'));
  await apply(operatorNamespace, backupStoreAdminSecret(operatorNamespace, 'backup-store-admin', store.credentials));
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [operatorNamespace, namespace, other] }),
    ...['--backup-store', backupStoreUrl, '--backup-store-secret', 'backup-store-admin', '--backup-store-admin', backupStoreAdminUrl],
  ]);
  await waitReady(berth);
});

afterAll(async () => {
  await berth?.stop();
  for (const name of [namespace, other]) if (name) await kubectl(['delete', 'namespace', name, '--wait=false']);
});

interface ClusterStatus {
  phase?: string;
  readyInstances?: number;
  conditions?: { type: string; status: string }[];
}

const cluster = (name: string, imageName = cnpgPostgresImage) => ({
  apiVersion: 'postgresql.cnpg.io/v1',
  kind: 'Cluster',
  metadata: { name },
  spec: {
    instances: 1,
    imageName,
    enablePDB: false,
    storage: { size: '1Gi', storageClass: localPathStorageClass },
    bootstrap: { initdb: { database: 'app', owner: 'app' } },
    plugins: [{ name: barmanCloudPlugin, isWALArchiver: true, parameters: { barmanObjectName: 'backups' } }],
  },
});

/** The organization's bucket on the node's store, reached with the keys Berth gave it. */
const objectStore = (bucket: string) => ({
  apiVersion: 'barmancloud.cnpg.io/v1',
  kind: 'ObjectStore',
  metadata: { name: 'backups' },
  spec: {
    retentionPolicy: '7d',
    configuration: {
      destinationPath: `s3://${bucket}/`,
      endpointURL: backupStoreUrl,
      s3Credentials: {
        accessKeyId: { name: backupStoreSecretName, key: backupStoreSecretKeys.accessKeyId },
        secretAccessKey: { name: backupStoreSecretName, key: backupStoreSecretKeys.secretAccessKey },
      },
      wal: { compression: 'gzip' },
      data: { compression: 'gzip' },
    },
    instanceSidecarConfiguration: {
      env: [
        { name: 'AWS_DEFAULT_REGION', value: 'us-east-1' },
        { name: 'AWS_REQUEST_CHECKSUM_CALCULATION', value: 'when_required' },
        { name: 'AWS_RESPONSE_CHECKSUM_VALIDATION', value: 'when_required' },
      ],
    },
  },
});

async function clusterStatus(name: string): Promise<ClusterStatus> {
  const out = await kubectlOk(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, name, '-o', 'jsonpath={.status}']);
  return out ? (JSON.parse(out) as ClusterStatus) : {};
}

async function secretValue(secretNamespace: string, name: string, key: string): Promise<string> {
  const out = await kubectlOk(['get', 'secret', '-n', secretNamespace, name, '-o', `jsonpath={.data.${key}}`]);
  return Buffer.from(out, 'base64').toString('utf8');
}

/** An organization's keys, once Berth has written them. */
async function storeKeys(organization: string): Promise<{ accessKeyId: string; secretAccessKey: string; bucket: string }> {
  await eventually(
    async () => (await kubectl(['get', 'secret', '-n', organization, backupStoreSecretName])).code === 0,
    60_000,
    `${backupStoreSecretName} in ${organization}`,
  );
  const read = (key: string) => secretValue(organization, backupStoreSecretName, key);
  return {
    accessKeyId: await read(backupStoreSecretKeys.accessKeyId),
    secretAccessKey: await read(backupStoreSecretKeys.secretAccessKey),
    bucket: await read(backupStoreSecretKeys.bucket),
  };
}

/** A bucket's listing with the given keys: its status and body. */
async function listBucket(keys: { accessKeyId: string; secretAccessKey: string }, bucket: string): Promise<[number, string]> {
  const url = new URL(`/${bucket}?list-type=2`, backupStoreUrl);
  const signed = aws4.sign(
    { host: url.host, path: `${url.pathname}${url.search}`, method: 'GET', service: 's3', region: 'us-east-1' },
    keys,
  );
  const response = await fetch(url, { headers: signed.headers as Record<string, string> });
  return [response.status, await response.text()];
}

describe("the node's Postgres operator", () => {
  it('makes a Postgres of one instance on a local-path volume, which answers through its -rw Service', { timeout: 300_000 }, async () => {
    const keys = await storeKeys(namespace);
    const from = Date.now();
    await apply(namespace, objectStore(keys.bucket), cluster('db'));
    await eventually(async () => (await clusterStatus('db')).phase === 'Cluster in healthy state', 240_000, 'the Cluster healthy');
    console.error(`[postgres-operator] a Cluster of one instance healthy ${Math.round((Date.now() - from) / 1000)} s after it was applied`);
    expect((await clusterStatus('db')).readyInstances).toBe(1);

    // The volume is one of local-path's, which its helper pod made.
    const claim = JSON.parse(await kubectlOk(['get', 'pvc', '-n', namespace, 'db-1', '-o', 'json'])) as {
      spec: { storageClassName: string };
    };
    expect(claim.spec.storageClassName).toBe(localPathStorageClass);

    // Through the Service, as an app would, with the password CloudNativePG made.
    const password = await secretValue(namespace, 'db-app', 'password');
    const host = (await kubectlOk(['get', 'service', '-n', namespace, 'db-rw', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    const query = (sql: string) =>
      run(psql, ['-h', host, '-U', 'app', '-d', 'app', '-tAc', sql], {
        env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '5' },
      });
    await query('create table notes (body text); insert into notes values ($$kept$$)');
    expect((await query('select body from notes')).stdout.trim()).toBe('kept');
  });

  it(
    "archives its WAL and takes a base backup into the organization's bucket, which another organization cannot read",
    { timeout: 240_000 },
    async () => {
      const condition = async (type: string) => (await clusterStatus('db')).conditions?.find((c) => c.type === type)?.status;
      await eventually(async () => (await condition('ContinuousArchiving')) === 'True', 120_000, 'WAL archiving working');
      const from = Date.now();
      await apply(namespace, {
        apiVersion: 'postgresql.cnpg.io/v1',
        kind: 'Backup',
        metadata: { name: 'db-first' },
        spec: { method: 'plugin', cluster: { name: 'db' }, pluginConfiguration: { name: barmanCloudPlugin } },
      });
      const phase = async () =>
        (await kubectlOk(['get', 'backups.postgresql.cnpg.io', '-n', namespace, 'db-first', '-o', 'jsonpath={.status.phase}'])).trim();
      await eventually(async () => ['completed', 'failed'].includes(await phase()), 180_000, 'the backup done');
      expect(await phase()).toBe('completed');
      console.error(`[postgres-operator] a base backup completed ${Math.round((Date.now() - from) / 1000)} s after it was asked for`);

      const keys = await storeKeys(namespace);
      const [status, listing] = await listBucket(keys, keys.bucket);
      expect(status).toBe(200);
      expect(listing).toMatch(/<Key>db\/base\/[^<]+\/backup\.info<\/Key>/);
      expect(listing).toMatch(/<Key>db\/wals\//);
      // Another organization's keys reach their own bucket, not this one.
      const otherKeys = await storeKeys(other);
      expect((await listBucket(otherKeys, otherKeys.bucket))[0]).toBe(200);
      expect((await listBucket(otherKeys, keys.bucket))[0]).toBe(403);
    },
  );

  it("refuses at apply time what CloudNativePG's webhooks refuse", async () => {
    // An image tagged `latest` says no major version: the validating webhook refuses it.
    const refused = await kubectl(
      ['apply', '--server-side', '-n', namespace, '-f', '-'],
      JSON.stringify(cluster('latest', cnpgPostgresImage.replace(/:15$/, ':latest'))),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/spec\.imageName: Invalid value: .*Can't use 'latest' as image tag/);
    expect((await kubectl(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, 'latest'])).code).not.toBe(0);
  });

  it("removes the volume's directory with the Cluster", { timeout: 120_000 }, async () => {
    const volume = (await kubectlOk(['get', 'pvc', '-n', namespace, 'db-1', '-o', 'jsonpath={.spec.volumeName}'])).trim();
    const path = (await kubectlOk(['get', 'pv', volume, '-o', 'jsonpath={.spec.hostPath.path}'])).trim();
    expect(existsSync(path)).toBe(true);
    await kubectlOk(['delete', 'clusters.postgresql.cnpg.io', '-n', namespace, 'db']);
    await eventually(async () => (await kubectl(['get', 'pv', volume])).code !== 0, 90_000, 'the volume deleted');
    expect(existsSync(path)).toBe(false);
  });
});

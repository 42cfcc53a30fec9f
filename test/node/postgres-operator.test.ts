// The node's Postgres operator (workbench/node/postgres-operator.ts) under Berth. With
// `--database-engine auto` (the default; the suite's other files choose statefulset), where the cluster
// serves CloudNativePG, a Deployment that asks for a database gets a CloudNativePG Cluster (built here
// from its pinned module) on a volume of the local-path StorageClass, which its Postgres (uid 26, never
// root) can write; its app reaches it at `<name>-postgres` as it reaches a StatefulSet's, with Berth's
// password; the barman-cloud plugin archives its WAL into the organization's bucket on the node's
// backup store under the Deployment's uid, with the keys Berth gave the organization (Secret
// berth-backups), and the Deployment says so (DatabaseArchiving); a backup asked for through the HTTP API
// (a DatabaseBackup, taken as one CloudNativePG Backup) lands there too, after the schedule's first, which
// another organization's keys cannot read, and so does one taken before a revision that migrates, before
// its pre-deploy command runs; the admission webhooks, called through the node's address
// with the cluster's CA, refuse what CloudNativePG refuses; the data outlives the Deployment when
// retained and serves a Deployment of the same name again, and goes with it, volume directory and all,
// when the Deployment says delete.
// A codehost Deployment's previews begin with a clone of its newest backup, one taken for them when
// it has none, where the installation's policy lists its repository.
// Cost: about 100 s on the node (initdb and the start of one Postgres, its second start on the retained
// volume, three base backups, a rollout, the volumes' helper pods), and about 60 s more for the clone
// (a second initdb, overlapping the tests before it, a base backup and a recovery).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import aws4 from 'aws4';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { backupStoreSecretKeys, backupStoreSecretName } from '../../src/api/backup-store.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { backupStoreAdminSecret, backupStoreAdminUrl, backupStoreUrl, prepareBackupStore } from '../../workbench/node/backup-store.ts';
import { nodeDirs } from '../../workbench/node/node.ts';
import { nodeIp } from '../../workbench/node/network.ts';
import { barmanCloudPlugin, cnpgPostgresImage, localPathStorageClass } from '../../workbench/node/postgres-operator.ts';
import { GitServer } from '../../workbench/support/git-server.ts';
import { shareSecretArgs } from '../../workbench/support/shared-secrets.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { apply, componentPods, exampleImage, httpGet, kubectlOk, serviceImage } from './support.ts';

const run = promisify(execFile);
const psql = '/usr/lib/postgresql/15/bin/psql';

let berth: BerthProcess | undefined;
let git: GitServer | undefined;
let github: FakeGitHub | undefined;
/** The repository of `shop`, the Deployment whose previews clone its database. */
let shopRepository: number;
let namespace: string;
let other: string;
/** Berth's HTTP API, as the first organization (namespace). */
let api: Api;

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-cnpg-op');
  namespace = await useNamespace('cnpg');
  other = await useNamespace('cnpg-other');
  const organizationId = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, organizationId);
  await ensureOrganizationNamespace(kc, other, randomUUID());
  // Berth keeps each organization's account and bucket on the node's store with its admin credential.
  const store = prepareBackupStore(join(nodeDirs(dirname(inject('nodePartsDir'))).root, 'backup-store'));
  await apply(operatorNamespace, backupStoreAdminSecret(operatorNamespace, 'backup-store-admin', store.credentials));
  const codeHost = await startCodeHost();
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [operatorNamespace, namespace, other] }),
    ...['--backup-store', backupStoreUrl, '--backup-store-secret', 'backup-store-admin', '--backup-store-admin', backupStoreAdminUrl],
    ...['--database-engine', 'auto', '--cnpg-postgres-image', cnpgPostgresImage, '--cnpg-storage-class', localPathStorageClass],
    // A tick every second, of which a database takes one an hour: its first comes as soon as it serves.
    ...['--backup-schedule', '* * * * * *'],
    // The app's wait for its database (pg_isready), whichever engine holds it.
    ...['--postgres-image', await serviceImage('postgres')],
    // A code host whose pull requests get previews, which may clone the database of acme's repositories.
    ...['--code-host-origins', codeHost.url, '--source-poll-seconds', '2'],
    ...['--organization-policy', JSON.stringify({ previewDatabaseClone: [`${new URL(codeHost.url).host}/acme/*`] })],
  ]);
  await waitReady(berth);
  const key = (await ensureApiKey(kc, operatorNamespace, [organizationId])).key;
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': key });
  // Its database is made while the tests before its own run.
  await apply(namespace, ...codeHost.objects);
  const integrationId = (await kubectlOk(['get', 'codehost', '-n', namespace, 'github', '-o', 'jsonpath={.metadata.uid}'])).trim();
  await apply(namespace, shop(codeHost.url, integrationId));
});

afterAll(async () => {
  await berth?.stop();
  await github?.stop();
  await git?.stop();
  for (const name of [namespace, other]) if (name) await kubectl(['delete', 'namespace', name, '--wait=false']);
});

/** GitHub (its wire format) serving acme/shop, and the integration and token Secret an organization reaches it with. */
async function startCodeHost(): Promise<{ url: string; objects: object[] }> {
  git = await GitServer.start(nodeIp);
  github = await FakeGitHub.start({ host: nodeIp, git });
  const acme = github.account('acme', 'Organization');
  shopRepository = github.addRepository(acme, { name: 'shop' });
  const token = github.issuePersonalToken(acme);
  await git.createRepository('acme/shop', { Dockerfile: 'FROM scratch\n' }, { token });
  await kubectlOk(['create', 'secret', 'generic', '-n', namespace, 'github-token', `--from-literal=token=${token}`]);
  await kubectlOk(shareSecretArgs(namespace, 'github-token'));
  const integration = {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'CodeHostIntegration',
    metadata: { name: 'github' },
    spec: { baseUrl: github.url, credentialsSecretRef: { name: 'github-token' } },
  };
  return { url: github.url, objects: [integration] };
}

/** A Deployment of acme/shop whose previews begin with a clone of its database; no schedule, so the
 * first preview finds no backup and asks for one. Nothing builds here: the databases are made anyway. */
const shop = (codeHostUrl: string, integrationId: string) => ({
  apiVersion: 'berth.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name: 'shop' },
  spec: {
    source: 'codehost',
    sourceConfig: {
      integrationId,
      repoUrl: `${codeHostUrl}/acme/shop`,
      resourceSpec: { maxScale: 1, dbStorageGi: 1, dbCpu: 0.1, dbMemoryMb: 256 },
      backups: { schedule: 'off' },
      previews: { database: 'clone' },
    },
    sourceRevisionConfig: { repoRef: 'main' },
  },
});

/** Whether CloudNativePG reports the Cluster Ready. */
async function clusterReady(name: string): Promise<boolean> {
  const ready = await kubectl([
    'get',
    'clusters.postgresql.cnpg.io',
    '-n',
    namespace,
    name,
    '-o',
    'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
  ]);
  return ready.stdout === 'True';
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

/** A Deployment of the example app that asks for a database. */
const notes = (image: string, sourceConfig: Record<string, unknown> = {}) => ({
  apiVersion: 'berth.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name: 'notes' },
  spec: {
    source: 'external_docker',
    sourceConfig: {
      resourceSpec: { minScale: 1, maxScale: 1, cpu: 0.1, memoryMb: 64, dbStorageGi: 1, dbCpu: 0.1, dbMemoryMb: 256 },
      ...sourceConfig,
    },
    sourceRevisionConfig: { imageUri: image },
  },
});

async function deploymentStatus(name: string): Promise<string> {
  return kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, name, '-o', 'jsonpath={.status.status}']);
}

/** SQL as an app runs it: as `postgres`, with the password of Berth's Secret, through the `<name>-postgres` Service. */
async function appQuery(name: string, sql: string): Promise<string> {
  const password = await secretValue(namespace, `${name}-postgres`, 'password');
  const host = (await kubectlOk(['get', 'service', '-n', namespace, `${name}-postgres`, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  const { stdout } = await run(psql, ['-h', host, '-U', 'postgres', '-d', 'postgres', '-tAc', sql], {
    env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '5' },
  });
  return stdout.trim();
}

describe('a Deployment whose database CloudNativePG holds (--database-engine auto, on a cluster that serves it)', () => {
  it('gets a Cluster in place of a StatefulSet, which its app reaches at <name>-postgres as before', { timeout: 300_000 }, async () => {
    const from = Date.now();
    await apply(namespace, notes(await exampleImage('cnpg')));
    await eventually(async () => (await deploymentStatus('notes')) === 'READY', 240_000, 'the Deployment READY');
    console.error(`[postgres-operator] a Deployment on a Cluster READY ${Math.round((Date.now() - from) / 1000)} s after it was applied`);
    const cluster = JSON.parse(await kubectlOk(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, 'notes-db-1', '-o', 'json'])) as {
      metadata: { ownerReferences: { kind: string; name: string }[] };
      spec: { storage: { storageClass: string } };
    };
    expect(cluster.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'notes' })]);
    expect(cluster.spec.storage.storageClass).toBe(localPathStorageClass);
    expect((await kubectl(['get', 'statefulset', '-n', namespace, 'notes-postgres'])).code).not.toBe(0);
    const engine = await kubectlOk([
      'get',
      'secret',
      '-n',
      namespace,
      'notes-postgres',
      '-o',
      'jsonpath={.metadata.annotations.berth\\.dev/database-engine}',
    ]);
    expect(engine).toBe('cnpg');
    // The app, with the DATABASE_URI Berth gives it.
    const app = (await kubectlOk(['get', 'service', '-n', namespace, 'notes', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    expect(await eventually(async () => (await httpGet(`http://${app}/db`)).body, 30_000, 'the app reaching its database')).toBe('db 42\n');
    await appQuery('notes', 'create table notes (body text); insert into notes values ($$kept$$)');
    expect(await appQuery('notes', 'select body from notes')).toBe('kept');
    // Its WAL goes to the organization's bucket, under the Deployment's uid.
    const uid = await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'notes', '-o', 'jsonpath={.metadata.uid}']);
    const keys = await storeKeys(namespace);
    await appQuery('notes', 'select pg_switch_wal()');
    await eventually(
      async () => (await listBucket(keys, keys.bucket))[1].includes(`<Key>${uid}/wals/`),
      120_000,
      "the database's WAL in the organization's bucket",
    );
    // And the Deployment says so.
    const archiving = () =>
      kubectlOk([
        'get',
        'deployments.berth.dev',
        '-n',
        namespace,
        'notes',
        '-o',
        'jsonpath={.status.conditions[?(@.type=="DatabaseArchiving")]}',
      ]);
    await eventually(async () => JSON.parse((await archiving()) || '{}').status === 'True', 60_000, 'DatabaseArchiving True');
    expect(JSON.parse(await archiving())).toMatchObject({ reason: 'Archiving', message: expect.stringContaining(`server name ${uid}`) });
  });

  it(
    "takes a backup asked for through the HTTP API into the organization's bucket, which another organization cannot read",
    { timeout: 240_000 },
    async () => {
      const uid = await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'notes', '-o', 'jsonpath={.metadata.uid}']);
      const from = Date.now();
      const asked = await api.ok('POST', `/v2/deployments/${uid}/backups`);
      expect(asked).toMatchObject({ deployment_id: uid, reason: 'manual' });
      const read = () => api.ok('GET', `/v2/deployments/${uid}/backups/${asked.id}`);
      await eventually(async () => ['COMPLETED', 'FAILED'].includes((await read()).status), 180_000, 'the backup done');
      const done = await read();
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'COMPLETED', status_message: null });
      expect(done.end_lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      expect(Date.parse(done.stopped_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
      console.error(`[postgres-operator] a backup completed ${Math.round((Date.now() - from) / 1000)} s after it was asked for`);
      // The schedule's backup came first: the one asked for waited for it to end.
      const [latest, scheduled] = (await api.ok('GET', `/v2/deployments/${uid}/backups`)).resources;
      expect(latest.id).toBe(asked.id);
      expect(scheduled).toMatchObject({ reason: 'scheduled', status: 'COMPLETED', name: expect.stringMatching(/^notes-\d{8}-\d{6}$/) });
      expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(Date.parse(scheduled.stopped_at));

      // The DatabaseBackup was taken as one CloudNativePG Backup of its own, whose id names its folder.
      const stored = JSON.parse(await kubectlOk(['get', 'dbbackup', '-n', namespace, asked.name, '-o', 'json'])) as {
        status: { backupId: string; databaseName: string; serverName: string };
      };
      expect(stored.status).toMatchObject({ databaseName: 'notes-db-1', serverName: uid });
      const made = JSON.parse(await kubectlOk(['get', 'backups.postgresql.cnpg.io', '-n', namespace, asked.name, '-o', 'json'])) as {
        metadata: { ownerReferences: { kind: string; name: string }[] };
        spec: unknown;
      };
      expect(made.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'DatabaseBackup', name: asked.name })]);
      expect(made.spec).toMatchObject({
        method: 'plugin',
        cluster: { name: 'notes-db-1' },
        pluginConfiguration: { name: barmanCloudPlugin },
      });

      const keys = await storeKeys(namespace);
      const [status, listing] = await listBucket(keys, keys.bucket);
      expect(status).toBe(200);
      expect(listing).toContain(`<Key>${uid}/base/${stored.status.backupId}/backup.info</Key>`);
      // Another organization's keys reach their own bucket, not this one.
      const otherKeys = await storeKeys(other);
      expect((await listBucket(otherKeys, otherKeys.bucket))[0]).toBe(200);
      expect((await listBucket(otherKeys, keys.bucket))[0]).toBe(403);
    },
  );

  it('backs up the database before a revision that migrates it, and names that backup on the revision', { timeout: 300_000 }, async () => {
    const uid = await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'notes', '-o', 'jsonpath={.metadata.uid}']);
    const before = await api.ok('GET', `/v2/deployments/${uid}`);
    // A new image with a pre-deploy command migrates, as far as Berth can tell. The example app's image is
    // one static binary with no shell: its command fails, as a migration may, after the backup.
    const patched = await api.ok('PATCH', `/v2/deployments/${uid}`, {
      source_config: { pre_deploy_command: 'alembic upgrade head' },
      source_revision_config: { image_uri: await exampleImage('cnpg-2') },
    });
    expect(patched.latest_revision_id).not.toBe(before.latest_revision_id);
    const revision = await revisionReaches(api, uid, patched.latest_revision_id, ['DEPLOYED', 'DEPLOY_FAILED'], { timeoutMs: 240_000 });
    expect(revision.status).toBe('DEPLOY_FAILED');
    expect(revision.status_message).toMatch(/^The pre-deploy command failed/);
    expect(revision.backup_id).toEqual(expect.any(String));
    const backup = await api.ok('GET', `/v2/deployments/${uid}/backups/${revision.backup_id}`);
    expect(backup).toMatchObject({
      reason: 'before-revision',
      revision_id: revision.id,
      status: 'COMPLETED',
      name: `${revision.name}-backup`,
    });
    // The command ran once the backup had completed, and the revision before serves on.
    const job = await kubectlOk([
      'get',
      'job',
      '-n',
      namespace,
      `${revision.name}-pre-deploy`,
      '-o',
      'jsonpath={.metadata.creationTimestamp}',
    ]);
    expect(Date.parse(job)).toBeGreaterThanOrEqual(Math.floor(Date.parse(backup.stopped_at) / 1000) * 1000);
    expect((await api.ok('GET', `/v2/deployments/${uid}`)).active_revision_id).toBe(before.active_revision_id);
    const listed = (await api.ok('GET', `/v2/deployments/${uid}/backups`)).resources.map((b: { reason: string }) => b.reason);
    expect(listed).toEqual(['before-revision', 'manual', 'scheduled']);

    // A rollback to the revision before it never restores: it names the backup to restore, and how.
    const rolledBack = await api.ok('POST', `/v2/deployments/${uid}/revisions/${before.active_revision_id}/redeploy`);
    expect(rolledBack.crosses_migration).toEqual({ revision_id: revision.id, backup_id: backup.id, backup_status: 'COMPLETED' });
    const crossing = await eventually(
      async () =>
        ((await api.ok('GET', `/v2/deployments/${uid}`)).conditions as { type: string; message: string }[]).find(
          (condition) => condition.type === 'RollbackCrossesMigration',
        ),
      30_000,
      'the rollback past a migration said',
    );
    expect(crossing.message).toContain(`POST /v2/deployments/${uid}/backups/${backup.id}/restore`);
  });

  it(
    'restores the backup a rollback past a migration names into a new database, after a backup of the serving one, and switches the app to it; the old one is kept until the restore goes',
    { timeout: 300_000 },
    async () => {
      const uid = await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'notes', '-o', 'jsonpath={.metadata.uid}']);
      // What is written after the backup is what the restore undoes.
      await appQuery('notes', 'insert into notes values ($$after$$)');
      // The backup the rollback above names: the one taken before the revision that migrates.
      const taken = (await api.ok('GET', `/v2/deployments/${uid}/backups`)).resources.find(
        (b: { reason: string }) => b.reason === 'before-revision',
      );
      type Pod = { metadata: { name: string; annotations?: Record<string, string> } };
      const appPods = () => componentPods<Pod>(namespace, 'notes');
      const before = (await appPods()).map((pod) => pod.metadata.name);
      const from = Date.now();
      const asked = await api.call('POST', `/v2/deployments/${uid}/backups/${taken.id}/restore`);
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      expect(asked.body).toMatchObject({ backup_id: taken.id, backup_first: true });
      const read = () => api.ok('GET', `/v2/deployments/${uid}/restores/${asked.body.id}`);
      await eventually(async () => ['COMPLETED', 'FAILED'].includes((await read()).status), 240_000, 'the restore done');
      const done = await read();
      expect(done, JSON.stringify(done)).toMatchObject({
        status: 'COMPLETED',
        database_name: 'notes-db-2',
        retired_database_name: 'notes-db-1',
        backup_before_id: expect.any(String),
      });
      console.error(`[postgres-operator] a restore switched ${Math.round((Date.now() - from) / 1000)} s after it was asked for`);
      expect(await api.ok('GET', `/v2/deployments/${uid}/backups/${done.backup_before_id}`)).toMatchObject({
        reason: 'before-restore',
        status: 'COMPLETED',
      });

      // The app's host and password now reach the restored database: the row written after the backup is gone.
      const rows = () => appQuery('notes', 'select string_agg(body, $$,$$) from notes').catch(() => undefined);
      await eventually(async () => (await rows()) === 'kept', 60_000, 'the restored rows');
      const app = (await kubectlOk(['get', 'service', '-n', namespace, 'notes', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
      expect(await eventually(async () => (await httpGet(`http://${app}/db`)).body, 60_000, 'the app on the restored database')).toBe(
        'db 42\n',
      );
      // The switch replaced the app's pods: none keeps a connection to the database before.
      const after = await eventually(
        async () => {
          const pods = await appPods();
          return pods.length > 0 && pods.every((pod) => !before.includes(pod.metadata.name)) ? pods : undefined;
        },
        120_000,
        "only the app's new pods",
      );
      expect(after.map((pod) => pod.metadata.annotations?.['berth.dev/database-cluster'])).toEqual(after.map(() => 'notes-db-2'));
      // The restored database archives under a server name of its own; the one it replaced is hibernated, its volume kept.
      const restored = JSON.parse(await kubectlOk(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, 'notes-db-2', '-o', 'json'])) as {
        spec: { plugins: { parameters: { serverName: string } }[] };
      };
      expect(restored.spec.plugins[0]?.parameters.serverName).not.toBe(uid);
      const retired = JSON.parse(await kubectlOk(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, 'notes-db-1', '-o', 'json'])) as {
        metadata: { annotations: Record<string, string> };
      };
      expect(retired.metadata.annotations['cnpg.io/hibernation']).toBe('on');
      expect((await kubectl(['get', 'pvc', '-n', namespace, 'notes-db-1-1'])).code).toBe(0);
      expect(await deploymentStatus('notes')).toBe('READY');
      // The rollback past the migration now serves the data from before it, and says so.
      const crossing = async () =>
        ((await api.ok('GET', `/v2/deployments/${uid}`)).conditions as { type: string; status: string; reason: string }[]).find(
          (condition) => condition.type === 'RollbackCrossesMigration',
        );
      expect(
        await eventually(async () => ((await crossing())?.status === 'False' ? crossing() : undefined), 30_000, 'the rollback restored'),
      ).toMatchObject({
        reason: 'RestoredBeforeMigration',
      });

      // Deleting the restore deletes the database it retired, never the serving one.
      expect((await api.call('DELETE', `/v2/deployments/${uid}/restores/${done.id}`)).status).toBe(204);
      await eventually(
        async () => (await kubectl(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, 'notes-db-1'])).code !== 0,
        60_000,
        'the retired Cluster gone',
      );
      expect(await appQuery('notes', 'select body from notes')).toBe('kept');
    },
  );

  it("refuses at apply time what CloudNativePG's webhooks refuse", async () => {
    // An image tagged `latest` says no major version: the validating webhook refuses it.
    const latest = {
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'Cluster',
      metadata: { name: 'latest' },
      spec: { instances: 1, imageName: cnpgPostgresImage.replace(/:15$/, ':latest'), storage: { size: '1Gi' } },
    };
    const refused = await kubectl(['apply', '--server-side', '-n', namespace, '-f', '-'], JSON.stringify(latest));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/spec\.imageName: Invalid value: .*Can't use 'latest' as image tag/);
    expect((await kubectl(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, 'latest'])).code).not.toBe(0);
  });

  it(
    "begins a preview's database as a clone of its deployment's newest backup, taking one when there is none",
    { timeout: 480_000 },
    async () => {
      await eventually(async () => clusterReady('shop-db-1'), 240_000, "shop's Cluster Ready");
      await appQuery('shop', 'create table notes (body text); insert into notes values ($$from shop$$)');
      const preview = `shop-pr-${github!.openPullRequest(shopRepository, { headSha: 'a'.repeat(40), headRef: 'feature' })}`;
      // shop has no backup (its schedule is off): its previews' one is asked for, and the preview waits for it.
      const backupName = 'shop-previews';
      const backup = await eventually(
        async () => {
          const read = await kubectl(['get', 'dbbackup', '-n', namespace, backupName, '-o', 'json']);
          const parsed =
            read.code === 0
              ? (JSON.parse(read.stdout) as { spec: { reason: string }; status?: { phase?: string; backupId?: string } })
              : undefined;
          return parsed?.status?.phase === 'Completed' || parsed?.status?.phase === 'Failed' ? parsed : undefined;
        },
        240_000,
        `DatabaseBackup ${backupName} done`,
      );
      expect(backup).toMatchObject({ spec: { reason: 'before-preview' }, status: { phase: 'Completed' } });
      await eventually(async () => clusterReady(`${preview}-db-1`), 300_000, `${preview}'s Cluster Ready`);
      const shopUid = await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'shop', '-o', 'jsonpath={.metadata.uid}']);
      const cluster = JSON.parse(
        await kubectlOk(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, `${preview}-db-1`, '-o', 'json']),
      ) as {
        spec: { bootstrap: unknown; externalClusters: { plugin: { parameters: unknown } }[] };
      };
      expect(cluster.spec.bootstrap).toMatchObject({ recovery: { recoveryTarget: { backupID: backup.status!.backupId } } });
      expect(cluster.spec.externalClusters[0]!.plugin.parameters).toEqual({ barmanObjectName: 'shop-postgres', serverName: shopUid });
      // The preview reads shop's data with its own password; what it writes stays its own.
      expect(
        await eventually(async () => appQuery(preview, 'select body from notes').catch(() => undefined), 60_000, "the preview's clone"),
      ).toBe('from shop');
      await appQuery(preview, 'insert into notes values ($$from the preview$$)');
      expect(await appQuery('shop', 'select count(*) from notes')).toBe('1');
      github!.closePullRequest(shopRepository, Number(preview.replace('shop-pr-', '')));
      await kubectlOk(['delete', 'deployments.berth.dev', '-n', namespace, 'shop', '--wait=false']);
    },
  );

  it('keeps its data when the Deployment goes, and serves it to a Deployment of the same name', { timeout: 300_000 }, async () => {
    await kubectlOk(['delete', 'deployments.berth.dev', '-n', namespace, 'notes', '--timeout=120s']);
    await eventually(
      async () => (await kubectl(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, 'notes-db-2'])).code !== 0,
      60_000,
      'the Cluster gone',
    );
    // The restored database served last: its claim is the one kept.
    const claim = JSON.parse(await kubectlOk(['get', 'pvc', '-n', namespace, 'notes-db-2-1', '-o', 'json'])) as {
      metadata: { labels: Record<string, string>; ownerReferences?: unknown[] };
    };
    expect(claim.metadata.labels['berth.dev/retained-data']).toBe('notes');
    expect(claim.metadata.ownerReferences ?? []).toEqual([]);

    // Made again, it would take the schedule's first backup at once: not needed here.
    await apply(namespace, notes(await exampleImage('cnpg'), { backups: { schedule: 'off' } }));
    await eventually(async () => (await deploymentStatus('notes')) === 'READY', 240_000, 'the Deployment READY again');
    expect(await eventually(async () => appQuery('notes', 'select body from notes').catch(() => undefined), 30_000, 'the kept row')).toBe(
      'kept',
    );
  });

  it('deletes its data with it when the Deployment says delete, volume directory and all', { timeout: 180_000 }, async () => {
    await kubectlOk([
      'patch',
      'deployments.berth.dev',
      '-n',
      namespace,
      'notes',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { sourceConfig: { databaseRetention: 'delete' } } }),
    ]);
    const volume = (await kubectlOk(['get', 'pvc', '-n', namespace, 'notes-db-2-1', '-o', 'jsonpath={.spec.volumeName}'])).trim();
    const path = (await kubectlOk(['get', 'pv', volume, '-o', 'jsonpath={.spec.hostPath.path}'])).trim();
    expect(existsSync(path)).toBe(true);
    await kubectlOk(['delete', 'deployments.berth.dev', '-n', namespace, 'notes', '--timeout=120s']);
    await eventually(async () => (await kubectl(['get', 'pv', volume])).code !== 0, 90_000, 'the volume deleted');
    expect((await kubectl(['get', 'pvc', '-n', namespace, 'notes-db-2-1'])).code).not.toBe(0);
    expect(existsSync(path)).toBe(false);
  });
});

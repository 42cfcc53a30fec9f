// Organizations' backup store, against a real API server, a running Berth and a real S3-compatible
// server (versitygw, built by scripts/build-versitygw.sh and started here on loopback): each
// organization gets an account and a bucket of its own and the Secret berth-backups with their keys;
// another organization's keys are refused on them; a deleted Secret comes back with new keys (the old
// ones refused); an account or a bucket the store lost is made again at the next pass (the bucket's
// backups kept); a namespace that stops being an organization loses its account, and its bucket's
// backups stay; the admin API listens on a port of its own, and the S3 port serves none of it. Cost: about 20 s; on a machine that has not built versitygw, its build first (CI builds it right after
// the packaging tools, before this suite starts).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import aws4 from 'aws4';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deleteAccount } from '../src/backup-store/admin-client.ts';
import { ensureOrganizationNamespace } from '../src/facade/api-keys.ts';
import { freePort } from '../workbench/controlplane.ts';
import { backupStoreAdminSecret, startBackupStore, type BackupStoreCredentials } from '../workbench/node/backup-store.ts';
import { eventually } from '../workbench/support/poll.ts';
import { apiWrites, difference, parseMetrics, sumOf, type Sample } from '../workbench/support/berth-metrics.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';
import { useOrganization } from './support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from './support/berth-process.ts';

const adminSecret = 'platform-backup-store';
let root: BackupStoreCredentials;
let store: ChildProcess;
let storeUrl: string;
let adminUrl: string;
let storeDir: string;
let berth: BerthProcess;
let operatorNamespace: string;
let first: string;
let second: string;

interface Keys {
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  endpoint: string;
}

/** A signed S3 request to the store: its status and body. */
async function s3(keys: Pick<Keys, 'accessKeyId' | 'secretAccessKey'>, method: string, path: string, body = ''): Promise<[number, string]> {
  const url = new URL(path, storeUrl);
  const signed = aws4.sign(
    { host: url.host, path: `${url.pathname}${url.search}`, method, body, service: 's3', region: 'us-east-1' },
    keys,
  );
  const response = await fetch(url, { method, headers: signed.headers as Record<string, string>, body: body || undefined });
  return [response.status, await response.text()];
}

/** The organization's Secret, decoded, or undefined while there is none. */
async function keysOf(namespace: string): Promise<(Keys & { resourceVersion: string }) | undefined> {
  const got = await kubectl(['get', 'secret', 'berth-backups', '-n', namespace, '-o', 'json']);
  if (got.code !== 0) return undefined;
  const secret = JSON.parse(got.stdout) as { metadata: { resourceVersion: string }; data: Record<string, string> };
  const read = (key: string) => Buffer.from(secret.data[key] ?? '', 'base64').toString();
  return {
    accessKeyId: read('ACCESS_KEY_ID'),
    secretAccessKey: read('ACCESS_SECRET_KEY'),
    bucket: read('BUCKET'),
    endpoint: read('ENDPOINT'),
    resourceVersion: secret.metadata.resourceVersion,
  };
}

/** A change to the namespace, which makes the controller pass over it. */
async function touch(namespace: string): Promise<void> {
  expect((await kubectl(['annotate', 'namespace', namespace, `example.com/touched=${Date.now()}`, '--overwrite'])).code).toBe(0);
}

const keysAppear = (namespace: string, unlike?: string) =>
  eventually(
    async () => {
      const keys = await keysOf(namespace);
      return keys && keys.secretAccessKey !== unlike ? keys : undefined;
    },
    30_000,
    `berth-backups in ${namespace}`,
  );

beforeAll(async () => {
  storeDir = mkdtempSync(join(tmpdir(), 'berth-backup-store-'));
  const listeners = { s3: { host: '127.0.0.1', port: await freePort() }, admin: { host: '127.0.0.1', port: await freePort() } };
  ({ server: store, credentials: root, url: storeUrl, adminUrl } = await startBackupStore(storeDir, listeners));
  await eventually(
    async () => (await s3(root, 'GET', '/').catch(() => [0]))[0] === 200 || undefined,
    20_000,
    'versitygw taking its root keys',
  );

  const organization = await useOrganization('vault');
  ({ operatorNamespace, namespace: first } = organization);
  second = await useNamespace('vault-other');
  await ensureOrganizationNamespace(testKubeConfig(), second, randomBytes(8).toString('hex'));
  const secret = backupStoreAdminSecret(operatorNamespace, adminSecret, root);
  expect((await kubectl(['apply', '-f', '-'], JSON.stringify(secret))).code).toBe(0);
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [operatorNamespace, first, second] }),
    '--backup-store',
    storeUrl,
    '--backup-store-secret',
    adminSecret,
    '--backup-store-admin',
    adminUrl,
    // A platform that blocks its own networks, the store's among them.
    '--organization-policy',
    JSON.stringify({ networkPolicy: { blockedCidrs: ['127.0.0.0/8'], ingressFromNamespaces: [] } }),
  ]);
  await waitReady(berth);
  // On a machine that has not built versitygw yet, its build (modules downloaded, then compiled) comes first.
}, 900_000);

afterAll(async () => {
  await berth?.stop();
  store?.kill();
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
});

describe("organizations' backup store", () => {
  it('gives each organization an account and a bucket of its own, which another organization cannot reach', async () => {
    const [mine, theirs] = await Promise.all([keysAppear(first), keysAppear(second)]);
    expect(mine).toMatchObject({ endpoint: storeUrl, bucket: mine.accessKeyId });
    expect(mine.bucket).toMatch(/^berth-[0-9a-f-]{36}$/);
    expect(theirs.bucket).not.toBe(mine.bucket);
    expect(await s3(mine, 'PUT', `/${mine.bucket}/base/backup.info`, 'a backup')).toEqual([200, '']);
    expect(await s3(mine, 'GET', `/${mine.bucket}/base/backup.info`)).toEqual([200, 'a backup']);
    // The other organization's keys: refused reading, listing, writing and deleting, and making buckets.
    expect((await s3(theirs, 'GET', `/${mine.bucket}/base/backup.info`))[0]).toBe(403);
    expect((await s3(theirs, 'GET', `/${mine.bucket}?list-type=2`))[0]).toBe(403);
    expect((await s3(theirs, 'PUT', `/${mine.bucket}/base/backup.info`, 'tampered'))[0]).toBe(403);
    expect((await s3(theirs, 'DELETE', `/${mine.bucket}/base/backup.info`))[0]).toBe(403);
    expect((await s3(theirs, 'PUT', `/${theirs.bucket}-more`))[0]).toBe(403);
    expect(await s3(mine, 'GET', `/${mine.bucket}/base/backup.info`)).toEqual([200, 'a backup']);
    // Its own keys list its own bucket alone.
    const [, listed] = await s3(theirs, 'GET', '/');
    expect(listed).toContain(theirs.bucket);
    expect(listed).not.toContain(mine.bucket);
    // The S3 port, which pods reach, serves no admin route, even signed by the admin credential.
    const [status, body] = await s3(root, 'PATCH', '/list-users');
    expect(status).not.toBe(200);
    expect(body).not.toContain(mine.accessKeyId);
  });

  it("lets the organization's database pods alone reach the store's port, and only that, inside the networks its policy blocks", async () => {
    const port = Number(new URL(storeUrl).port);
    const specOf = async (policy: string) => {
      const read = await kubectl(['get', 'networkpolicy', policy, '-n', first, '-o', 'jsonpath={.spec}']);
      return read.code === 0 && read.stdout ? (JSON.parse(read.stdout) as { podSelector: unknown; egress: unknown[] }) : undefined;
    };
    const databases = await eventually(() => specOf('berth-organization-databases'), 30_000, "the database pods' NetworkPolicy");
    expect(databases.podSelector).toEqual({ matchExpressions: [{ key: 'cnpg.io/cluster', operator: 'Exists' }] });
    expect(databases.egress).toEqual([{ to: [{ ipBlock: { cidr: '127.0.0.1/32' } }], ports: [{ protocol: 'TCP', port }] }]);
    // The organization's other pods stay out of the blocked networks, the store's included.
    const everyPod = await specOf('berth-organization');
    expect(everyPod?.egress).toHaveLength(3);
    expect(everyPod?.egress).toContainEqual({
      to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['127.0.0.0/8'] } }, { ipBlock: { cidr: '::/0' } }],
    });
  });

  it('writes nothing when a pass finds the Secret as it should be', async () => {
    const before = await keysAppear(first);
    const metrics = async () => parseMetrics(await (await fetch(`http://127.0.0.1:${await berth.probePort()}/metrics`)).text());
    const passes = (samples: Sample[]) => sumOf(samples, 'berth_reconcile_total', { controller: 'backup-store' });
    const earlier = await metrics();
    // A change to the namespace makes a pass, which finds everything as it should be.
    await touch(first);
    const later = await eventually(
      async () => {
        const samples = await metrics();
        return passes(samples) > passes(earlier) ? samples : undefined;
      },
      10_000,
      'a pass of the backup store controller',
    );
    const written = [...difference(apiWrites(later), apiWrites(earlier))].filter(([key, count]) => key.includes('secrets') && count > 0);
    expect(written).toEqual([]);
    expect((await keysOf(first))?.resourceVersion).toBe(before.resourceVersion);
    expect((await s3(before, 'GET', `/${before.bucket}?list-type=2`))[0]).toBe(200);
  });

  it('makes a deleted Secret again with new keys, and refuses the old ones', async () => {
    const before = await keysAppear(second);
    expect((await kubectl(['delete', 'secret', 'berth-backups', '-n', second])).code).toBe(0);
    const after = await keysAppear(second, before.secretAccessKey);
    expect(after.bucket).toBe(before.bucket);
    expect((await s3(after, 'PUT', `/${after.bucket}/x`, 'x'))[0]).toBe(200);
    expect((await s3(before, 'GET', `/${before.bucket}/x`))[0]).toBe(403);
  });

  it('makes again, at the next pass, an account the store lost (new keys) and a bucket it lost (the same keys)', async () => {
    const before = await keysAppear(second);
    expect((await s3(before, 'PUT', `/${before.bucket}/kept`, 'kept'))[0]).toBe(200);
    await deleteAccount({ url: adminUrl, credentials: root }, before.accessKeyId);
    expect((await s3(before, 'GET', `/${before.bucket}/kept`))[0]).toBe(403);
    await touch(second);
    const after = await keysAppear(second, before.secretAccessKey);
    expect(after.bucket).toBe(before.bucket);
    expect(await s3(after, 'GET', `/${after.bucket}/kept`)).toEqual([200, 'kept']);

    for (const key of ['kept', 'x']) expect((await s3(after, 'DELETE', `/${after.bucket}/${key}`))[0]).toBe(204);
    expect((await s3(root, 'DELETE', `/${after.bucket}`))[0]).toBe(204);
    expect((await s3(after, 'PUT', `/${after.bucket}/y`, 'y'))[0]).toBe(404);
    await touch(second);
    await eventually(
      async () => (await s3(after, 'PUT', `/${after.bucket}/y`, 'y'))[0] === 200 || undefined,
      30_000,
      'the bucket made again',
    );
    expect((await keysOf(second))?.resourceVersion).toBe(after.resourceVersion);
  });

  it('takes the account of a namespace that stops being an organization, and keeps its backups', async () => {
    const keys = await keysAppear(first);
    expect((await kubectl(['label', 'namespace', first, 'berth.dev/organization-id-'])).code).toBe(0);
    await eventually(async () => (await keysOf(first)) === undefined || undefined, 30_000, 'berth-backups gone');
    const [status, body] = await s3(keys, 'GET', `/${keys.bucket}/base/backup.info`);
    expect(status).toBe(403);
    expect(body).toContain('InvalidAccessKeyId');
    // The platform's admin credential still reads what was kept.
    expect(await s3(root, 'GET', `/${keys.bucket}/base/backup.info`)).toEqual([200, 'a backup']);
  });
});

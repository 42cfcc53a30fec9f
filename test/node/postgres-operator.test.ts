// The node's Postgres operator (workbench/node/postgres-operator.ts): CloudNativePG, built here from its
// pinned module, makes a Postgres of one instance from a `Cluster`, on a volume of the local-path
// StorageClass that its Postgres (uid 26, never root) can write; the database answers through the
// Cluster's -rw Service with the credentials CloudNativePG made; its admission webhooks, called through
// the node's address with the cluster's CA, refuse what CloudNativePG refuses; the volume's directory goes
// with the Cluster. No Berth: the part under test is what later slices of "Data that lasts" build on.
// Cost: about 60-90 s on the node (initdb and the first start of one Postgres, its volume's helper pods).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpgPostgresImage, localPathStorageClass } from '../../workbench/node/postgres-operator.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, useNamespace } from '../support/cluster.ts';
import { apply, kubectlOk } from './support.ts';

const run = promisify(execFile);
const psql = '/usr/lib/postgresql/15/bin/psql';

let namespace: string;

beforeAll(async () => {
  namespace = await useNamespace('cnpg');
});

afterAll(async () => {
  await kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

interface ClusterStatus {
  phase?: string;
  readyInstances?: number;
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
  },
});

async function clusterStatus(name: string): Promise<ClusterStatus> {
  const out = await kubectlOk(['get', 'clusters.postgresql.cnpg.io', '-n', namespace, name, '-o', 'jsonpath={.status}']);
  return out ? (JSON.parse(out) as ClusterStatus) : {};
}

async function secretValue(name: string, key: string): Promise<string> {
  const out = await kubectlOk(['get', 'secret', '-n', namespace, name, '-o', `jsonpath={.data.${key}}`]);
  return Buffer.from(out, 'base64').toString('utf8');
}

describe("the node's Postgres operator", () => {
  it('makes a Postgres of one instance on a local-path volume, which answers through its -rw Service', { timeout: 300_000 }, async () => {
    const from = Date.now();
    await apply(namespace, cluster('db'));
    await eventually(async () => (await clusterStatus('db')).phase === 'Cluster in healthy state', 240_000, 'the Cluster healthy');
    console.error(`[postgres-operator] a Cluster of one instance healthy ${Math.round((Date.now() - from) / 1000)} s after it was applied`);
    expect((await clusterStatus('db')).readyInstances).toBe(1);

    // The volume is one of local-path's, which its helper pod made.
    const claim = JSON.parse(await kubectlOk(['get', 'pvc', '-n', namespace, 'db-1', '-o', 'json'])) as {
      spec: { storageClassName: string; volumeName: string };
    };
    expect(claim.spec.storageClassName).toBe(localPathStorageClass);

    // Through the Service, as an app would, with the password CloudNativePG made.
    const password = await secretValue('db-app', 'password');
    const host = (await kubectlOk(['get', 'service', '-n', namespace, 'db-rw', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    const query = (sql: string) =>
      run(psql, ['-h', host, '-U', 'app', '-d', 'app', '-tAc', sql], {
        env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '5' },
      });
    await query('create table notes (body text); insert into notes values ($$kept$$)');
    expect((await query('select body from notes')).stdout.trim()).toBe('kept');
  });

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

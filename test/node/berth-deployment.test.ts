// Berth on the real node: a Deployment of the example app that asks for a database and a cache becomes
// pods that run. The app answers through its Service; Postgres (the image built here, on a volume from
// the default StorageClass, as Berth renders it, serving TLS with its own certificate) and Redis run, and the app reaches both with the
// connection settings Berth gives it (passwords from Secrets), from its first moment: its containers
// wait for both to answer. Delete takes the volume too.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../../workbench/support/poll.ts';
import { useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { apply, exampleImage, httpGet, componentPods, kubectlOk, serviceImage } from './support.ts';

let namespace: string;
let berth: BerthProcess;

beforeAll(async () => {
  namespace = await useNamespace('berth-node');
  const operatorNamespace = await useNamespace('berth-system');
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace], components: 'controller' }),
    '--postgres-image',
    await serviceImage('postgres'),
    '--redis-image',
    await serviceImage('redis'),
  ]);
  await waitReady(berth);
});

afterAll(async () => {
  await berth?.stop();
});

/** The first pod of a component of the Deployment `name`, once Ready; if none comes, what the pods were doing. */
async function readyPod(name: string, component: string): Promise<string> {
  try {
    return await eventually(
      async () => {
        const pods = await componentPods<{ metadata: { name: string }; status: { conditions?: { type: string; status: string }[] } }>(
          namespace,
          name,
          component,
        );
        return pods.find((pod) => pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))?.metadata.name;
      },
      240_000,
      `a Ready ${component} pod of ${name}`,
    );
  } catch (error) {
    const pods = await kubectlOk(['get', 'pods', '-n', namespace, '-o', 'wide']).catch((e: Error) => e.message);
    const events = await kubectlOk(['get', 'events', '-n', namespace, '--sort-by=.lastTimestamp']).catch((e: Error) => e.message);
    throw new Error(`${(error as Error).message}\n${pods}\n${events.split('\n').slice(-25).join('\n')}`, { cause: error });
  }
}

describe('a Berth Deployment on the real node', () => {
  it('runs the app, its Postgres on a volume and its Redis, and the app answers through its Service', async () => {
    const image = await exampleImage('berth-v1');
    await apply(namespace, {
      apiVersion: 'berth.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name: 'shop' },
      spec: {
        source: 'external_docker',
        sourceConfig: {
          resourceSpec: {
            minScale: 1,
            maxScale: 1,
            cpu: 0.1,
            memoryMb: 64,
            dbStorageGi: 1,
            dbCpu: 0.1,
            dbMemoryMb: 128,
            redisMemoryMb: 64,
          },
        },
        sourceRevisionConfig: { imageUri: image },
      },
    });
    // Every status the Deployment shows on its way: AWAITING_DATABASE while Postgres does not accept connections yet.
    const statuses: string[] = [];
    const deadline = Date.now() + 240_000;
    const watching = (async () => {
      while (statuses.at(-1) !== 'READY' && Date.now() < deadline) {
        const status = await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'shop', '-o', 'jsonpath={.status.status}']);
        if (status && statuses.at(-1) !== status) statuses.push(status);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await readyPod('shop', 'application');
    const clusterIp = (await kubectlOk(['get', 'service', '-n', namespace, 'shop', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    expect(await eventually(async () => (await httpGet(`http://${clusterIp}/`)).body, 20_000, 'the app through its Service')).toBe(
      'berth-example berth-v1\n',
    );
    // The app's containers start only once its database and cache answer: the first try reaches both.
    expect((await httpGet(`http://${clusterIp}/db`)).body).toBe('db 42\n');
    expect((await httpGet(`http://${clusterIp}/cache`)).body).toBe('cache PONG\n');

    const postgres = await readyPod('shop', 'postgres');
    expect((await kubectlOk(['exec', '-n', namespace, postgres, '--', 'psql', '-U', 'postgres', '-tAc', 'select 1'])).trim()).toBe('1');
    // It serves TLS with its own certificate: a client that asks for it is encrypted (KEDA's trigger does).
    const tls = `PGPASSWORD="$POSTGRES_PASSWORD" psql "host=shop-postgres sslmode=require user=postgres" -tAc 'select ssl from pg_stat_ssl where pid = pg_backend_pid()'`;
    expect((await kubectlOk(['exec', '-n', namespace, postgres, '--', 'sh', '-c', tls])).trim()).toBe('t');
    expect((await kubectlOk(['get', 'pvc', '-n', namespace, '-o', 'jsonpath={.items[*].status.phase}'])).trim()).toBe('Bound');

    const redis = await readyPod('shop', 'redis');
    // Redis wants the password of its Secret; the app has it, in REDIS_URI, as it has DATABASE_URI's.
    expect((await kubectlOk(['exec', '-n', namespace, redis, '--', 'redis-cli', 'ping'])).trim()).toMatch(/NOAUTH/);

    await eventually(
      async () =>
        (await kubectlOk([
          'get',
          'deployments.berth.dev',
          '-n',
          namespace,
          'shop',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
        ])) === 'True',
      60_000,
      'the Berth Deployment Ready',
    );
    expect(await kubectlOk(['get', 'deployments.berth.dev', '-n', namespace, 'shop', '-o', 'jsonpath={.status.url}'])).toBe(
      `http://${clusterIp}`,
    );
    await watching;
    expect(statuses).toContain('AWAITING_DATABASE');
    expect(statuses.at(-1)).toBe('READY');
    // Postgres' first start (initdb) on a node the other files keep busy can take minutes.
  }, 300_000);

  it('runs the queue worker from the same image with its own command and environment, changed in place with no new revision', async () => {
    const revisions = async () =>
      (await kubectlOk(['get', 'revisions.berth.dev', '-n', namespace, '-o', 'name'])).trim().split('\n').filter(Boolean);
    const before = await revisions();
    const queueWorker = (jobs: string) => ({
      spec: {
        sourceConfig: {
          resourceSpec: { queueMinScale: 1, queueMaxScale: 1, queueCpu: 0.05, queueMemoryMb: 32 },
          queueWorker: { command: ['/app'], args: ['worker'], env: [{ name: 'N_JOBS', value: jobs }] },
        },
      },
    });
    await kubectlOk(['patch', 'deployments.berth.dev', '-n', namespace, 'shop', '--type', 'merge', '-p', JSON.stringify(queueWorker('4'))]);
    const workerLog = (expected: string) =>
      eventually(
        async () => {
          const pod = await readyPod('shop', 'queue-worker');
          const log = await kubectlOk(['logs', '-n', namespace, pod, '-c', 'queue']);
          return log.includes(expected) && log.includes('worker: broker PONG') ? log : undefined;
        },
        120_000,
        `the queue worker logging ${expected} and reaching its broker`,
      );
    const log = await workerLog('worker started (BERTH_ROLE=queue, N_JOBS=4)');
    expect(log).toContain('berth-example berth-v1 worker started');
    await kubectlOk(['patch', 'deployments.berth.dev', '-n', namespace, 'shop', '--type', 'merge', '-p', JSON.stringify(queueWorker('8'))]);
    await workerLog('worker started (BERTH_ROLE=queue, N_JOBS=8)');
    expect(await revisions()).toEqual(before);
  }, 300_000);

  it('takes the app, its database and its volume down on delete, once its data is to go with it', async () => {
    // The default keeps the data: the user says it goes (the StatefulSet's claim policy follows).
    const patch = { spec: { sourceConfig: { databaseRetention: 'delete' } } };
    await kubectlOk(['patch', 'deployments.berth.dev', '-n', namespace, 'shop', '--type', 'merge', '-p', JSON.stringify(patch)]);
    await eventually(
      async () =>
        (await kubectlOk([
          'get',
          'statefulset',
          '-n',
          namespace,
          'shop-postgres',
          '-o',
          'jsonpath={.spec.persistentVolumeClaimRetentionPolicy.whenDeleted}',
        ])) === 'Delete' || undefined,
      60_000,
      'the claim policy Delete',
    );
    await kubectlOk(['delete', 'deployments.berth.dev', '-n', namespace, 'shop', '--wait=true', '--timeout=120s']);
    await eventually(
      async () => (await kubectlOk(['get', 'pvc', '-n', namespace, '-o', 'name'])).trim() === '',
      60_000,
      'the database volume claim gone',
    );
    await eventually(
      async () => (await kubectlOk(['get', 'pods', '-n', namespace, '-l', 'berth.dev/deployment=shop', '-o', 'name'])).trim() === '',
      60_000,
      'no pod of shop left',
    );
  });
});

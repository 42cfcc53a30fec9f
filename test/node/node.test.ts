// The real node: pods pulled from the local registry run, answer, log, fail with the kubelet's reasons,
// keep data on volumes, find each other by DNS; Postgres and Redis images built here serve clients.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../../workbench/support/poll.ts';
import { externalWaitScript } from '../../src/reconcilers/deployment/render/application.ts';
import { kubectl, useNamespace } from '../support/cluster.ts';
import { nodeName, registryAddress } from '../../workbench/node/network.ts';
import { prepareNodeHost } from '../../workbench/node/node.ts';
import {
  apply,
  examplePod,
  exampleImage,
  httpGet,
  isReady,
  kubectlOk,
  podStatus,
  service,
  serviceImage,
  waitForReadyPod,
  waitingReason,
} from './support.ts';

let namespace: string;
let app: string;

beforeAll(async () => {
  namespace = await useNamespace('node');
  app = await exampleImage('node-v1');
});

/** A pod that only sleeps, from an image with busybox: a client for the others. */
function clientPod(name: string, image: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'client', image, command: ['/bin/busybox', 'sleep', '3600'] }],
    },
  };
}

describe('the node', () => {
  it('is the only one on this machine: a second start is refused before it changes anything', async () => {
    const other = mkdtempSync(join(tmpdir(), 'berth-second-node-'));
    try {
      await expect(
        prepareNodeHost(other, { masquerade: false, keepVolumes: false, kubeBin: inject('controlPlaneBin'), log: () => {} }),
      ).rejects.toThrow(/a node already runs on this machine \(process \d+, data in .*\): one node per machine/);
      expect(readdirSync(other)).toEqual([]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('is Ready', async () => {
    const node = JSON.parse(await kubectlOk(['get', 'node', nodeName, '-o', 'json'])) as {
      status: { conditions: { type: string; status: string }[] };
    };
    expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('runs a pod pulled by digest from the local registry; kubectl logs and exec reach it', async () => {
    expect(app).toMatch(new RegExp(`^${registryAddress}/berth-example@sha256:[0-9a-f]{64}$`));
    await apply(namespace, examplePod('hello', app));
    const status = await waitForReadyPod(namespace, 'hello');
    expect(status.phase).toBe('Running');
    await eventually(
      async () => (await kubectlOk(['logs', '-n', namespace, 'hello'])).includes('berth-example node-v1 listening on :8000'),
      10_000,
      'the log line',
    );
    expect((await kubectlOk(['exec', '-n', namespace, 'hello', '--', '/app', 'version'])).trim()).toBe('node-v1');
    expect((await httpGet(`http://${status.podIP}:8000/`)).body).toBe('berth-example node-v1\n');
  });

  it('answers the host through a ClusterIP Service, and another pod through its DNS name', async () => {
    await apply(
      namespace,
      examplePod('web', app, { labels: { role: 'web' } }),
      service('web', { role: 'web' }, 8000),
      examplePod('client', app),
    );
    await waitForReadyPod(namespace, 'web');
    const clusterIp = (await kubectlOk(['get', 'service', '-n', namespace, 'web', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    const fromHost = await eventually(async () => (await httpGet(`http://${clusterIp}:8000/`)).body, 20_000, 'the Service from the host');
    expect(fromHost).toBe('berth-example node-v1\n');

    await waitForReadyPod(namespace, 'client');
    const fromPod = await eventually(
      async () => kubectlOk(['exec', '-n', namespace, 'client', '--', '/app', 'get', `http://web.${namespace}.svc.cluster.local:8000/`]),
      20_000,
      'the Service by DNS name from a pod',
    );
    expect(fromPod).toBe('berth-example node-v1\n');
  });

  it('binds a PersistentVolumeClaim from the default StorageClass and keeps its data across a pod restart', async () => {
    const image = await serviceImage('redis');
    const writer = (name: string, command: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        terminationGracePeriodSeconds: 0,
        restartPolicy: 'Never',
        securityContext: { runAsUser: 0 },
        containers: [
          { name: 'c', image, command: ['/bin/busybox', 'sh', '-c', command], volumeMounts: [{ name: 'data', mountPath: '/data' }] },
        ],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
      },
    });
    await apply(namespace, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Mi' } } },
    });
    await eventually(
      async () => (await kubectlOk(['get', 'pvc', '-n', namespace, 'data', '-o', 'jsonpath={.status.phase}'])) === 'Bound',
      30_000,
      'the claim Bound',
    );
    await apply(namespace, writer('write', 'echo kept > /data/file'));
    await eventually(async () => (await podStatus(namespace, 'write')).phase === 'Succeeded', 30_000, 'the writer done');
    await kubectlOk(['delete', 'pod', '-n', namespace, 'write', '--wait=true']);
    await apply(namespace, writer('read', 'cat /data/file'));
    await eventually(async () => (await podStatus(namespace, 'read')).phase === 'Succeeded', 30_000, 'the reader done');
    expect((await kubectlOk(['logs', '-n', namespace, 'read'])).trim()).toBe('kept');
  });

  it('keeps a pod out of Ready while its readiness probe fails', async () => {
    await apply(
      namespace,
      examplePod('probe-ok', app, { readinessPath: '/ok' }),
      examplePod('probe-missing', app, { readinessPath: '/missing' }),
    );
    await waitForReadyPod(namespace, 'probe-ok');
    // The two pods start independently: wait for the kubelet to have probed the failing one and said so.
    await eventually(
      async () =>
        (await kubectlOk([
          'get',
          'events',
          '-n',
          namespace,
          '--field-selector',
          'involvedObject.name=probe-missing,reason=Unhealthy',
          '-o',
          'name',
        ])) !== '',
      60_000,
      'a failed readiness probe on probe-missing',
    );
    const status = await podStatus(namespace, 'probe-missing');
    expect(status.phase).toBe('Running');
    expect(status.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(isReady(status)).toBe(false);
  });

  it('reports ErrImagePull, then ImagePullBackOff, for an image the registry does not have', async () => {
    await apply(namespace, examplePod('missing-image', `${registryAddress}/berth/does-not-exist:1`));
    await waitingReason(namespace, 'missing-image', ['ErrImagePull', 'ImagePullBackOff']);
    expect(await waitingReason(namespace, 'missing-image', ['ImagePullBackOff'])).toBe('ImagePullBackOff');
  });

  it('reports CrashLoopBackOff for a container that keeps exiting', async () => {
    await apply(namespace, examplePod('crashing', app, { args: ['fail'] }));
    expect(await waitingReason(namespace, 'crashing', ['CrashLoopBackOff'], 90_000)).toBe('CrashLoopBackOff');
    const container = (await podStatus(namespace, 'crashing')).containerStatuses?.[0];
    expect(container?.restartCount).toBeGreaterThan(0);
    // The previous container's log, once the kubelet has settled which container is the previous one.
    await eventually(
      async () => (await kubectlOk(['logs', '-n', namespace, 'crashing', '--previous'])).includes('failing on purpose'),
      30_000,
      "the crashed container's log",
    );
  });
});

describe('the images built from packages', () => {
  it('Postgres starts on a new volume and accepts a password connection from another pod', async () => {
    const image = await serviceImage('postgres');
    await apply(
      namespace,
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'pg' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '100Mi' } } },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'pg', labels: { role: 'pg' } },
        spec: {
          terminationGracePeriodSeconds: 2,
          // The volume belongs to root, as a new host-path volume does: the image hands it to postgres.
          containers: [
            {
              name: 'postgres',
              image,
              env: [
                { name: 'POSTGRES_PASSWORD', value: 'node-test-secret' },
                { name: 'POSTGRES_DB', value: 'app' },
                { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
                // A throwaway database: initdb need not wait for the disk, which a loaded node makes slow.
                { name: 'POSTGRES_INITDB_ARGS', value: '--no-sync' },
              ],
              readinessProbe: { tcpSocket: { port: 5432 }, periodSeconds: 1 },
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
            },
          ],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'pg' } }],
        },
      },
      service('pg', { role: 'pg' }, 5432),
      clientPod('pg-client', image),
    );
    await waitForReadyPod(namespace, 'pg', 180_000);
    await waitForReadyPod(namespace, 'pg-client');
    const answer = await eventually(
      async () =>
        kubectlOk([
          'exec',
          '-n',
          namespace,
          'pg-client',
          '--',
          'psql',
          `postgresql://postgres:node-test-secret@pg.${namespace}.svc:5432/app`,
          '-tAc',
          'select 40 + 2',
        ]),
      30_000,
      'psql through the Service',
    );
    expect(answer.trim()).toBe('42');
  }, 240_000);

  it("waits in the image for a team's own Postgres, and ends with its words, the URI's password masked", async () => {
    // The script of an app's wait for a database named by sourceConfig.externalDatabase, in the image it runs in.
    const wait = async (uri: string) => {
      // The image has no env(1): the variables are exported by a shell, from its arguments.
      const run = 'export URI="$1" SECRET="$2" KEY="$3" TRIES=2; exec sh -c "$4"';
      const args = [
        'exec',
        '-n',
        namespace,
        'pg-client',
        '--',
        'sh',
        '-c',
        run,
        'wait',
        uri,
        'team-db',
        'uri',
        externalWaitScript('postgres'),
      ];
      const { code, stderr } = await kubectl(args);
      return code === 0 ? 'answered' : stderr;
    };
    expect(await wait(`postgresql://postgres:node-test-secret@pg.${namespace}.svc:5432/app`)).toBe('answered');
    const wrong = await wait(`postgresql://postgres:wrong-secret@pg.${namespace}.svc:5432/app`);
    expect(wrong).toContain('The database of spec.sourceConfig.externalDatabase.postgresUri (Secret "team-db", key "uri") does not answer');
    expect(wrong).toContain('password authentication failed for user "postgres"');
    // What psql echoes of the URI (here a query parameter holding the password) is masked.
    const echoed = await wait(`postgresql://postgres:wrong-secret@pg.${namespace}.svc:5432/app?sslmode=wrong-secret`);
    expect(echoed).toContain('invalid sslmode value: "***"');
    expect(echoed).not.toContain('wrong-secret');
    // A value that is not a URI is never echoed: it may be a whole connection string with its password.
    const notUri = await wait('host=pg password=wrong-secret');
    expect(notUri).toContain('is not a postgres:// URI');
    expect(notUri).not.toContain('wrong-secret');
  });

  it('Redis starts and answers another pod', async () => {
    const image = await serviceImage('redis');
    await apply(
      namespace,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'redis', labels: { role: 'redis' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'redis',
              image,
              env: [{ name: 'REDIS_PASSWORD', value: 'node-test-secret' }],
              readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 1 },
            },
          ],
        },
      },
      service('redis', { role: 'redis' }, 6379),
      clientPod('redis-client', image),
    );
    await waitForReadyPod(namespace, 'redis');
    await waitForReadyPod(namespace, 'redis-client');
    const ping = async (password?: string) =>
      kubectlOk([
        'exec',
        '-n',
        namespace,
        'redis-client',
        '--',
        'redis-cli',
        '-h',
        `redis.${namespace}.svc`,
        ...(password ? ['-a', password, '--no-auth-warning'] : []),
        'ping',
      ]);
    expect((await eventually(() => ping('node-test-secret'), 30_000, 'redis-cli through the Service')).trim()).toBe('PONG');
    expect((await ping()).trim()).toMatch(/NOAUTH/);
  });
});

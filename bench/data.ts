// `npm run bench:data [-- --threads N --rounds N]`: a deployment's data on CloudNativePG on the real node,
// each figure beside a baseline measured in the same run:
// - a backup of a database holding N threads (rows of a thread's size, ~2 KiB of JSON), asked for through
//   the HTTP API until COMPLETED, against pg_dump of the same database through the same Service;
// - a restore of that backup (backup_first false: the restore alone) until the deployment serves the
//   restored database, against the same deployment's first database made from nothing (created to READY);
// - what the backup before a revision that migrates adds to its rollout: from the PATCH to its pre-deploy
//   Job, with backups.before_revision required against off (the example app has no shell, so the command
//   then fails; what is measured ends before it).
// Needs root and the cached binaries and images (the node suite or `npm start` builds them).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { installCrds } from '../workbench/install-crds.ts';
import { startLocalCluster, type LocalCluster } from '../workbench/local-cluster.ts';
import { nodeBinaries, nodeDirs, pushServiceImages } from '../workbench/node/node.ts';
import { pushExampleApp } from '../workbench/node/example-app.ts';
import { backupStoreAdminSecret, backupStoreAdminUrl, backupStoreUrl, prepareBackupStore } from '../workbench/node/backup-store.ts';
import { cnpgPostgresImage, localPathStorageClass } from '../workbench/node/postgres-operator.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../src/facade/api-keys.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { fieldManager } from '../src/api/group.ts';
import { startBerthProcess } from './berth-process.ts';
import { percentile } from './stats.ts';

const run = promisify(execFile);
/** The members of the HTTP API's answers this reads: all strings. */
type Answer = Partial<Record<string, string>>;
const pgBin = '/usr/lib/postgresql/15/bin';
const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
    out: { type: 'string', default: 'bench/results/data.json' },
  },
});
const threads = Number(values.threads);
const rounds = Number(values.rounds);
const log = (message: string) => process.stderr.write(`[bench:data ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]) => percentile(xs, 50);

/** Polls `check` every 250 ms until it answers, for at most `timeoutMs`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Milliseconds `act` takes until `done` answers. */
async function timed(what: string, act: () => Promise<unknown>, done: () => Promise<boolean>): Promise<number> {
  const began = performance.now();
  await act();
  await until(what, async () => ((await done()) ? true : undefined));
  return performance.now() - began;
}

let cluster: LocalCluster | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-data-'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the cluster`);
    void (cluster?.stop() ?? Promise.resolve()).finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
}
try {
  cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.controlPlane.kubeconfigPath);
  await installCrds(kc, join(import.meta.dirname, '../crds'));
  const operatorNamespace = `bench-data-op-${Date.now()}`;
  const namespace = `bench-data-${Date.now()}`;
  await kubeRequest(kc, { method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: operatorNamespace } } });
  const organization = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, organization);
  const { key } = await ensureApiKey(kc, operatorNamespace, [organization]);
  const store = prepareBackupStore(join(nodeDirs(dataDir).root, 'backup-store'));
  await applyObject(kc, backupStoreAdminSecret(operatorNamespace, 'backup-store-admin', store.credentials), fieldManager);
  const services = await pushServiceImages(nodeBinaries());
  const crane = join(nodeBinaries(), 'crane');
  const images = await Promise.all(['cnpg', 'cnpg-2', 'cnpg-3'].map((version) => pushExampleApp(crane, cluster!.node!.registry, version)));
  const berth = await startBerthProcess({
    kubeconfigPath: cluster.controlPlane.kubeconfigPath,
    operatorNamespace,
    watchNamespaces: [operatorNamespace, namespace],
    components: ['controller', 'facade'],
    logFile: join(dataDir, 'berth.log'),
    env: {
      BERTH_BACKUP_STORE: backupStoreUrl,
      BERTH_BACKUP_STORE_SECRET: 'backup-store-admin',
      BERTH_BACKUP_STORE_ADMIN: backupStoreAdminUrl,
      BERTH_DATABASE_ENGINE: 'cnpg',
      BERTH_CNPG_POSTGRES_IMAGE: cnpgPostgresImage,
      BERTH_CNPG_STORAGE_CLASS: localPathStorageClass,
      BERTH_BACKUP_SCHEDULE: 'off',
      BERTH_POSTGRES_IMAGE: services.postgres,
      BERTH_REDIS_IMAGE: services.redis,
    },
  });
  try {
    const api = berth.facadeUrl!;
    const headers = { 'x-api-key': key, 'x-tenant-id': organization, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${api}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return (text ? JSON.parse(text) : {}) as Answer;
    };

    // A deployment's first database, from nothing to serving: the restore's baseline.
    let id = '';
    const startMs = await timed(
      'the deployment READY',
      async () => {
        id =
          (
            await call('POST', '/v2/deployments', {
              name: 'data',
              source: 'external_docker',
              source_config: {
                resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64, db_storage_gi: 1, db_cpu: 0.1, db_memory_mb: 256 },
              },
              source_revision_config: { image_uri: images[0] },
            })
          ).id ?? '';
      },
      async () => (await call('GET', `/v2/deployments/${id}`)).status === 'READY',
    );
    log(`a deployment on a new database READY in ${seconds(startMs)}`);

    const secret = await kubeRequest<{ data: { password: string } }>(kc, {
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/secrets/data-postgres`,
    });
    const service = await kubeRequest<{ spec: { clusterIP: string } }>(kc, {
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/services/data-postgres`,
    });
    const pg = { PGHOST: service.spec.clusterIP, PGUSER: 'postgres', PGDATABASE: 'postgres', PGPASSWORD: atob(secret.data.password) };
    const sql = async (statement: string) =>
      (await run(join(pgBin, 'psql'), ['-tAc', statement], { env: { ...process.env, ...pg, PGCONNECT_TIMEOUT: '5' } })).stdout.trim();
    await until('the database through its Service', () => sql('select 1'));
    await sql(
      `create table threads (id uuid primary key, body jsonb); insert into threads select gen_random_uuid(), ` +
        `jsonb_build_object('values', repeat('x', 2000), 'n', g) from generate_series(1, ${threads}) g`,
    );

    // CloudNativePG's own times of the backup (whole seconds): how much of it is barman-cloud's.
    const backup = { berth: [] as number[], dump: [] as number[], barmanMs: [] as number[] };
    const restore: number[] = [];
    let lastBackup: Answer = {};
    for (let round = 0; round < rounds; round++) {
      let asked: Answer = {};
      backup.berth.push(
        await timed(
          'the backup COMPLETED',
          async () => (asked = await call('POST', `/v2/deployments/${id}/backups`)),
          async () => {
            lastBackup = await call('GET', `/v2/deployments/${id}/backups/${asked.id}`);
            if (lastBackup.status === 'FAILED') throw new Error(`the backup failed: ${lastBackup.status_message}`);
            return lastBackup.status === 'COMPLETED';
          },
        ),
      );
      backup.barmanMs.push(Date.parse(lastBackup.stopped_at ?? '') - Date.parse(lastBackup.started_at ?? ''));
      const began = performance.now();
      await run(join(pgBin, 'pg_dump'), ['-Fc', '--no-sync', '-f', '/dev/null'], { env: { ...process.env, ...pg } });
      backup.dump.push(performance.now() - began);
      log(
        `round ${round + 1}: a backup of ${threads} threads ${seconds(backup.berth.at(-1)!)} (CloudNativePG's start to stop ${seconds(backup.barmanMs.at(-1)!)}), pg_dump ${seconds(backup.dump.at(-1)!)}`,
      );
    }
    for (let round = 0; round < rounds; round++) {
      let asked: Answer = {};
      restore.push(
        await timed(
          'the restore COMPLETED',
          async () => (asked = await call('POST', `/v2/deployments/${id}/backups/${lastBackup.id}/restore`, { backup_first: false })),
          async () => {
            const read = await call('GET', `/v2/deployments/${id}/restores/${asked.id}`);
            if (read.status === 'FAILED') throw new Error(`the restore failed: ${read.status_message}`);
            return read.status === 'COMPLETED';
          },
        ),
      );
      const count = await until('the restored threads', async () => {
        const found = await sql('select count(*) from threads');
        return found === String(threads) ? found : undefined;
      });
      log(`round ${round + 1}: a restore of ${count} threads switched in ${seconds(restore.at(-1)!)}`);
      // The database it retired goes with it, so the next round restores into that name again.
      await call('DELETE', `/v2/deployments/${id}/restores/${asked.id}`);
      await until('the retired database gone', async () =>
        (await fetch(`${api}/v2/deployments/${id}/restores/${asked.id}`, { headers })).status === 404 ? true : undefined,
      );
    }

    // From the PATCH of a revision that migrates to its pre-deploy Job, with the backup before it and without.
    const toPreDeploy = async (image: string, beforeRevision: 'required' | 'off') => {
      let revision = '';
      return timed(
        'the pre-deploy Job',
        async () =>
          (revision =
            (
              await call('PATCH', `/v2/deployments/${id}`, {
                source_config: { pre_deploy_command: 'migrate', backups: { before_revision: beforeRevision } },
                source_revision_config: { image_uri: image },
              })
            ).latest_revision_id ?? ''),
        async () => {
          const name = (await call('GET', `/v2/deployments/${id}/revisions/${revision}`)).name;
          await kubeRequest(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${namespace}/jobs/${name}-pre-deploy` });
          return true;
        },
      );
    };
    const gatedMs = await toPreDeploy(images[1]!, 'required');
    const ungatedMs = await toPreDeploy(images[2]!, 'off');
    log(`a revision that migrates to its pre-deploy Job: ${seconds(gatedMs)} with its backup, ${seconds(ungatedMs)} without`);

    const summary = {
      machine: { cpus: cpus().length },
      threads,
      rounds,
      startMs,
      backup: { ...backup, ratioMedian: median(backup.berth) / median(backup.dump) },
      restore: { berth: restore, ratioMedian: median(restore) / startMs },
      beforeRevision: { gatedMs, ungatedMs, addedMs: gatedMs - ungatedMs, ratio: gatedMs / ungatedMs },
    };
    mkdirSync(dirname(values.out), { recursive: true });
    writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`);
    log(
      `backup ${seconds(median(backup.berth))} vs pg_dump ${seconds(median(backup.dump))} (ratio ${summary.backup.ratioMedian.toFixed(2)}); ` +
        `restore ${seconds(median(restore))} vs a new database ${seconds(startMs)} (ratio ${summary.restore.ratioMedian.toFixed(2)}); ` +
        `the backup before a revision adds ${seconds(summary.beforeRevision.addedMs)} (ratio ${summary.beforeRevision.ratio.toFixed(2)})`,
    );
  } finally {
    await berth.stop();
  }
} finally {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

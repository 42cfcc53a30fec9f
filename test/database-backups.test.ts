// Database backups and restores through the HTTP API and kubectl, with the Deployment, DatabaseBackup and
// DatabaseRestore controllers in-process against the control plane's API server, which serves no
// CloudNativePG: every backup and restore here ends Failed saying so, which proves the kinds, their
// routes, their listing under the Deployment and their refusals. A backup taken and a restore made
// through CloudNativePG are proven on the node (test/node/postgres-operator.test.ts).
// Cost: a few seconds on the control plane, no node.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBackupKind, group, version, type DatabaseBackup } from '../src/api/index.ts';
import { registerDatabaseBackupController } from '../src/reconcilers/database-backup/index.ts';
import { registerDatabaseRestoreController } from '../src/reconcilers/database-restore/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type TestFacade } from './support/facade.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

let t: TestFacade;
let manager: Manager;

beforeAll(async () => {
  manager = new Manager({
    kubeConfig: testKubeConfig(),
    healthPort: false,
    logger: createLogger({ level: 'silent' }),
    processMetrics: false,
  });
  t = await startTestFacade({ manager });
  const namespaces = [t.org.namespace, t.otherOrg.namespace];
  const { informers } = registerDeploymentControllers(manager, { namespaces });
  registerDatabaseBackupController(manager, informers, { namespaces, databaseEngine: 'statefulset' });
  registerDatabaseRestoreController(manager, informers, {
    namespaces,
    databaseEngine: 'statefulset',
    clusterSettings: { images: {}, requestScale: 1 },
  });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
});

async function createDeployment(name: string): Promise<string> {
  const response = await t.call('POST', '/v2/deployments', {
    body: { name, source: 'external_docker', source_revision_config: { image_uri: 'nginx:1.27' } },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

async function readBackup(namespace: string, name: string): Promise<DatabaseBackup> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural: databaseBackupKind.plural, name })) as DatabaseBackup;
}

const refusal = /This cluster serves no CloudNativePG Backup or no barman-cloud ObjectStore/;

describe('/v2/deployments/{id}/backups', () => {
  it('asks for a backup (201, PENDING), which ends FAILED saying CloudNativePG is missing, and lists it newest first', async () => {
    const id = await createDeployment('notes');
    const first = await t.call('POST', `/v2/deployments/${id}/backups`);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      deployment_id: id,
      reason: 'manual',
      revision_id: null,
      name: expect.stringMatching(/^notes-backup-/),
    });
    expect(['PENDING', 'FAILED']).toContain(first.body.status);

    const read = async () => (await t.call('GET', `/v2/deployments/${id}/backups/${first.body.id}`)).body;
    await eventually(async () => (await read()).status === 'FAILED', 20_000, 'the backup refused');
    expect((await read()).status_message).toMatch(refusal);

    const second = await t.call('POST', `/v2/deployments/${id}/backups`);
    expect(second.status).toBe(201);
    const listed = await t.call('GET', `/v2/deployments/${id}/backups?limit=1`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ resources: [{ id: second.body.id }], offset: 1 });
    const rest = await t.call('GET', `/v2/deployments/${id}/backups?offset=1`);
    expect(rest.body.resources.map((backup: { id: string }) => backup.id)).toEqual([first.body.id]);

    // The object behind it: a DatabaseBackup under the Deployment, Stalled with the reason, and a Warning Event.
    const stored = await readBackup(t.org.namespace, first.body.name);
    expect(stored.spec).toEqual({ deploymentName: 'notes', reason: 'manual' });
    expect(stored.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'notes', uid: id })]);
    expect(stored.status?.conditions?.find((condition) => condition.type === 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'BackupsNeedCloudNativePG',
    });
    await eventually(
      async () =>
        (
          await core.listNamespacedEvent({ namespace: t.org.namespace, fieldSelector: `involvedObject.name=${first.body.name}` })
        ).items.some((event) => event.type === 'Warning' && event.reason === 'BackupsNeedCloudNativePG'),
      10_000,
      'a Warning Event on the backup',
    );
  });

  it("answers 404 for another organization's deployment, and for a backup of another deployment", async () => {
    const id = await createDeployment('ledger');
    const other = await createDeployment('journal');
    const backup = await t.call('POST', `/v2/deployments/${id}/backups`);
    expect(backup.status).toBe(201);
    expect((await t.call('GET', `/v2/deployments/${id}/backups`, { key: t.otherOrg.key })).status).toBe(404);
    expect((await t.call('POST', `/v2/deployments/${id}/backups`, { key: t.otherOrg.key })).status).toBe(404);
    const elsewhere = await t.call('GET', `/v2/deployments/${other}/backups/${backup.body.id}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.detail).toBe(`Backup ${backup.body.id} not found`);
    expect((await t.call('GET', `/v2/deployments/${id}/backups/not-a-uuid`)).status).toBe(422);
  });
});

describe('DatabaseBackup with kubectl', () => {
  const apply = (name: string, spec: Record<string, unknown>) =>
    kubectl(
      ['apply', '--server-side', '-n', t.org.namespace, '-f', '-'],
      JSON.stringify({ apiVersion: `${group}/${version}`, kind: 'DatabaseBackup', metadata: { name }, spec }),
    );

  it('waits for the Deployment it names, then lists under it in the HTTP API', async () => {
    expect((await apply('later-first', { deploymentName: 'later' })).code).toBe(0);
    await eventually(
      async () =>
        (await readBackup(t.org.namespace, 'later-first')).status?.conditions?.some((c) => c.reason === 'DeploymentNotFound') ?? false,
      20_000,
      'the backup waiting for its Deployment',
    );
    expect((await readBackup(t.org.namespace, 'later-first')).status?.phase).toBe('Pending');

    const id = await createDeployment('later');
    await eventually(
      async () => (await readBackup(t.org.namespace, 'later-first')).status?.phase === 'Failed',
      20_000,
      'the backup refused',
    );
    const listed = await t.call('GET', `/v2/deployments/${id}/backups`);
    expect(listed.body.resources).toEqual([expect.objectContaining({ name: 'later-first', reason: 'manual', status: 'FAILED' })]);
    const table = await kubectl(['get', 'dbbackup', '-n', t.org.namespace, 'later-first']);
    expect(table.stdout).toMatch(/NAME\s+DEPLOYMENT\s+REASON\s+PHASE\s+ENDED\s+AGE\nlater-first\s+later\s+manual\s+Failed\s+/);
  });

  it('refuses a changed spec and an unknown reason at apply time', async () => {
    expect((await apply('fixed', { deploymentName: 'notes' })).code).toBe(0);
    const changed = await apply('fixed', { deploymentName: 'ledger' });
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toContain('spec is immutable: a backup is taken once, make a new DatabaseBackup');
    const unknown = await apply('odd', { deploymentName: 'notes', reason: 'whenever' });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/spec\.reason: Unsupported value: "whenever"/);
  });
});

describe('sourceConfig.backups', () => {
  it('takes a five-field schedule or off and a before-revision policy, and refuses the rest per member', async () => {
    const id = await createDeployment('scheduled');
    const patch = (backups: unknown) => t.call('PATCH', `/v2/deployments/${id}`, { body: { source_config: { backups } } });
    const taken = await patch({ schedule: '30 2 * * *', before_revision: 'best_effort' });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.source_config.backups).toEqual({ schedule: '30 2 * * *', before_revision: 'best_effort' });
    expect((await patch({ schedule: 'off' })).status).toBe(200);

    for (const [backups, member] of [
      [{ schedule: '61 * * * *' }, 'schedule'],
      [{ schedule: '* * * * * *' }, 'schedule'],
      [{ before_revision: 'sometimes' }, 'before_revision'],
    ] as const) {
      const refused = await patch(backups);
      expect(refused.status, JSON.stringify(backups)).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'source_config', 'backups', member]);
    }
    expect((await t.call('GET', `/v2/deployments/${id}`)).body.source_config.backups).toEqual({
      schedule: 'off',
    });
    // Its revisions name no backup: none was due.
    const revisions = await t.call('GET', `/v2/deployments/${id}/revisions`);
    expect(revisions.body.resources[0].backup_id).toBeNull();
  });
});

describe('/v2/deployments/{id}/backups/{backup_id}/restore and /restores', () => {
  it('asks for a restore (202, PENDING), which ends FAILED saying CloudNativePG is missing, and lists, reads and deletes it', async () => {
    const id = await createDeployment('atlas');
    const backup = await t.call('POST', `/v2/deployments/${id}/backups`);
    expect(backup.status).toBe(201);
    const asked = await t.call('POST', `/v2/deployments/${id}/backups/${backup.body.id}/restore`, { body: { backup_first: false } });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toMatchObject({
      deployment_id: id,
      backup_id: backup.body.id,
      backup_first: false,
      backup_before_id: null,
      name: expect.stringMatching(/^atlas-restore-/),
    });
    const read = async () => (await t.call('GET', `/v2/deployments/${id}/restores/${asked.body.id}`)).body;
    await eventually(async () => (await read()).status === 'FAILED', 20_000, 'the restore refused');
    expect(await read()).toMatchObject({ status_message: expect.stringContaining('not on CloudNativePG'), database_name: null });
    const stored = (await custom.getNamespacedCustomObject({
      group,
      version,
      namespace: t.org.namespace,
      plural: 'databaserestores',
      name: asked.body.name,
    })) as { spec: unknown; metadata: { ownerReferences: unknown[] } };
    expect(stored.spec).toEqual({ deploymentName: 'atlas', backupName: backup.body.name, backupFirst: false });
    expect(stored.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'atlas', uid: id })]);
    expect((await t.call('GET', `/v2/deployments/${id}/restores`)).body.resources).toEqual([
      expect.objectContaining({ id: asked.body.id, status: 'FAILED' }),
    ]);

    // Another organization sees none of it; a backup of another deployment is not this one's to restore.
    expect((await t.call('GET', `/v2/deployments/${id}/restores`, { key: t.otherOrg.key })).status).toBe(404);
    expect((await t.call('POST', `/v2/deployments/${id}/backups/${backup.body.id}/restore`, { key: t.otherOrg.key })).status).toBe(404);
    const other = await createDeployment('globe');
    const elsewhere = await t.call('POST', `/v2/deployments/${other}/backups/${backup.body.id}/restore`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.detail).toBe(`Backup ${backup.body.id} not found`);
    const odd = await t.call('POST', `/v2/deployments/${id}/backups/${backup.body.id}/restore`, { body: { backup_first: 'yes' } });
    expect(odd.status).toBe(422);
    // A point in time that has not come, or is no time at all, is refused, and no restore is made.
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    for (const target_time of [ahead, '2026-12-07 10:00'])
      expect(
        (await t.call('POST', `/v2/deployments/${id}/backups/${backup.body.id}/restore`, { body: { target_time } })).body.detail,
      ).toEqual([expect.objectContaining({ loc: ['body', 'target_time'] })]);
    expect((await t.call('GET', `/v2/deployments/${id}/restores`)).body.resources).toHaveLength(1);

    expect((await t.call('DELETE', `/v2/deployments/${id}/restores/${asked.body.id}`)).status).toBe(204);
    expect((await t.call('GET', `/v2/deployments/${id}/restores/${asked.body.id}`)).status).toBe(404);
  });

  it('refuses with kubectl a backup that does not exist, and a changed spec', async () => {
    await createDeployment('mill');
    const apply = (name: string, spec: Record<string, unknown>) =>
      kubectl(
        ['apply', '--server-side', '-n', t.org.namespace, '-f', '-'],
        JSON.stringify({ apiVersion: `${group}/${version}`, kind: 'DatabaseRestore', metadata: { name }, spec }),
      );
    expect((await apply('mill-back', { deploymentName: 'mill', backupName: 'nowhere' })).code).toBe(0);
    const noTime = await apply('mill-when', { deploymentName: 'mill', backupName: 'nowhere', targetTime: 'yesterday' });
    expect(noTime.stderr).toMatch(/spec\.targetTime: Invalid value: "yesterday"/);
    const changed = await apply('mill-back', { deploymentName: 'mill', backupName: 'elsewhere' });
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toContain('spec is immutable: a restore happens once, make a new DatabaseRestore');
    const table = async () => (await kubectl(['get', 'dbrestore', '-n', t.org.namespace, 'mill-back'])).stdout;
    await eventually(async () => /Failed/.test(await table()), 20_000, 'the restore refused');
    expect(await table()).toMatch(/NAME\s+DEPLOYMENT\s+BACKUP\s+PHASE\s+AGE\nmill-back\s+mill\s+nowhere\s+Failed\s+/);
  });
});

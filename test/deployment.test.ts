// The Deployment controller against the real API server: revisions, workloads, status and deletion.
// No kubelet runs, so the tests play the workload controllers' part by writing child status.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, Watch, type V1Deployment, type V1Job, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Revision, TracingProject } from '../src/api/index.ts';
import {
  createDeploymentWriter,
  defaultDeploymentControllerOptions,
  registerDeploymentControllers,
  type DeploymentControllerOptions,
  type DeploymentWriter,
} from '../src/reconcilers/deployment/index.ts';
import { createLogger, kubeRequest, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';
import { markRolledOut as markRolledOutIn } from './support/rollout.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';
import { secretNotReadableMessage } from '../src/api/readable-secrets.ts';
import { buildEnded } from '../src/reconcilers/deployment/builds/build-state.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const apps = kc.makeApiClient(AppsV1Api);
const core = kc.makeApiClient(CoreV1Api);
const group = 'berth.dev';
const version = 'v1alpha1';
const registry = 'registry.test:5000';

let namespace: string;
let manager: Manager;

function startManager(
  writer?: DeploymentWriter,
  options: {
    awaitedBuilder?: string;
    buildsPerOrganization?: number;
    previewBuildsPerOrganization?: number;
    images?: DeploymentControllerOptions['images'];
  } = {},
): Promise<Manager> {
  const m = new Manager({
    kubeConfig: testKubeConfig(),
    healthPort: false,
    logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    processMetrics: false,
  });
  registerDeploymentControllers(m, { namespaces: [namespace], registry, ...options }, writer ? { writer } : {});
  return m.start().then(() => m);
}

beforeAll(async () => {
  namespace = await useNamespace('deploy');
  manager = await startManager();
});

afterAll(async () => {
  await manager?.stop();
});

type DeploymentSpecBody = Deployment['spec'];

async function createDeployment(name: string, spec: Partial<DeploymentSpecBody> & Pick<DeploymentSpecBody, 'source'>): Promise<Deployment> {
  return (await custom.createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: 'deployments',
    body: { apiVersion: `${group}/${version}`, kind: 'Deployment', metadata: { name }, spec },
  })) as Deployment;
}

/** The claim the StatefulSet controller makes for the database's one replica (not running here). */
async function createDatabaseClaim(name: string): Promise<string> {
  const claim = `data-${name}-postgres-0`;
  await core.createNamespacedPersistentVolumeClaim({
    namespace,
    body: {
      metadata: { name: claim },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  return claim;
}

async function getDeployment(name: string): Promise<Deployment> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural: 'deployments', name })) as Deployment;
}

/** Waits until the Deployment is gone from the API server. */
async function deploymentGone(name: string): Promise<void> {
  await eventually(
    () =>
      getDeployment(name).then(
        () => false,
        (e: { code?: number }) => e.code === 404,
      ),
    30_000,
    'the Deployment gone',
  );
}

async function patchDeployment(name: string, patch: unknown): Promise<Deployment> {
  return kubeRequest<Deployment>(kc, {
    method: 'PATCH',
    path: `/apis/${group}/${version}/namespaces/${namespace}/deployments/${name}`,
    contentType: 'application/merge-patch+json',
    body: patch,
  });
}

async function revisionsOf(name: string): Promise<Revision[]> {
  const list = (await custom.listNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: 'revisions',
    labelSelector: `berth.dev/deployment=${name}`,
  })) as {
    items: Revision[];
  };
  return list.items;
}

async function readAppsDeployment(name: string): Promise<V1Deployment | undefined> {
  return apps.readNamespacedDeployment({ namespace, name }).catch(() => undefined);
}

/** Plays the Deployment controller and kubelet: every wanted replica of the current template is up. */
async function markRolledOut(name: string): Promise<void> {
  await markRolledOutIn(kc, namespace, name);
}

async function markDatabaseReady(statefulSet: string): Promise<void> {
  const current = await apps.readNamespacedStatefulSet({ namespace, name: statefulSet });
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/apis/apps/v1/namespaces/${namespace}/statefulsets/${statefulSet}/status`,
    contentType: 'application/merge-patch+json',
    body: {
      status: { observedGeneration: current.metadata!.generation, replicas: 1, readyReplicas: 1, currentReplicas: 1, availableReplicas: 1 },
    },
  });
}

/**
 * Every state the named objects go through from now, each with its resourceVersion: watches of one etcd,
 * so ordering the states of both by it replays them in the order they were written.
 */
async function recordChanges(
  targets: { path: string; name: string }[],
): Promise<{ changes(): { resourceVersion: number; object: object }[]; stop(): void }> {
  const seen: { resourceVersion: number; object: object }[] = [];
  const watches = await Promise.all(
    targets.map(({ path, name }) =>
      new Watch(kc).watch(
        path,
        { fieldSelector: `metadata.name=${name}` },
        (_phase, object: { metadata: { resourceVersion: string } }) =>
          seen.push({ resourceVersion: Number(object.metadata.resourceVersion), object }),
        () => {},
      ),
    ),
  );
  return {
    changes: () => [...seen].sort((a, b) => a.resourceVersion - b.resourceVersion),
    stop: () => watches.forEach((watch) => watch.abort()),
  };
}

/** What the Job controller would write of a Job that ended (no controller runs Jobs here). */
async function setJobStatus(jobName: string, outcome: 'Complete' | 'Failed'): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const conditions =
    outcome === 'Complete'
      ? [
          {
            type: 'SuccessCriteriaMet',
            status: 'True',
            reason: 'CompletionsReached',
            message: 'Reached expected number of succeeded pods',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
          {
            type: 'Complete',
            status: 'True',
            reason: 'CompletionsReached',
            message: 'Reached expected number of succeeded pods',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
        ]
      : [
          {
            type: 'FailureTarget',
            status: 'True',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
          {
            type: 'Failed',
            status: 'True',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
        ];
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/apis/batch/v1/namespaces/${namespace}/jobs/${jobName}/status`,
    contentType: 'application/merge-patch+json',
    body: {
      status: {
        startTime: now,
        ...(outcome === 'Complete' ? { completionTime: now, succeeded: 1 } : { failed: 2 }),
        conditions,
      },
    },
  });
}

const condition = (d: Deployment | Revision, type: string) => d.status?.conditions?.find((c) => c.type === type);

async function waitForDeployment(name: string, check: (d: Deployment) => boolean, what: string): Promise<Deployment> {
  return eventually(
    async () => {
      const d = await getDeployment(name);
      return check(d) ? d : undefined;
    },
    30_000,
    what,
  );
}

async function putSecret(name: string, data: Record<string, string>): Promise<void> {
  const body = { metadata: { name, namespace, labels: sharedSecretLabels }, stringData: data };
  await core.createNamespacedSecret({ namespace, body }).catch(async (error: { code?: number }) => {
    if (error.code !== 409) throw error;
    await core.replaceNamespacedSecret({ namespace, name, body });
  });
}

/** A revision's own Secret (its spec.secretSnapshot). */
async function revisionSecret(name: string): Promise<V1Secret> {
  return core.readNamespacedSecret({ namespace, name });
}

describe('a Deployment from an external image', () => {
  const name = 'shop';
  let firstRevision: Revision;

  it('gets one Revision, its workloads and a TracingProject, then READY once they roll out', async () => {
    await putSecret(`${name}-secrets`, { API_KEY: 'one' });
    await createDeployment(name, {
      source: 'external_docker',
      sourceConfig: { resourceSpec: { minScale: 1, maxScale: 3, cpu: 0.5, memoryMb: 1024, labels: { team: 'a' } } },
      sourceRevisionConfig: { imageUri: 'nginx:1.27' },
      secrets: [{ name: 'API_KEY' }],
    });

    const pending = await waitForDeployment(
      name,
      (d) => d.status?.latestRevisionId !== undefined && condition(d, 'Ready') !== undefined,
      'status with a latest revision',
    );
    expect(condition(pending, 'Ready')?.status).toBe('False');
    expect(condition(pending, 'Reconciling')?.status).toBe('True');
    expect(pending.status?.activeRevisionId).toBeUndefined();

    const revisions = await revisionsOf(name);
    expect(revisions).toHaveLength(1);
    firstRevision = revisions[0]!;
    expect(firstRevision.metadata.name).toMatch(/^shop-[0-9a-f]{10}$/);
    expect(firstRevision.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      name,
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(firstRevision.spec.sourceRevisionConfig.imageUri).toBe('nginx:1.27');
    expect(firstRevision.metadata.labels?.['berth.dev/revision-digest']).toBe(firstRevision.spec.digest.slice(0, 63));
    expect(pending.status?.latestRevisionId).toBe(firstRevision.metadata.uid);

    const app = await eventually(() => readAppsDeployment(name), 30_000, 'the application Deployment');
    const container = app.spec!.template.spec!.containers[0]!;
    expect(container.image).toBe('nginx:1.27');
    expect(container.resources).toEqual({ requests: { cpu: '500m', memory: '1Gi' } });
    // The revision's pods read its own copy of the secrets, made with it.
    const own = `${firstRevision.metadata.name}-env`;
    expect(firstRevision.spec.secretSnapshot).toBe(own);
    expect(container.env).toContainEqual({ name: 'API_KEY', valueFrom: { secretKeyRef: { name: own, key: 'API_KEY' } } });
    expect(await revisionSecret(own)).toMatchObject({ immutable: true, data: { API_KEY: Buffer.from('one').toString('base64') } });
    expect(app.spec!.template.metadata!.labels).toMatchObject({ team: 'a', 'berth.dev/revision': firstRevision.metadata.name });
    const hpa = await kubeRequest<{ spec: { minReplicas: number; maxReplicas: number } }>(kc, {
      method: 'GET',
      path: `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}`,
    });
    expect(hpa.spec).toMatchObject({ minReplicas: 1, maxReplicas: 3 });
    const service = await core.readNamespacedService({ namespace, name });
    expect(service.metadata?.ownerReferences?.[0]?.uid).toBe(pending.metadata.uid);
    const project = (await custom.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'tracingprojects',
      name,
    })) as TracingProject;
    expect(project.spec.deploymentName).toBe(name);
    expect(project.metadata.ownerReferences ?? []).toEqual([]);
    await expect(apps.readNamespacedStatefulSet({ namespace, name: `${name}-postgres` })).rejects.toMatchObject({ code: 404 });

    await markRolledOut(name);
    const ready = await waitForDeployment(name, (d) => d.status?.status === 'READY' && condition(d, 'Ready')?.status === 'True', 'READY');
    expect(ready.status).toMatchObject({
      activeRevisionId: firstRevision.metadata.uid,
      activeRevisionName: firstRevision.metadata.name,
      latestRevisionId: firstRevision.metadata.uid,
      imageVersion: 'nginx:1.27',
      observedGeneration: ready.metadata.generation,
    });
    expect(condition(ready, 'Stalled')?.status).toBe('False');
    expect(condition(ready, 'Reconciling')?.status).toBe('False');
    const deployed = await eventually(
      async () => (await revisionsOf(name)).find((r) => r.status?.status === 'DEPLOYED'),
      30_000,
      'DEPLOYED revision',
    );
    expect(deployed.status?.imageUri).toBe('nginx:1.27');
  });

  it('applies a sourceConfig change in place: no new Revision, the HPA follows', async () => {
    const patched = await patchDeployment(name, { spec: { sourceConfig: { resourceSpec: { maxScale: 5 } } } });
    await eventually(
      async () => {
        const hpa = await kubeRequest<{ spec: { maxReplicas: number } }>(kc, {
          method: 'GET',
          path: `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}`,
        });
        return hpa.spec.maxReplicas === 5;
      },
      30_000,
      'the HPA to allow 5 replicas',
    );
    await waitForDeployment(name, (d) => d.status?.observedGeneration === patched.metadata.generation, 'the new generation observed');
    expect((await revisionsOf(name)).map((r) => r.metadata.name)).toEqual([firstRevision.metadata.name]);
  });

  it('puts back a workload field someone else changed, and leaves what they added alone', async () => {
    // The caches hold only the fields Berth's field manager owns: a change by another manager takes the
    // field out of Berth's set, which is what makes the reconcile see the drift and apply again.
    const hpaPath = `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}`;
    const edit = (path: string, body: unknown) =>
      kubeRequest(kc, {
        method: 'PATCH',
        path,
        query: { fieldManager: 'kubectl-edit' },
        contentType: 'application/merge-patch+json',
        body,
      });
    await edit(hpaPath, { spec: { maxReplicas: 9 } });
    await edit(`/api/v1/namespaces/${namespace}/services/${name}`, { metadata: { labels: { 'cost-center': 'c1' } } });
    await eventually(
      async () => (await kubeRequest<{ spec: { maxReplicas: number } }>(kc, { method: 'GET', path: hpaPath })).spec.maxReplicas === 5,
      30_000,
      'maxReplicas put back to 5',
    );
    const service = await core.readNamespacedService({ namespace, name });
    expect(service.metadata?.labels?.['cost-center']).toBe('c1');
    expect((await revisionsOf(name)).map((r) => r.metadata.name)).toEqual([firstRevision.metadata.name]);
  });

  it('makes exactly one new Revision for a new image, and moves the active revision only once it is deployed', async () => {
    await patchDeployment(name, { spec: { sourceRevisionConfig: { imageUri: 'nginx:1.28' } } });
    const moved = await waitForDeployment(name, (d) => d.status?.latestRevisionId !== firstRevision.metadata.uid, 'a new latest revision');
    expect(await revisionsOf(name)).toHaveLength(2);
    expect(moved.status?.activeRevisionId).toBe(firstRevision.metadata.uid);
    await eventually(
      async () => (await readAppsDeployment(name))?.spec?.template.spec?.containers[0]?.image === 'nginx:1.28',
      30_000,
      'the new image rolled',
    );
    const deploying = await getDeployment(name);
    expect(deploying.status?.activeRevisionId).toBe(firstRevision.metadata.uid);
    expect(condition(deploying, 'Ready')?.status).toBe('False');

    await markRolledOut(name);
    const active = await waitForDeployment(
      name,
      (d) => d.status?.activeRevisionId === moved.status?.latestRevisionId && condition(d, 'Ready')?.status === 'True',
      'the new revision active',
    );
    expect(active.status?.imageVersion).toBe('nginx:1.28');
    expect(await revisionsOf(name)).toHaveLength(2);
  });

  it('makes exactly one new Revision when a secret value changes', async () => {
    const before = await getDeployment(name);
    await putSecret(`${name}-secrets`, { API_KEY: 'two' });
    const after = await waitForDeployment(
      name,
      (d) => d.status?.latestRevisionId !== before.status?.latestRevisionId,
      'a revision for the new secret value',
    );
    const revisions = await revisionsOf(name);
    expect(revisions).toHaveLength(3);
    const latest = revisions.find((r) => r.metadata.uid === after.status?.latestRevisionId)!;
    expect(latest.spec.sourceRevisionConfig.imageUri).toBe('nginx:1.28');
    await markRolledOut(name);
    await waitForDeployment(name, (d) => d.status?.activeRevisionId === after.status?.latestRevisionId, 'the secret revision active');
    // The new value is the new revision's alone: the first revision keeps the value it was made with,
    // and Kubernetes refuses to change it, so its pods, and a rollback to it, never see another.
    const env = (await readAppsDeployment(name))!.spec!.template.spec!.containers[0]!.env;
    expect(env).toContainEqual({ name: 'API_KEY', valueFrom: { secretKeyRef: { name: latest.spec.secretSnapshot, key: 'API_KEY' } } });
    expect((await revisionSecret(latest.spec.secretSnapshot!)).data).toEqual({ API_KEY: Buffer.from('two').toString('base64') });
    const first = await revisionSecret(firstRevision.spec.secretSnapshot!);
    expect(first.data).toEqual({ API_KEY: Buffer.from('one').toString('base64') });
    const changed = core.replaceNamespacedSecret({
      namespace,
      name: first.metadata!.name!,
      body: { ...first, data: { API_KEY: Buffer.from('three').toString('base64') } },
    });
    await expect(changed).rejects.toMatchObject({ code: 422 });
  });

  it('re-activates the earlier Revision when the earlier config comes back, without a new one', async () => {
    expect(
      (await custom.getNamespacedCustomObject({ group, version, namespace, plural: 'revisions', name: firstRevision.metadata.name! }))
        .status.status,
    ).toBe('DEPLOYED');
    const history = await recordChanges([
      { path: `/apis/${group}/${version}/namespaces/${namespace}/deployments`, name },
      { path: `/apis/${group}/${version}/namespaces/${namespace}/revisions`, name: firstRevision.metadata.name! },
    ]);
    try {
      await putSecret(`${name}-secrets`, { API_KEY: 'one' });
      await patchDeployment(name, { spec: { sourceRevisionConfig: { imageUri: 'nginx:1.27' } } });
      await waitForDeployment(name, (d) => d.status?.latestRevisionId === firstRevision.metadata.uid, 'the first revision latest again');
      await eventually(
        async () => (await readAppsDeployment(name))?.spec?.template.spec?.containers[0]?.image === 'nginx:1.27',
        30_000,
        'the first image back',
      );
      await markRolledOut(name);
      await waitForDeployment(
        name,
        (d) => d.status?.activeRevisionId === firstRevision.metadata.uid && condition(d, 'Ready')?.status === 'True',
        'the first revision active again',
      );
      const lastRevisionState = () =>
        history.changes().findLast((c) => (c.object as Revision).kind === 'Revision')?.object as Revision | undefined;
      await eventually(async () => lastRevisionState()?.status?.status === 'DEPLOYED', 30_000, 'the first revision DEPLOYED again');
    } finally {
      history.stop();
    }
    expect(await revisionsOf(name)).toHaveLength(3);
    // What a client following the Deployment's latest revision read along the way: the revision's phase
    // when the Deployment first named it latest again was its new one, not the DEPLOYED of its last time.
    const changes = history.changes();
    const namedLatest = changes.findIndex(
      (c) =>
        (c.object as Deployment).kind === 'Deployment' && (c.object as Deployment).status?.latestRevisionId === firstRevision.metadata.uid,
    );
    expect(namedLatest).toBeGreaterThan(-1);
    const revisionThen = changes.slice(0, namedLatest).findLast((c) => (c.object as Revision).kind === 'Revision')?.object as Revision;
    expect(revisionThen.status?.status).not.toBe('DEPLOYED');
  });

  it('serves a pinned revision (rollback) and follows the spec again when unpinned', async () => {
    const revisions = await revisionsOf(name);
    const pinned = revisions.find((r) => r.spec.sourceRevisionConfig.imageUri === 'nginx:1.28')!;
    await patchDeployment(name, { spec: { revisionName: pinned.metadata.name } });
    await eventually(
      async () => (await readAppsDeployment(name))?.spec?.template.metadata?.labels?.['berth.dev/revision'] === pinned.metadata.name,
      30_000,
      'the pinned revision rolled',
    );
    await markRolledOut(name);
    const rolledBack = await waitForDeployment(
      name,
      (d) => d.status?.activeRevisionName === pinned.metadata.name,
      'the pinned revision active',
    );
    expect(rolledBack.status?.latestRevisionId).toBe(firstRevision.metadata.uid);
    expect(await revisionsOf(name)).toHaveLength(3);

    await patchDeployment(name, { spec: { revisionName: null } });
    await eventually(
      async () => (await readAppsDeployment(name))?.spec?.template.metadata?.labels?.['berth.dev/revision'] === firstRevision.metadata.name,
      30_000,
      'back to the latest',
    );
  });

  it('stalls on a pin to a revision it does not have', async () => {
    await patchDeployment(name, { spec: { revisionName: 'shop-0000000000' } });
    const stalled = await waitForDeployment(name, (d) => condition(d, 'Stalled')?.status === 'True', 'Stalled');
    expect(condition(stalled, 'Stalled')).toMatchObject({ reason: 'RevisionNotFound' });
    expect(condition(stalled, 'Ready')?.status).toBe('False');
    await patchDeployment(name, { spec: { revisionName: null } });
    await waitForDeployment(name, (d) => condition(d, 'Stalled')?.status === 'False', 'no longer Stalled');
  });

  it('keeps reporting its revisions while a Secret it reads is missing', async () => {
    const before = await getDeployment(name);
    await core.deleteNamespacedSecret({ namespace, name: `${name}-secrets` });
    const blocked = await waitForDeployment(
      name,
      (d) => [condition(d, 'Stalled'), condition(d, 'Reconciling')].some((c) => c?.status === 'True' && c.reason === 'SecretNotFound'),
      'SecretNotFound',
    );
    expect(blocked.status).toMatchObject({
      latestRevisionId: before.status?.latestRevisionId,
      activeRevisionId: before.status?.activeRevisionId,
    });
    expect(await revisionsOf(name)).toHaveLength(3);
    await putSecret(`${name}-secrets`, { API_KEY: 'one' });
    await markRolledOut(name);
    await waitForDeployment(
      name,
      (d) => condition(d, 'Ready')?.status === 'True' && d.status?.activeRevisionId === firstRevision.metadata.uid,
      'Ready again',
    );
  });

  it('scales to zero as UNUSED, without an autoscaler', async () => {
    await patchDeployment(name, { spec: { sourceConfig: { resourceSpec: { minScale: 0, maxScale: 0 } } } });
    await eventually(async () => (await readAppsDeployment(name))?.spec?.replicas === 0, 30_000, 'zero replicas');
    await eventually(
      () =>
        kubeRequest(kc, { method: 'GET', path: `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}` }).then(
          () => false,
          (e: { code?: number }) => e.code === 404,
        ),
      30_000,
      'the HPA removed',
    );
    await markRolledOut(name);
    const unused = await waitForDeployment(name, (d) => d.status?.status === 'UNUSED', 'UNUSED');
    expect(condition(unused, 'Ready')).toMatchObject({ status: 'True', reason: 'ScaledToZero' });
  });

  it('runs a dev_zero Deployment as dev, with one replica kept, and says why in a ScaleToZero condition', async () => {
    await createDeployment('tier-zero', {
      source: 'external_docker',
      sourceConfig: { deploymentType: 'dev_zero', resourceSpec: { minScale: 0, maxScale: 2 } },
      sourceRevisionConfig: { imageUri: 'registry.example.com/shop:1' },
    });
    const zero = await waitForDeployment('tier-zero', (d) => condition(d, 'ScaleToZero') !== undefined, 'a ScaleToZero condition');
    expect(condition(zero, 'ScaleToZero')).toMatchObject({ status: 'False', reason: 'NoActivator' });
    expect(condition(zero, 'ScaleToZero')?.message).toMatch(/runs as dev/);
    const hpa = await eventually(
      () =>
        kubeRequest<{ spec: { minReplicas: number } }>(kc, {
          method: 'GET',
          path: `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/tier-zero`,
        }).catch(() => undefined),
      30_000,
      'the autoscaler',
    );
    expect(hpa.spec.minReplicas).toBe(1);
  });

  it('rolls a new revision out at once where the installation cannot run the canary its spec asks for, and says why', async () => {
    const name = 'canary-less';
    await createDeployment(name, {
      source: 'external_docker',
      sourceConfig: { canary: { steps: [10, 50] } },
      sourceRevisionConfig: { imageUri: 'registry.example.com/shop:1' },
    });
    await eventually(() => readAppsDeployment(name), 30_000, 'the application');
    await markRolledOut(name);
    const first = await waitForDeployment(name, (d) => !!d.status?.activeRevisionName, 'a first active revision');
    expect(condition(first, 'Canary')).toMatchObject({ status: 'False', reason: 'NoGateway' });
    await patchDeployment(name, { spec: { sourceRevisionConfig: { imageUri: 'registry.example.com/shop:2' } } });
    // The application itself takes the new image: no canary beside it.
    await eventually(
      async () => (await readAppsDeployment(name))?.spec?.template.spec?.containers[0]?.image === 'registry.example.com/shop:2',
      30_000,
      'the new image on the application',
    );
    await markRolledOut(name);
    const second = await waitForDeployment(
      name,
      (d) => !!d.status?.activeRevisionName && d.status.activeRevisionName !== first.status!.activeRevisionName,
      'the second revision active',
    );
    expect(second.status?.canary).toBeUndefined();
    const canaries = await kubeRequest<{ items: unknown[] }>(kc, {
      method: 'GET',
      path: `/apis/apps/v1/namespaces/${namespace}/deployments`,
      query: { labelSelector: `app.kubernetes.io/component=canary` },
    });
    expect(canaries.items).toEqual([]);
    // Asking for none removes the condition.
    await patchDeployment(name, { spec: { sourceConfig: { canary: { steps: [] } } } });
    await waitForDeployment(name, (d) => condition(d, 'Canary') === undefined, 'the Canary condition gone');
  });
});

describe('a pre-deploy command and a smoke test', () => {
  const name = 'migrator';
  const readJob = (revision: string) =>
    kubeRequest<V1Job>(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${namespace}/jobs/${revision}-pre-deploy` }).catch(
      () => undefined,
    );
  const revisionPhase = async (revision: string) => {
    const found = (await revisionsOf(name)).find((r) => r.metadata.name === revision);
    return found?.status?.status && { phase: found.status.status, reason: found.status.reason, message: found.status.message };
  };

  it("runs the command once, in the revision's image, before any pod of it, then rolls the revision out", async () => {
    await putSecret(`${name}-secrets`, { DB_URL: 'postgres://x' });
    await createDeployment(name, {
      source: 'external_docker',
      sourceConfig: { preDeployCommand: 'migrate --yes', smokeTestPath: '/ready' },
      sourceRevisionConfig: { imageUri: 'nginx:1.27' },
      secrets: [{ name: 'DB_URL' }],
    });
    const revision = (await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision')).metadata.name!;
    const job = await eventually(() => readJob(revision), 30_000, 'the pre-deploy Job');
    const container = job.spec!.template.spec!.containers[0]!;
    expect(container).toMatchObject({ name: 'pre-deploy', image: 'nginx:1.27', command: ['sh', '-c', 'migrate --yes'] });
    expect(container.env).toContainEqual({ name: 'DB_URL', valueFrom: { secretKeyRef: { name: `${revision}-env`, key: 'DB_URL' } } });
    expect(job.metadata!.ownerReferences).toEqual([expect.objectContaining({ kind: 'Revision', name: revision, controller: true })]);
    // No pod of the revision runs before the command has.
    expect(await eventually(() => revisionPhase(revision), 30_000, 'a phase')).toMatchObject({ phase: 'DEPLOYING', reason: 'PreDeploy' });
    expect(await readAppsDeployment(name)).toBeUndefined();

    await setJobStatus(job.metadata!.name!, 'Complete');
    const app = await eventually(() => readAppsDeployment(name), 30_000, 'the application once the command succeeded');
    expect(app.spec!.template.spec!.containers[0]!.startupProbe).toMatchObject({ httpGet: { path: '/ready', port: 'http' } });
    await markRolledOut(name);
    await waitForDeployment(name, (d) => d.status?.status === 'READY', 'READY');
    // Made once: the Job of the serving revision is the one that ran.
    expect((await readJob(revision))?.metadata?.uid).toBe(job.metadata!.uid);
  });

  it('keeps the previous revision serving when the command fails, and fails the new one with it', async () => {
    const before = await getDeployment(name);
    await patchDeployment(name, { spec: { sourceRevisionConfig: { imageUri: 'nginx:1.28' } } });
    const revision = await eventually(
      async () =>
        (await getDeployment(name)).status?.latestRevisionName !== before.status?.latestRevisionName &&
        (await getDeployment(name)).status?.latestRevisionName,
      30_000,
      'a new revision',
    );
    const job = await eventually(() => readJob(revision as string), 30_000, 'its pre-deploy Job');
    expect(job.spec!.template.spec!.containers[0]!.image).toBe('nginx:1.28');
    await setJobStatus(job.metadata!.name!, 'Failed');
    const failed = await eventually(
      async () => {
        const phase = await revisionPhase(revision as string);
        return phase?.phase === 'DEPLOY_FAILED' ? phase : undefined;
      },
      30_000,
      'DEPLOY_FAILED',
    );
    expect(failed).toMatchObject({ reason: 'PreDeployFailed' });
    expect(failed.message).toMatch(/^The pre-deploy command failed: BackoffLimitExceeded/);
    expect((await readAppsDeployment(name))!.spec!.template.spec!.containers[0]!.image).toBe('nginx:1.27');
    expect((await getDeployment(name)).status?.activeRevisionName).toBe(before.status?.activeRevisionName);
  });
});

describe('a spec that cannot be served', () => {
  it('stalls with a clear message and an Event when a Secret is missing, and recovers when it appears', async () => {
    const name = 'needs-secret';
    await createDeployment(name, {
      source: 'external_docker',
      sourceRevisionConfig: { imageUri: 'nginx:1.27' },
      secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'vault', key: 'token' } } }],
    });
    const stalled = await waitForDeployment(name, (d) => condition(d, 'Stalled')?.status === 'True', 'Stalled');
    expect(condition(stalled, 'Stalled')).toMatchObject({ reason: 'SecretNotFound' });
    expect(condition(stalled, 'Stalled')?.message).toContain('vault');
    expect(await revisionsOf(name)).toHaveLength(0);
    await eventually(
      async () => {
        const events = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
        return events.items.some((e) => e.reason === 'SecretNotFound' && e.type === 'Warning');
      },
      30_000,
      'a SecretNotFound Event',
    );

    // A Secret of that name that is not shared with Berth: the message still says how to share it (that
    // the cache never holds it is test/readable-secrets.test.ts's to show).
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'vault' }, stringData: { token: 's3cr3t-value' } } });
    expect(condition(await getDeployment(name), 'Stalled')?.message).toContain(secretNotReadableMessage('vault', namespace));
    // Shared (putSecret labels it), it is read at once.
    await putSecret('vault', { token: 's3cr3t-value' });
    await waitForDeployment(
      name,
      (d) => condition(d, 'Stalled')?.status === 'False' && d.status?.latestRevisionId !== undefined,
      'recovered',
    );
    expect(await revisionsOf(name)).toHaveLength(1);
    const recovered = await getDeployment(name);
    expect(JSON.stringify(recovered)).not.toContain('s3cr3t-value');
    expect(JSON.stringify(await revisionsOf(name))).not.toContain('s3cr3t-value');
  });

  it("stalls, with the API server's words and no Revision, when the revision's secret values do not fit one Secret", async () => {
    const name = 'too-much';
    // Two shared Secrets of 600 KB each: each fits, a revision's own copy of both (1.2 MB) does not.
    const big = 'x'.repeat(600_000);
    await putSecret('bulk-a', { value: big });
    await putSecret('bulk-b', { value: big });
    await createDeployment(name, {
      source: 'external_docker',
      sourceRevisionConfig: { imageUri: 'nginx:1.27' },
      secrets: [
        { name: 'BULK_A', valueFrom: { secretKeyRef: { name: 'bulk-a', key: 'value' } } },
        { name: 'BULK_B', valueFrom: { secretKeyRef: { name: 'bulk-b', key: 'value' } } },
      ],
    });
    const stalled = await waitForDeployment(name, (d) => condition(d, 'Stalled')?.status === 'True', 'Stalled');
    expect(condition(stalled, 'Stalled')).toMatchObject({ reason: 'RevisionSecretsRefused' });
    expect(condition(stalled, 'Stalled')?.message).toMatch(/too-much-[0-9a-f]{10}-env/);
    expect(condition(stalled, 'Stalled')?.message).not.toContain(big.slice(0, 64));
    expect(await revisionsOf(name)).toHaveLength(0);
    // Smaller, the values fit: the revision is made.
    await putSecret('bulk-b', { value: 'small' });
    await waitForDeployment(name, (d) => d.status?.latestRevisionId !== undefined, 'a revision once the values fit');
  });

  it('waits (Reconciling, not Stalled) for the <deployment>-secrets Secret the HTTP API writes right after it', async () => {
    const name = 'fresh';
    await createDeployment(name, {
      source: 'external_docker',
      sourceRevisionConfig: { imageUri: 'nginx:1.27' },
      secrets: [{ name: 'API_KEY' }],
    });
    const waiting = await waitForDeployment(name, (d) => condition(d, 'Reconciling')?.status === 'True', 'Reconciling');
    expect(condition(waiting, 'Reconciling')).toMatchObject({ reason: 'SecretNotFound' });
    expect(condition(waiting, 'Stalled')?.status).toBe('False');
    await putSecret(`${name}-secrets`, { API_KEY: 'k' });
    await waitForDeployment(name, (d) => d.status?.latestRevisionId !== undefined, 'a revision once the Secret exists');
  });

  it('stalls when the code-host integration is unknown', async () => {
    const name = 'no-integration';
    await createDeployment(name, {
      source: 'codehost',
      sourceConfig: { integrationId: '6f1c1a5e-0000-4000-8000-000000000000', repoUrl: 'https://github.com/acme/app' },
      sourceRevisionConfig: { repoRef: 'main' },
    });
    const stalled = await waitForDeployment(name, (d) => condition(d, 'Stalled')?.status === 'True', 'Stalled');
    expect(condition(stalled, 'Stalled')).toMatchObject({ reason: 'IntegrationNotFound' });
    expect(await revisionsOf(name)).toHaveLength(0);
  });
});

describe('a Deployment built from a code-host repository', () => {
  let integrationId: string;

  beforeAll(async () => {
    await putSecret('github-credentials', { token: 'ghp_test' });
    const integration = (await custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'codehostintegrations',
      body: {
        apiVersion: `${group}/${version}`,
        kind: 'CodeHostIntegration',
        metadata: { name: 'github' },
        spec: { provider: 'github', credentialsSecretRef: { name: 'github-credentials' } },
      },
    })) as { metadata: { uid: string } };
    integrationId = integration.metadata.uid;
  });

  const codehostSpec = (repoRef: string) => ({
    source: 'codehost' as const,
    sourceConfig: {
      integrationId,
      repoUrl: 'https://github.com/acme/app',
      installCommand: 'npm ci',
      buildCommand: 'npm run build',
      resourceSpec: { dbStorageGi: 2 },
    },
    sourceRevisionConfig: { repoRef },
  });

  it('starts no build while the builder is awaited, says so, and builds once it is there', async () => {
    const name = 'awaits-builder';
    await manager.stop();
    manager = await startManager(undefined, { awaitedBuilder: 'BuildKit is still being built on this machine.' });
    await createDeployment(name, codehostSpec('main'));
    const revision = await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision');
    const waiting = await eventually(
      async () => {
        const current = (await revisionsOf(name))[0];
        return current?.status?.status === 'AWAITING_BUILD' && current.status.reason === 'AwaitingBuilder' ? current : undefined;
      },
      30_000,
      'the revision awaiting the builder',
    );
    expect(waiting.status?.message).toBe('BuildKit is still being built on this machine.');
    const jobPath = `/apis/batch/v1/namespaces/${namespace}/jobs/${revision.metadata.name}-build`;
    await expect(kubeRequest(kc, { method: 'GET', path: jobPath })).rejects.toMatchObject({ code: 404 });

    await manager.stop();
    manager = await startManager();
    await eventually(() => kubeRequest(kc, { method: 'GET', path: jobPath }), 30_000, 'the build Job once the builder is there');
  });

  it("runs at most the organization's build limit at once: the next waits, BuildQueued, and starts when one ends", async () => {
    // The limit counts the builds that run: those of earlier tests end first.
    const jobs = await kubeRequest<{ items: V1Job[] }>(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${namespace}/jobs` });
    for (const job of jobs.items) if (!buildEnded(job)) await setJobStatus(job.metadata!.name!, 'Failed');
    await manager.stop();
    manager = await startManager(undefined, { buildsPerOrganization: 1 });
    const jobOf = async (name: string) =>
      `${(await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision')).metadata.name}-build`;
    const jobPath = (job: string) => `/apis/batch/v1/namespaces/${namespace}/jobs/${job}`;

    await createDeployment('queue-first', codehostSpec('main'));
    const first = await jobOf('queue-first');
    await eventually(() => kubeRequest(kc, { method: 'GET', path: jobPath(first) }), 30_000, 'the first build Job');
    await createDeployment('queue-second', codehostSpec('main'));
    const queued = await eventually(
      async () => {
        const current = (await revisionsOf('queue-second'))[0];
        return current?.status?.reason === 'BuildQueued' ? current : undefined;
      },
      30_000,
      'the second build queued',
    );
    expect(queued.status?.status).toBe('AWAITING_BUILD');
    expect(queued.status?.message).toBe(
      'The organization runs 1 build already, as many as it may run at once: this one starts when one of them ends.',
    );
    const second = await jobOf('queue-second');
    await expect(kubeRequest(kc, { method: 'GET', path: jobPath(second) })).rejects.toMatchObject({ code: 404 });

    await setJobStatus(first, 'Failed');
    await eventually(() => kubeRequest(kc, { method: 'GET', path: jobPath(second) }), 30_000, 'the second build Job once the first ended');
    await manager.stop();
    manager = await startManager();
  });

  it("builds previews in slots of their own: pull requests never hold the deployments' slots", async () => {
    const jobs = await kubeRequest<{ items: V1Job[] }>(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${namespace}/jobs` });
    for (const job of jobs.items) if (!buildEnded(job)) await setJobStatus(job.metadata!.name!, 'Failed');
    await manager.stop();
    manager = await startManager(undefined, { buildsPerOrganization: 1, previewBuildsPerOrganization: 1 });
    const jobOf = async (name: string) =>
      `${(await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision')).metadata.name}-build`;
    const job = (name: string) => kubeRequest<V1Job>(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${namespace}/jobs/${name}` });
    const queuedWith = (name: string) =>
      eventually(
        async () => {
          const current = (await revisionsOf(name))[0];
          return current?.status?.reason === 'BuildQueued' ? current.status.message : undefined;
        },
        30_000,
        `${name}'s build queued`,
      );
    const preview = (number: number) => ({
      ...codehostSpec(`refs/pull/${number}/head`),
      previewOf: { deploymentName: 'slots', pullRequest: number, fromFork: true },
    });

    await createDeployment('slots', codehostSpec('main'));
    await eventually(async () => job(await jobOf('slots')), 30_000, "the deployment's build Job");
    await createDeployment('slots-pr-1', preview(1));
    const previewJob = await eventually(async () => job(await jobOf('slots-pr-1')), 30_000, "the preview's build Job beside it");
    expect(previewJob.metadata?.labels?.['berth.dev/preview-of']).toBe('slots');
    await createDeployment('slots-pr-2', preview(2));
    expect(await queuedWith('slots-pr-2')).toBe(
      "The organization's previews run 1 build already, as many as they may run at once: this one starts when one of them ends.",
    );
    await createDeployment('slots-next', codehostSpec('main'));
    expect(await queuedWith('slots-next')).toBe(
      'The organization runs 1 build already, as many as it may run at once: this one starts when one of them ends.',
    );

    // A fork's code holds no credential of the cluster's: its pods mount no ServiceAccount token.
    await setJobStatus(previewJob.metadata!.name!, 'Complete');
    const app = await eventually(() => readAppsDeployment('slots-pr-1'), 30_000, "the preview's application Deployment");
    expect(app.spec!.template.spec!.automountServiceAccountToken).toBe(false);
    await manager.stop();
    manager = await startManager();
  });

  it('builds the revision in a Job, waits for its database, then deploys the built image', async () => {
    const name = 'built';
    await createDeployment(name, codehostSpec('main'));
    const revision = await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision');
    const jobName = `${revision.metadata.name}-build`;
    const job = await eventually(
      () =>
        kubeRequest<{ spec: { template: { spec: { initContainers: { name: string; env: { name: string; value?: string }[] }[] } } } }>(kc, {
          method: 'GET',
          path: `/apis/batch/v1/namespaces/${namespace}/jobs/${jobName}`,
        }),
      30_000,
      'the build Job',
    );
    expect(job.spec.template.spec.initContainers.find((c) => c.name === 'clone')!.env).toContainEqual({ name: 'REPO_REF', value: 'main' });
    expect(await readAppsDeployment(name)).toBeUndefined();
    const building = await waitForDeployment(name, (d) => condition(d, 'Reconciling')?.reason === 'Building', 'Building');
    expect(building.status?.status).toBe('AWAITING_DATABASE');
    const sts = await apps.readNamespacedStatefulSet({ namespace, name: `${name}-postgres` });
    expect(sts.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests).toEqual({ storage: '2Gi' });
    // Its server's certificate, made once, for the Service's names; the StatefulSet reads it.
    const tls = await core.readNamespacedSecret({ namespace, name: `${name}-postgres-tls` });
    expect(tls.type).toBe('kubernetes.io/tls');
    const certificate = new X509Certificate(Buffer.from(tls.data!['tls.crt']!, 'base64'));
    expect(certificate.subjectAltName).toContain(`DNS:${name}-postgres.${namespace}.svc`);
    expect(certificate.checkPrivateKey(createPrivateKey(Buffer.from(tls.data!['tls.key']!, 'base64')))).toBe(true);
    expect(sts.spec?.template.spec?.volumes).toContainEqual(
      expect.objectContaining({ secret: expect.objectContaining({ secretName: `${name}-postgres-tls` }) }),
    );

    await setJobStatus(jobName, 'Complete');
    const app = await eventually(() => readAppsDeployment(name), 30_000, 'the application Deployment');
    expect(app.spec!.template.spec!.containers[0]!.image).toBe(`${registry}/${namespace}/${name}:${revision.metadata.name}`);
    expect(app.spec!.template.spec!.containers[0]!.env).toContainEqual({
      name: 'POSTGRES_PASSWORD',
      valueFrom: { secretKeyRef: { name: `${name}-postgres`, key: 'password' } },
    });
    await markRolledOut(name);
    const awaiting = await waitForDeployment(
      name,
      (d) => d.status?.activeRevisionId === revision.metadata.uid,
      'the built revision active',
    );
    expect(awaiting.status?.status).toBe('AWAITING_DATABASE');
    expect(condition(awaiting, 'Ready')?.status).toBe('False');

    await markDatabaseReady(`${name}-postgres`);
    const ready = await waitForDeployment(name, (d) => d.status?.status === 'READY' && condition(d, 'Ready')?.status === 'True', 'READY');
    expect(ready.status?.imageVersion).toBe(`${registry}/${namespace}/${name}:${revision.metadata.name}`);
    const deployed = (await revisionsOf(name))[0]!;
    expect(deployed.status).toMatchObject({ status: 'DEPLOYED', imageUri: `${registry}/${namespace}/${name}:${revision.metadata.name}` });
  });

  it("says when an agent server's replicas may open more connections than its database takes, once, until it does", async () => {
    const name = 'many-agents';
    await manager.stop();
    const agentServer = `${registry}/berth/agent-server@sha256:${'0'.repeat(64)}`;
    manager = await startManager(undefined, { images: { ...defaultDeploymentControllerOptions.images, agentServer } });
    try {
      const spec = codehostSpec('main');
      await createDeployment(name, {
        ...spec,
        sourceConfig: { ...spec.sourceConfig, resourceSpec: { maxScale: 6 } },
        sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
      });
      const warned = await waitForDeployment(name, (d) => condition(d, 'DatabaseConnections')?.status === 'False', 'too few connections');
      // Six processes of 30, and 2 kept for KEDA, in Postgres's 100.
      expect(condition(warned, 'DatabaseConnections')).toMatchObject({ reason: 'MaxConnectionsTooLow' });
      expect(condition(warned, 'DatabaseConnections')?.message).toContain('Set db_max_connections to at least 182');
      const warnings = async () =>
        (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items.filter(
          (e) => e.reason === 'MaxConnectionsTooLow' && e.type === 'Warning',
        );
      await eventually(async () => (await warnings()).length > 0, 30_000, 'a MaxConnectionsTooLow Event');

      await patchDeployment(name, { spec: { sourceConfig: { resourceSpec: { dbMaxConnections: 200 } } } });
      const fits = await waitForDeployment(name, (d) => condition(d, 'DatabaseConnections')?.status === 'True', 'enough connections');
      expect(condition(fits, 'DatabaseConnections')?.message).toContain('at most 180 connections');
      const statefulSet = await apps.readNamespacedStatefulSet({ namespace, name: `${name}-postgres` });
      expect(statefulSet.spec?.template.spec?.containers[0]?.args?.slice(0, 2)).toEqual(['-c', 'max_connections=200']);
      expect((await warnings()).reduce((sum, e) => sum + (e.count ?? 1), 0)).toBe(1);
    } finally {
      await manager.stop();
      manager = await startManager();
    }
  });

  it('runs the image of a revision built from the same commit and commands: a secret change makes no build', async () => {
    const name = 'reused';
    const commit = '3f9b2c1d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c';
    await putSecret(`${name}-secrets`, { API_KEY: 'one' });
    await createDeployment(name, { ...codehostSpec(commit), secrets: [{ name: 'API_KEY' }] });
    const first = await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision');
    const jobPath = (revision: Revision) => `/apis/batch/v1/namespaces/${namespace}/jobs/${revision.metadata.name}-build`;
    await eventually(() => kubeRequest(kc, { method: 'GET', path: jobPath(first) }), 30_000, 'the first build Job');
    await setJobStatus(`${first.metadata.name}-build`, 'Complete');
    const built = await eventually(
      async () => (await revisionsOf(name)).find((r) => r.metadata.name === first.metadata.name && r.status?.buildKey),
      30_000,
      'the first revision built, with its build key',
    );

    // A new secret value: a new revision, on the first one's image, with no Job of its own.
    await putSecret(`${name}-secrets`, { API_KEY: 'two' });
    const second = await eventually(
      async () => (await revisionsOf(name)).find((r) => r.metadata.name !== first.metadata.name && r.status?.imageUri),
      30_000,
      'a second revision with an image',
    );
    expect(second.status).toMatchObject({ imageUri: built.status!.imageUri, buildKey: built.status!.buildKey });
    await expect(kubeRequest(kc, { method: 'GET', path: jobPath(second) })).rejects.toMatchObject({ code: 404 });
    await eventually(
      async () => {
        const events = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
        return events.items.find((e) => e.reason === 'BuildReused')?.message?.includes(`Revision ${first.metadata.name}`);
      },
      30_000,
      'a BuildReused Event',
    );

    // Another install command: what the image is made of changed, so the next revision builds.
    await patchDeployment(name, { spec: { sourceConfig: { installCommand: 'npm ci --omit=dev' } } });
    await putSecret(`${name}-secrets`, { API_KEY: 'three' });
    const third = await eventually(
      async () => (await revisionsOf(name)).find((r) => ![first.metadata.name, second.metadata.name].includes(r.metadata.name)),
      30_000,
      'a third revision',
    );
    await eventually(() => kubeRequest(kc, { method: 'GET', path: jobPath(third) }), 30_000, "the third revision's build Job");
  });

  it("stalls a repository away from its integration's host: no revision, no build, the token sent nowhere", async () => {
    const name = 'foreign-host';
    const spec = codehostSpec('main');
    await createDeployment(name, { ...spec, sourceConfig: { ...spec.sourceConfig, repoUrl: 'https://collector.example/acme/app' } });
    const stalled = await waitForDeployment(
      name,
      (d) => condition(d, 'Stalled')?.reason === 'RepositoryHostMismatch',
      'Stalled RepositoryHostMismatch',
    );
    expect(condition(stalled, 'Stalled')?.message).toBe(
      "spec.sourceConfig.repoUrl must be on the integration's host https://github.com: its credentials go nowhere else",
    );
    expect(await revisionsOf(name)).toEqual([]);
  });

  it('stops a building revision annotated berth.dev/interrupted-at: its Job goes, none comes back, and it is INTERRUPTED', async () => {
    const name = 'halted-build';
    await createDeployment(name, codehostSpec('main'));
    const revision = await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision');
    const jobPath = `/apis/batch/v1/namespaces/${namespace}/jobs/${revision.metadata.name}-build`;
    await eventually(() => kubeRequest(kc, { method: 'GET', path: jobPath }), 30_000, 'the build Job');
    const annotated = await kubectl([
      'annotate',
      'revisions.berth.dev',
      revision.metadata.name!,
      '-n',
      namespace,
      'berth.dev/interrupted-at=2026-11-28T12:00:00Z',
    ]);
    expect(annotated.code, annotated.stderr).toBe(0);
    const stopped = await eventually(
      async () => ((await revisionsOf(name))[0]?.status?.status === 'INTERRUPTED' ? (await revisionsOf(name))[0] : undefined),
      30_000,
      'INTERRUPTED',
    );
    expect(stopped.status).toMatchObject({ reason: 'Interrupted' });
    expect(stopped.status?.message).toMatch(/^Interrupted at 2026-11-28T12:00:00Z: its build and rollout were stopped/);
    const jobGone = () =>
      kubeRequest<{ metadata?: { deletionTimestamp?: string } }>(kc, { method: 'GET', path: jobPath }).then(
        (job) => job.metadata?.deletionTimestamp !== undefined,
        (e: { code?: number }) => e.code === 404,
      );
    await eventually(async () => (await jobGone()) || undefined, 30_000, 'the build Job gone');
    // A later pass starts no build for it again.
    await patchDeployment(name, { spec: { sourceConfig: { resourceSpec: { minScale: 1 } } } });
    await waitForDeployment(name, (d) => d.status?.observedGeneration === d.metadata.generation, 'the change observed');
    expect(await jobGone()).toBe(true);
    expect(await readAppsDeployment(name)).toBeUndefined();
  });

  it('reports BUILD_FAILED and Stalled when the build Job fails', async () => {
    const name = 'broken-build';
    await createDeployment(name, codehostSpec('refs/heads/broken'));
    const revision = await eventually(async () => (await revisionsOf(name))[0], 30_000, 'a revision');
    await eventually(
      () => kubeRequest(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${namespace}/jobs/${revision.metadata.name}-build` }),
      30_000,
      'the build Job',
    );
    await setJobStatus(`${revision.metadata.name}-build`, 'Failed');
    const stalled = await waitForDeployment(name, (d) => condition(d, 'Stalled')?.status === 'True', 'Stalled');
    expect(condition(stalled, 'Stalled')).toMatchObject({ reason: 'BuildFailed' });
    expect(condition(stalled, 'Stalled')?.message).toContain('BackoffLimitExceeded');
    const failed = await eventually(
      async () => (await revisionsOf(name)).find((r) => r.status?.status === 'BUILD_FAILED'),
      30_000,
      'BUILD_FAILED',
    );
    expect(failed.status?.message).toContain('BackoffLimitExceeded');
    expect(await readAppsDeployment(name)).toBeUndefined();
  });
});

describe('restarts and deletion', () => {
  it('never writes a status decided from an object older than the stored one', async () => {
    const name = 'stale-view';
    await createDeployment(name, { source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx:1.27' } });
    const seen = await waitForDeployment(name, (d) => d.status?.latestRevisionName !== undefined, 'a first status');
    // Someone (here: the test) changes the object after the view the status would be decided from.
    await custom.patchNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'deployments',
      name,
      body: [{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }],
    });
    const writer = createDeploymentWriter(testKubeConfig());
    await expect(writer.status<Deployment>(seen as never, { ...seen.status!, status: 'UNUSED' })).rejects.toThrow(
      /changed since resourceVersion/,
    );
    expect((await getDeployment(name)).status?.status).not.toBe('UNUSED');
  });

  it('keeps one Revision when the controller dies between creating it and writing status', async () => {
    const name = 'crashy';
    await manager.stop();
    // A controller that dies right after creating the Revision: every status write fails.
    const real = createDeploymentWriter(testKubeConfig());
    let revisionsCreated = 0;
    const dying: DeploymentWriter = {
      ...real,
      createOrGet: async (object) => {
        const result = await real.createOrGet(object);
        if (object.kind === 'Revision') revisionsCreated += 1;
        return result;
      },
      status: async () => {
        throw new Error('killed before writing status');
      },
    };
    manager = await startManager(dying);
    await createDeployment(name, { source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx:1.27' } });
    await eventually(async () => revisionsCreated >= 1, 30_000, 'the Revision created');
    await manager.stop();
    expect((await getDeployment(name)).status?.latestRevisionId).toBeUndefined();

    manager = await startManager();
    const settled = await waitForDeployment(name, (d) => d.status?.latestRevisionId !== undefined, 'status after the restart');
    const revisions = await revisionsOf(name);
    expect(revisions).toHaveLength(1);
    expect(settled.status?.latestRevisionId).toBe(revisions[0]!.metadata.uid);
  });

  it('runs AWAITING_DELETE, removes the children and keeps the TracingProject', async () => {
    const name = 'doomed';
    await createDeployment(name, {
      source: 'external_docker',
      sourceConfig: { customUrl: 'https://doomed.example.com', resourceSpec: { dbStorageGi: 1, redisMemoryMb: 64, queueMaxScale: 2 } },
      sourceRevisionConfig: { imageUri: 'nginx:1.27' },
    });
    await eventually(() => readAppsDeployment(`${name}-queue`), 30_000, 'the queue worker');
    await eventually(
      () => kubeRequest(kc, { method: 'GET', path: `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses/${name}` }),
      30_000,
      'the Ingress',
    );
    await waitForDeployment(name, (d) => d.metadata.finalizers?.includes('berth.dev/cleanup') === true, 'the finalizer');
    const claim = await createDatabaseClaim(name);

    const seen: string[] = [];
    const watch = await new Watch(kc).watch(
      `/apis/${group}/${version}/namespaces/${namespace}/deployments`,
      { fieldSelector: `metadata.name=${name}` },
      (_phase, object: Deployment) => {
        if (object.status?.status) seen.push(object.status.status);
      },
      () => {},
    );
    try {
      await custom.deleteNamespacedCustomObject({ group, version, namespace, plural: 'deployments', name });
      await deploymentGone(name);
      await eventually(async () => seen.includes('AWAITING_DELETE'), 10_000, 'AWAITING_DELETE seen by the watch');
    } finally {
      watch.abort();
    }
    expect(seen).toContain('AWAITING_DELETE');
    for (const child of [name, `${name}-queue`, `${name}-redis`]) {
      await expect(apps.readNamespacedDeployment({ namespace, name: child })).rejects.toMatchObject({ code: 404 });
    }
    await expect(apps.readNamespacedStatefulSet({ namespace, name: `${name}-postgres` })).rejects.toMatchObject({ code: 404 });
    await expect(core.readNamespacedService({ namespace, name })).rejects.toMatchObject({ code: 404 });
    // Its certificate goes: the next database of the name gets a new one.
    await expect(core.readNamespacedSecret({ namespace, name: `${name}-postgres-tls` })).rejects.toMatchObject({ code: 404 });
    await expect(
      kubeRequest(kc, { method: 'GET', path: `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses/${name}` }),
    ).rejects.toMatchObject({ code: 404 });
    // The data stays by default: its claim and password, released and labelled.
    for (const kept of [
      await core.readNamespacedPersistentVolumeClaim({ namespace, name: claim }),
      await core.readNamespacedSecret({ namespace, name: `${name}-postgres` }),
    ]) {
      expect(kept.metadata?.ownerReferences ?? []).toEqual([]);
      expect(kept.metadata?.deletionTimestamp).toBeUndefined();
      expect(kept.metadata?.labels?.['berth.dev/retained-data']).toBe(name);
    }
    expect(await revisionsOf(name)).toHaveLength(0);
    const project = (await custom.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'tracingprojects',
      name,
    })) as TracingProject;
    expect(project.spec.deploymentName).toBe(name);
  });

  it("takes a deleted Deployment's retained database back when one of the same name is made again", async () => {
    const name = 'doomed';
    const password = (await core.readNamespacedSecret({ namespace, name: `${name}-postgres` })).data?.password;
    expect(password).toBeTruthy();
    const again = await createDeployment(name, {
      source: 'external_docker',
      sourceConfig: { resourceSpec: { dbStorageGi: 1 } },
      sourceRevisionConfig: { imageUri: 'nginx:1.27' },
    });
    const adopted = await eventually(
      async () => {
        const secret = await core.readNamespacedSecret({ namespace, name: `${name}-postgres` });
        return secret.metadata?.ownerReferences?.[0]?.uid === again.metadata.uid ? secret : undefined;
      },
      30_000,
      'the password owned by the new Deployment',
    );
    expect(adopted.data?.password).toBe(password);
    expect(adopted.metadata?.labels?.['berth.dev/retained-data']).toBeUndefined();
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace, name: `data-${name}-postgres-0` });
    expect(claim.metadata?.labels?.['berth.dev/retained-data']).toBeUndefined();
    const statefulSet = await eventually(
      () => apps.readNamespacedStatefulSet({ namespace, name: `${name}-postgres` }).catch(() => undefined),
      30_000,
      'the StatefulSet',
    );
    expect(statefulSet.spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted).toBe('Retain');
  });

  it('deletes the data with the Deployment when databaseRetention is delete', async () => {
    const name = 'doomed';
    const chosen = await patchDeployment(name, { spec: { sourceConfig: { databaseRetention: 'delete' } } });
    expect(chosen.spec.sourceConfig.databaseRetention).toBe('delete');
    await eventually(
      async () =>
        (await apps.readNamespacedStatefulSet({ namespace, name: `${name}-postgres` })).spec?.persistentVolumeClaimRetentionPolicy
          ?.whenDeleted === 'Delete' || undefined,
      30_000,
      'the StatefulSet deleting its claim with it',
    );
    await custom.deleteNamespacedCustomObject({ group, version, namespace, plural: 'deployments', name });
    await deploymentGone(name);
    await expect(core.readNamespacedSecret({ namespace, name: `${name}-postgres` })).rejects.toMatchObject({ code: 404 });
    // Gone, or going once the claim protection lets it.
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace, name: `data-${name}-postgres-0` }).catch(() => undefined);
    expect(claim === undefined || claim.metadata?.deletionTimestamp !== undefined).toBe(true);
  });
});

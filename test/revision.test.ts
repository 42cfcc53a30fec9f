// Revisions against the real API server: their lifecycle as the workloads move, INTERRUPTED when a
// newer one is chosen first, DEPLOY_FAILED when a rollout passes its deadline, and retention.
import { AppsV1Api, CustomObjectsApi, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Revision } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, kubeRequest, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const apps = kc.makeApiClient(AppsV1Api);
const group = 'berth.dev';
const version = 'v1alpha1';

let namespace: string;
let manager: Manager;

beforeAll(async () => {
  namespace = await useNamespace('revision');
  manager = new Manager({
    kubeConfig: testKubeConfig(),
    healthPort: false,
    logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    processMetrics: false,
  });
  registerDeploymentControllers(manager, { namespaces: [namespace], revisionRetention: 2 });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
});

async function getDeployment(name: string): Promise<Deployment> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural: 'deployments', name })) as Deployment;
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

/** The names of the Secrets that hold the Deployment's revisions' secret values, sorted. */
async function revisionSecretsOf(name: string): Promise<string[]> {
  const list = await kubeRequest<{ items: { metadata: { name: string } }[] }>(kc, {
    method: 'GET',
    path: `/api/v1/namespaces/${namespace}/secrets`,
    query: { labelSelector: `berth.dev/deployment=${name}` },
  });
  return list.items.map((secret) => secret.metadata.name).sort();
}

/** An image Deployment, and its first Revision once the controller has made it. */
async function createImageDeployment(name: string, imageUri: string): Promise<Revision> {
  await custom.createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: 'deployments',
    body: {
      apiVersion: `${group}/${version}`,
      kind: 'Deployment',
      metadata: { name },
      spec: { source: 'external_docker', sourceRevisionConfig: { imageUri } },
    },
  });
  return eventually(async () => (await revisionsOf(name))[0], 30_000, `the first revision of ${name}`);
}

async function patchSpec(name: string, spec: Record<string, unknown>): Promise<void> {
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/apis/${group}/${version}/namespaces/${namespace}/deployments/${name}`,
    contentType: 'application/merge-patch+json',
    body: { spec },
  });
}

async function revisionOfImage(name: string, imageUri: string): Promise<Revision> {
  return eventually(
    async () => (await revisionsOf(name)).find((r) => r.spec.sourceRevisionConfig.imageUri === imageUri),
    30_000,
    `the revision of ${imageUri}`,
  );
}

async function setImage(name: string, imageUri: string): Promise<Revision> {
  await patchSpec(name, { sourceRevisionConfig: { imageUri } });
  return revisionOfImage(name, imageUri);
}

async function waitForTemplate(name: string, revision: string): Promise<void> {
  await eventually(
    async () =>
      (await apps.readNamespacedDeployment({ namespace, name })).spec?.template.metadata?.labels?.['berth.dev/revision'] === revision,
    30_000,
    `${revision} in the template`,
  );
}

async function setRolloutStatus(name: string, status: Record<string, unknown>): Promise<void> {
  const current = await apps.readNamespacedDeployment({ namespace, name });
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}/status`,
    contentType: 'application/merge-patch+json',
    body: { status: { observedGeneration: current.metadata!.generation, ...status } },
  });
}

const rolledOut = { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 };

async function revisionPhase(name: string, phase: string): Promise<Revision> {
  return eventually(
    async () => {
      const revision = (await custom.getNamespacedCustomObject({ group, version, namespace, plural: 'revisions', name })) as Revision;
      return revision.status?.status === phase ? revision : undefined;
    },
    30_000,
    `${name} ${phase}`,
  );
}

describe('the revision lifecycle', () => {
  const name = 'cycle';

  it('moves AWAITING_DEPLOY/DEPLOYING -> DEPLOYED, and INTERRUPTED when superseded before it deploys', async () => {
    const first = await createImageDeployment(name, 'app:1');
    await revisionPhase(first.metadata.name!, 'DEPLOYING');
    await setRolloutStatus(name, rolledOut);
    const deployed = await revisionPhase(first.metadata.name!, 'DEPLOYED');
    expect(deployed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'Deployed' });
    expect(deployed.status?.imageUri).toBe('app:1');

    const second = await setImage(name, 'app:2');
    await waitForTemplate(name, second.metadata.name!);
    await revisionPhase(second.metadata.name!, 'DEPLOYING');
    const third = await setImage(name, 'app:3');
    await waitForTemplate(name, third.metadata.name!);
    const interrupted = await revisionPhase(second.metadata.name!, 'INTERRUPTED');
    expect(interrupted.status?.message).toContain(third.metadata.name!);
    // The revision that served stays DEPLOYED and active until the new one rolls out.
    expect((await getDeployment(name)).status?.activeRevisionName).toBe(first.metadata.name);
    expect((await revisionPhase(first.metadata.name!, 'DEPLOYED')).metadata.name).toBe(first.metadata.name);
  });

  it('keeps the retention count, never pruning the active or the latest revision', async () => {
    // Retention 2: the newest two (third, fourth) stay, and the first stays while it is active.
    const fourth = await setImage(name, 'app:4');
    await waitForTemplate(name, fourth.metadata.name!);
    const revisions = await eventually(
      async () => {
        const list = await revisionsOf(name);
        return list.length === 3 ? list : undefined;
      },
      30_000,
      'pruning down to three revisions',
    );
    const images = revisions.map((r) => r.spec.sourceRevisionConfig.imageUri).sort();
    expect(images).toEqual(['app:1', 'app:3', 'app:4']);
    expect((await getDeployment(name)).status?.activeRevisionName).toBe(
      revisions.find((r) => r.spec.sourceRevisionConfig.imageUri === 'app:1')!.metadata.name,
    );

    await setRolloutStatus(name, rolledOut);
    await eventually(
      async () => (await getDeployment(name)).status?.activeRevisionName === fourth.metadata.name,
      30_000,
      'the fourth revision active',
    );
    await eventually(
      async () => {
        const list = (await revisionsOf(name)).map((r) => r.spec.sourceRevisionConfig.imageUri).sort();
        return list.join() === 'app:3,app:4';
      },
      30_000,
      'the first revision pruned once no longer active',
    );
    // Each revision's own Secret goes with it: those of the kept two stay.
    const remaining = await revisionsOf(name);
    expect(remaining.map((r) => r.spec.secretSnapshot)).toEqual(remaining.map((r) => `${r.metadata.name}-env`));
    const kept = remaining.map((r) => r.spec.secretSnapshot!).sort();
    await eventually(async () => (await revisionSecretsOf(name)).join() === kept.join(), 30_000, "the pruned revision's Secret deleted");
  });
});

describe("a revision's own Secret", () => {
  it('is replaced when Berth did not make it for this Deployment, as one an earlier Deployment of the name left', async () => {
    const name = 'again';
    const first = await createImageDeployment(name, 'again:1');
    const secretName = first.spec.secretSnapshot!;
    const secretPath = `/api/v1/namespaces/${namespace}/secrets/${secretName}`;
    // Its owner gone, as the garbage collector would find it after the Deployment was deleted and made again.
    const orphaned = await kubeRequest<V1Secret>(kc, {
      method: 'PATCH',
      path: secretPath,
      contentType: 'application/merge-patch+json',
      body: { metadata: { ownerReferences: null } },
    });
    await custom.deleteNamespacedCustomObject({ group, version, namespace, plural: 'revisions', name: first.metadata.name! });
    const again = await eventually(
      async () => (await revisionsOf(name)).find((r) => r.metadata.uid !== first.metadata.uid),
      30_000,
      'the revision made again',
    );
    expect(again.spec.secretSnapshot).toBe(secretName);
    const replaced = await kubeRequest<V1Secret>(kc, { method: 'GET', path: secretPath });
    expect(replaced.metadata!.uid).not.toBe(orphaned.metadata!.uid);
    expect(replaced.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Deployment', uid: (await getDeployment(name)).metadata.uid }),
    ]);
  });
});

describe('a rollout that passes its deadline', () => {
  it('marks the revision DEPLOY_FAILED and the Deployment Stalled', async () => {
    const name = 'stuck';
    const revision = await createImageDeployment(name, 'app:broken');
    await waitForTemplate(name, revision.metadata.name!);
    await setRolloutStatus(name, {
      replicas: 1,
      updatedReplicas: 1,
      unavailableReplicas: 1,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "stuck-1" has timed out progressing.',
        },
      ],
    });
    const failed = await revisionPhase(revision.metadata.name!, 'DEPLOY_FAILED');
    expect(failed.status?.message).toContain('timed out progressing');
    const stalled = await eventually(
      async () => {
        const d = await getDeployment(name);
        return d.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True') ? d : undefined;
      },
      30_000,
      'Stalled',
    );
    expect(stalled.status?.conditions?.find((c) => c.type === 'Stalled')?.reason).toBe('DeployFailed');
    expect(stalled.status?.activeRevisionId).toBeUndefined();
  });
});

describe('a revision made while an older one is pinned', () => {
  it('is SKIPPED, and resumes once the pin is lifted', async () => {
    const name = 'pinned';
    const first = await createImageDeployment(name, 'app:a');
    await waitForTemplate(name, first.metadata.name!);
    await patchSpec(name, { revisionName: first.metadata.name, sourceRevisionConfig: { imageUri: 'app:b' } });
    const second = await revisionOfImage(name, 'app:b');
    const skipped = await revisionPhase(second.metadata.name!, 'SKIPPED');
    expect(skipped.status?.message).toContain(first.metadata.name!);
    expect((await apps.readNamespacedDeployment({ namespace, name })).spec?.template.metadata?.labels?.['berth.dev/revision']).toBe(
      first.metadata.name,
    );

    await patchSpec(name, { revisionName: null });
    await waitForTemplate(name, second.metadata.name!);
    await revisionPhase(second.metadata.name!, 'DEPLOYING');
  });
});

// Names a Gateway gives a Deployment's Service and routes are `<namespace>-<name>`: with namespaces
// `<x>` and `<x>-corp`, the deployment `corp-web` of the first and `web` of the second would be one backend
// at the Gateway, and one would serve the other's URL; so would `corp--web` of `<x>`, whose dashes the
// Gateway folds into one. The later one is refused before Berth writes a child: Stalled,
// GatewayNameTaken; the first is untouched.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const core = kc.makeApiClient(CoreV1Api);
const group = 'berth.dev';
const version = 'v1alpha1';

let first: string;
let second: string;
let manager: Manager;

beforeAll(async () => {
  first = await useNamespace('gw');
  second = `${first}-corp`;
  await core.createNamespace({ body: { metadata: { name: second } } });
  manager = new Manager({ kubeConfig: kc, healthPort: false, logger: createLogger({ level: 'silent' }), processMetrics: false });
  registerDeploymentControllers(manager, { namespaces: [first, second], registry: 'registry.test:5000' });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
  await core.deleteNamespace({ name: second }).catch(() => {});
});

async function create(namespace: string, name: string): Promise<void> {
  await custom.createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: 'deployments',
    body: {
      apiVersion: `${group}/${version}`,
      kind: 'Deployment',
      metadata: { name },
      spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'busybox:1' } },
    },
  });
}

async function read(namespace: string, name: string): Promise<Deployment> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural: 'deployments', name })) as Deployment;
}

const stalled = async (namespace: string, name: string) =>
  (await read(namespace, name)).status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');

describe('names at the Gateway, claimed once across namespaces', () => {
  it("refuses the later of two deployments the Gateway would name alike, and leaves the first one's objects alone", async () => {
    await create(first, 'corp-web');
    await eventually(async () => (await read(first, 'corp-web')).status?.latestRevisionId, 30_000, "the first one's revision");
    // Claims made in one second are ordered by uid: the second claim is made in a later second.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await create(second, 'web');

    const refusal = await eventually(() => stalled(second, 'web'), 30_000, 'the second one Stalled');
    expect(refusal).toMatchObject({
      reason: 'GatewayNameTaken',
      message: `the name web in namespace ${second} would be ${second}-web at the Gateway, which a deployment of another organization already is; choose another name`,
    });
    const services = await core.listNamespacedService({ namespace: second });
    expect(services.items.map((s) => s.metadata?.name)).not.toContain('web');
    expect(await stalled(first, 'corp-web')).toBeUndefined();
    expect((await core.readNamespacedService({ namespace: first, name: 'corp-web' })).metadata?.name).toBe('corp-web');
  });

  it('refuses a name whose dashes the Gateway folds into the name of an earlier one', async () => {
    // `corp-web` of `<x>` holds `<x>-corp-web`; `corp--web` of `<x>` is that at the Gateway too, though
    // its objects' names differ.
    await create(first, 'corp--web');
    const refusal = await eventually(() => stalled(first, 'corp--web'), 30_000, 'the folded name Stalled');
    expect(refusal).toMatchObject({
      reason: 'GatewayNameTaken',
      message: `the name corp--web in namespace ${first} would be ${first}-corp-web at the Gateway, which deployment corp-web already is; choose another name`,
    });
    const services = await core.listNamespacedService({ namespace: first });
    expect(services.items.map((s) => s.metadata?.name)).not.toContain('corp--web');
  });
});

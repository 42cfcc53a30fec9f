// A Deployment whose relay cannot reach its pods is not READY: the path check against the real API server
// (the shared control plane, no node; about 10 s). The relay is the installation's proxy namespace, in
// front of an app routed by an Ingress: NetworkPolicies that select the app's pods and admit no
// connection from it make the Deployment Stalled (PathBlocked) with phase UNKNOWN and a Warning Event;
// policies add up; a namespace label admits it once the Namespace carries it; an ipBlock, which Berth
// cannot judge, never blocks.
import { CoreV1Api, CustomObjectsApi, NetworkingV1Api, type V1NetworkPolicy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAppUrlTemplate, type AppUrlTemplate, type Deployment } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { markRolledOut } from './support/rollout.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const core = kc.makeApiClient(CoreV1Api);
const networking = kc.makeApiClient(NetworkingV1Api);
const name = 'web';

let namespace: string;
let relay: string;
let manager: Manager;

beforeAll(async () => {
  namespace = await useNamespace('path');
  relay = await useNamespace('relay');
  manager = new Manager({
    kubeConfig: testKubeConfig(),
    healthPort: false,
    logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    processMetrics: false,
  });
  registerDeploymentControllers(manager, {
    namespaces: [namespace],
    registry: 'registry.test:5000',
    appUrls: parseAppUrlTemplate('http://{deployment}.{organization}.test/') as AppUrlTemplate,
    ingressClassName: 'test',
    proxyNamespace: relay,
    networkPolicyCheck: true,
  });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
});

const policy = (policyName: string, spec: V1NetworkPolicy['spec']): V1NetworkPolicy => ({ metadata: { name: policyName }, spec });
const apply = (body: V1NetworkPolicy) => networking.createNamespacedNetworkPolicy({ namespace, body });
const remove = (policyName: string) => networking.deleteNamespacedNetworkPolicy({ namespace, name: policyName });

async function deployment(): Promise<Deployment> {
  return (await custom.getNamespacedCustomObject({
    group: 'berth.dev',
    version: 'v1alpha1',
    namespace,
    plural: 'deployments',
    name,
  })) as Deployment;
}

/** The Deployment once its phase is `phase` and its Ready condition has `reason`. */
function until(phase: string, reason: string): Promise<Deployment> {
  return eventually(
    async () => {
      const got = await deployment();
      const ready = got.status?.conditions?.find((c) => c.type === 'Ready');
      return got.status?.status === phase && ready?.reason === reason ? got : undefined;
    },
    20_000,
    `${phase} with Ready's reason ${reason}`,
  );
}
const blocked = () => until('UNKNOWN', 'PathBlocked');
const ready = () => until('READY', 'Ready');

describe('a Deployment whose proxy namespace a NetworkPolicy cuts off', () => {
  it('is READY while no policy selects its pods', async () => {
    await custom.createNamespacedCustomObject({
      group: 'berth.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'deployments',
      body: {
        apiVersion: 'berth.dev/v1alpha1',
        kind: 'Deployment',
        metadata: { name },
        spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx:1.27' } },
      },
    });
    await eventually(() => markRolledOut(kc, namespace, name).catch(() => undefined), 20_000, 'the application Deployment');
    await ready();
  });

  it('is Stalled (PathBlocked) and UNKNOWN under a default deny, saying which policy and namespace, with a Warning Event', async () => {
    await apply(policy('deny-all', { podSelector: {}, policyTypes: ['Ingress'] }));
    const got = await blocked();
    const stalled = got.status?.conditions?.find((c) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'PathBlocked' });
    expect(stalled?.message).toContain('(deny-all)');
    expect(stalled?.message).toContain(`namespace ${relay}`);
    await eventually(
      async () => {
        const events = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
        return events.items.some((e) => e.reason === 'PathBlocked' && e.type === 'Warning');
      },
      20_000,
      'a Warning Event PathBlocked',
    );
  });

  it('is READY again beside a policy that admits the proxy namespace, and cut off again without it', async () => {
    const byName = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': relay } } };
    await apply(policy('admit-relay', { podSelector: {}, ingress: [{ _from: [byName] }] }));
    await ready();
    await remove('admit-relay');
    await blocked();
  });

  it('follows the proxy namespace’s labels', async () => {
    await apply(
      policy('admit-edge', { podSelector: {}, ingress: [{ _from: [{ namespaceSelector: { matchLabels: { edge: 'true' } } }] }] }),
    );
    await blocked();
    await core.patchNamespace({ name: relay, body: [{ op: 'add', path: '/metadata/labels/edge', value: 'true' }] });
    await ready();
    await remove('admit-edge');
    await blocked();
  });

  it('never says blocked where an ipBlock may admit the proxy, and is READY once the default deny goes', async () => {
    await apply(policy('admit-block', { podSelector: {}, ingress: [{ _from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] }));
    await ready();
    await remove('admit-block');
    await blocked();
    await remove('deny-all');
    await ready();
  });
});

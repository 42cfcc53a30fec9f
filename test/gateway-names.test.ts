// A Gateway names a backend `<namespace>-<service>-http-<port>` and folds every run of dashes into one:
// with namespaces `<x>` and `<x>-corp`, `corp-web` and `corp--web` of the first and `web` of the second
// would be one backend, were routes to name Services after deployments, and each would serve the
// others' URLs. Routes name route Services named from the deployment's uid instead
// (docs/route-names.md): all three are served, each route to a Service of its own that selects its own
// pods, and none is refused.
import { CoreV1Api, CustomObjectsApi, NetworkingV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAppUrlTemplate, type AppUrlTemplate, type Deployment } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const core = kc.makeApiClient(CoreV1Api);
const networking = kc.makeApiClient(NetworkingV1Api);
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
  registerDeploymentControllers(manager, {
    namespaces: [first, second],
    registry: 'registry.test:5000',
    // Own URLs without a Gateway: one Ingress each, which names its backend Service as an HTTPRoute does.
    appUrls: parseAppUrlTemplate('http://{deployment}.{organization}.localhost/') as AppUrlTemplate,
  });
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

/** The Service a deployment's own URL's route sends requests to, once it has one. */
async function routedService(namespace: string, name: string): Promise<V1Service> {
  const service = await eventually(
    async () => {
      const ingress = await networking.readNamespacedIngress({ namespace, name }).catch(() => undefined);
      return ingress?.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.name;
    },
    30_000,
    `the route of ${namespace}/${name}`,
  );
  return core.readNamespacedService({ namespace, name: service });
}

/** A backend's name as Traefik's Gateway provider writes it: runs of other characters than letters and digits folded. */
const atGateway = (namespace: string, service: string) =>
  `${namespace}-${service}-http-80`
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('-');

describe('names at the Gateway, apart whatever the names', () => {
  it('serves deployments whose namespaces and names join or fold alike, each through a route Service of its own', async () => {
    const deployments: [string, string][] = [
      [first, 'corp-web'],
      [second, 'web'],
      [first, 'corp--web'],
    ];
    for (const [namespace, name] of deployments) await create(namespace, name);
    const backends = [];
    for (const [namespace, name] of deployments) {
      const service = await routedService(namespace, name);
      const uid = (await read(namespace, name)).metadata.uid!;
      expect(service.metadata?.ownerReferences?.[0]?.uid).toBe(uid);
      expect(service.spec?.selector).toMatchObject({ 'berth.dev/deployment': name, 'app.kubernetes.io/component': 'application' });
      backends.push(atGateway(namespace, service.metadata!.name!));
    }
    expect(new Set(backends).size).toBe(3);
    for (const [namespace, name] of deployments) {
      const conditions = (await read(namespace, name)).status?.conditions ?? [];
      expect(conditions.find((c) => c.type === 'Stalled' && c.status === 'True')).toBeUndefined();
    }
  });

  it('refuses a deployment named like a route Service before it writes a child: NameReserved', async () => {
    await create(first, 'b0123456789ab');
    const stalled = await eventually(
      async () => (await read(first, 'b0123456789ab')).status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True'),
      30_000,
      'the deployment Stalled',
    );
    expect(stalled).toMatchObject({ reason: 'NameReserved' });
    const services = await core.listNamespacedService({ namespace: first });
    expect(services.items.map((s) => s.metadata?.name)).not.toContain('b0123456789ab');
  });
});

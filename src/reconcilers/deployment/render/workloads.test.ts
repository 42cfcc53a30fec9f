import type { V1Deployment, V1Ingress, V1StatefulSet } from '@kubernetes/client-node';
import { organizationTlsNames, parseAppUrlTemplate, type AppUrlTemplate } from '../../../api/index.ts';
import { describe, expect, it } from 'vitest';
import type { DeploymentSpecInput } from './spec.ts';
import { renderWorkloads, workloadInput } from './workloads.ts';
import { renderPreDeployJob } from './pre-deploy.ts';
import { routeServiceNames } from '../../../api/child-names.ts';
import type { ScaledObject } from './autoscalers.ts';

const owner = { name: 'shop', namespace: 'ns', uid: 'uid-1' };
/** Where routes send requests: Services named from the uid (child-names.ts routeServiceNames). */
const route = routeServiceNames(owner.uid);
const settings = {
  applicationPort: 8000,
  images: { postgres: 'postgres:16', redis: 'redis:7', networkWait: 'berth/wait:1' },
  requestScale: 1,
  progressDeadlineSeconds: 600,
  scaleDownWindowSeconds: 60,
};
const serving = { name: 'shop-aaaaaaaaaa', image: 'nginx:1' };

const kinds = (spec: DeploymentSpecInput, withServing = true) =>
  renderWorkloads({ owner, spec, settings, ...(withServing ? { serving } : {}) }).map((o) => `${o.kind}/${o.metadata?.name}`);

describe('renderWorkloads', () => {
  it.each([
    ['an image with defaults', { source: 'external_docker' }, true, ['Service/shop', 'Deployment/shop', 'HorizontalPodAutoscaler/shop']],
    [
      'scaled to zero',
      { source: 'external_docker', sourceConfig: { resourceSpec: { maxScale: 0 } } },
      true,
      ['Service/shop', 'Deployment/shop'],
    ],
    [
      'a queue worker (with its broker)',
      { source: 'external_docker', sourceConfig: { resourceSpec: { queueMaxScale: 2 } } },
      true,
      [
        'Service/shop',
        'Deployment/shop',
        'HorizontalPodAutoscaler/shop',
        'Deployment/shop-queue',
        'HorizontalPodAutoscaler/shop-queue',
        'Deployment/shop-redis',
        'Service/shop-redis',
      ],
    ],
    [
      'a codehost application before its first build',
      { source: 'codehost' },
      false,
      ['Service/shop', 'StatefulSet/shop-postgres', 'Service/shop-postgres'],
    ],
    [
      'an agent server that may run two replicas (they share runs through Redis)',
      {
        source: 'internal_source',
        sourceConfig: { resourceSpec: { maxScale: 2 } },
        sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
      },
      true,
      [
        'Service/shop',
        'Deployment/shop',
        'HorizontalPodAutoscaler/shop',
        'StatefulSet/shop-postgres',
        'Service/shop-postgres',
        'Deployment/shop-redis',
        'Service/shop-redis',
      ],
    ],
    [
      'an agent server of one replica',
      {
        source: 'internal_source',
        sourceConfig: { resourceSpec: { maxScale: 1 } },
        sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
      },
      true,
      ['Service/shop', 'Deployment/shop', 'HorizontalPodAutoscaler/shop', 'StatefulSet/shop-postgres', 'Service/shop-postgres'],
    ],
    [
      'a custom URL',
      { source: 'external_docker', sourceConfig: { customUrl: 'https://shop.example.com' } },
      true,
      ['Service/shop', `Service/${route.stable}`, 'Deployment/shop', 'HorizontalPodAutoscaler/shop', 'Ingress/shop'],
    ],
  ])('%s', (_, spec, withServing, expected) => {
    expect(kinds(spec as DeploymentSpecInput, withServing)).toEqual(expected);
  });

  it("routes the deployment's own host and its custom URL: HTTPRoutes on a Gateway, else one Ingress", () => {
    const appUrls = parseAppUrlTemplate('http://{deployment}.{organization}.localhost:18080/') as AppUrlTemplate;
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { customUrl: 'https://shop.example.com/store' } };
    const gateway = { namespace: 'gw', name: 'public' };
    const routes = renderWorkloads({ owner, spec, settings: { ...settings, appUrls, gateway }, serving }).filter(
      (o) => o.kind === 'HTTPRoute',
    );
    expect(routes.map((route) => [route.metadata?.name, (route as { spec?: unknown }).spec])).toEqual([
      [
        'shop',
        {
          parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'gw', name: 'public' }],
          hostnames: ['shop.ns.localhost'],
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: '/' } }],
              backendRefs: [{ group: '', kind: 'Service', name: route.stable, port: 80, weight: 1 }],
            },
          ],
        },
      ],
      ['shop-custom', expect.objectContaining({ hostnames: ['shop.example.com'] })],
    ]);
    const ingress = renderWorkloads({ owner, spec, settings: { ...settings, appUrls }, serving }).filter((o) => o.kind === 'Ingress');
    expect(ingress.map((o) => (o as V1Ingress).spec!.rules!.map((rule) => [rule.host, rule.http!.paths[0]!.path]))).toEqual([
      [
        ['shop.ns.localhost', '/'],
        ['shop.example.com', '/store'],
      ],
    ]);
  });

  it('names the shard and listener that serve a host whose listener is off the configured Gateway', () => {
    const appUrls = parseAppUrlTemplate('https://{deployment}.{organization}.localhost:18443/') as AppUrlTemplate;
    const gateway = { namespace: 'gw', name: 'public' };
    const tls = { issuer: { kind: 'ClusterIssuer' as const, name: 'ca' }, gateway, appUrls };
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { customUrl: 'https://shop.example.com/' } };
    const custom = organizationTlsNames('ns').customListener('shop.example.com');
    const listenerShards = new Map([[custom, 'public-2']]);
    const parents = renderWorkloads({ owner, spec, settings: { ...settings, appUrls, gateway, tls }, serving, listenerShards })
      .filter((o) => o.kind === 'HTTPRoute')
      .map((route) => [route.metadata?.name, (route as { spec: { parentRefs: unknown[] } }).spec.parentRefs]);
    const parent = { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'gw', name: 'public' };
    expect(parents).toEqual([
      ['shop', [parent]],
      ['shop-custom', [parent, { ...parent, name: 'public-2', sectionName: custom }]],
    ]);
  });

  it("runs a canary's pods apart from the application's, and routes its weight to them once it has one", () => {
    const appUrls = parseAppUrlTemplate('http://{deployment}.{organization}.localhost:18080/') as AppUrlTemplate;
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { customUrl: 'https://shop.example.com/store' } };
    const gateway = { namespace: 'gw', name: 'public' };
    const next = { name: 'shop-bbbbbbbbbb', image: 'nginx:2' };
    const render = (weight: number) =>
      renderWorkloads({
        owner,
        spec,
        settings: { ...settings, appUrls, gateway },
        serving,
        canary: { serving: next, replicas: 2, weight },
      });
    const objects = render(10);
    const byName = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata?.name === name);
    const canary = byName('Deployment', 'shop-canary') as V1Deployment;
    const stable = byName('Deployment', 'shop') as V1Deployment;
    expect(canary.spec!.replicas).toBe(2);
    expect(canary.spec!.template.spec!.containers[0]!.image).toBe('nginx:2');
    expect(stable.spec!.template.spec!.containers[0]!.image).toBe('nginx:1');
    // Disjoint selectors: the application's Service never sends the canary's share.
    expect(canary.spec!.selector.matchLabels).toEqual({ 'berth.dev/deployment': 'shop', 'app.kubernetes.io/component': 'canary' });
    expect(byName('Service', route.canary)).toMatchObject({ spec: { selector: canary.spec!.selector.matchLabels } });
    expect(byName('Service', route.stable)).toMatchObject({ spec: { selector: stable.spec!.selector.matchLabels } });
    const backends = (objects: ReturnType<typeof render>) =>
      objects
        .filter((o) => o.kind === 'HTTPRoute')
        .map((route) => (route as { spec: { rules: { backendRefs: unknown }[] } }).spec.rules[0]!.backendRefs);
    const weighted = [
      { group: '', kind: 'Service', name: route.stable, port: 80, weight: 90 },
      { group: '', kind: 'Service', name: route.canary, port: 80, weight: 10 },
    ];
    expect(backends(objects)).toEqual([weighted, weighted]);
    // At weight 0 its pods run, and the routes name the application alone.
    const single = [{ group: '', kind: 'Service', name: route.stable, port: 80, weight: 1 }];
    expect(backends(render(0))).toEqual([single, single]);
    expect(render(0).some((o) => o.metadata?.name === 'shop-canary')).toBe(true);
    // Routed by an earlier Berth (route-targets.ts): the routes keep the Services they name while the
    // route Service is made, and the canary's share keeps its own Service until the canary is over.
    const earlier = renderWorkloads({
      owner,
      spec,
      settings: { ...settings, appUrls, gateway },
      serving,
      canary: { serving: next, replicas: 2, weight: 10 },
      routeTo: { stable: 'shop', canary: 'shop-canary' },
    });
    expect(backends(earlier)[0]).toEqual([
      { group: '', kind: 'Service', name: 'shop', port: 80, weight: 90 },
      { group: '', kind: 'Service', name: 'shop-canary', port: 80, weight: 10 },
    ]);
    expect(earlier.filter((o) => o.kind === 'Service').map((o) => o.metadata?.name)).toEqual(['shop', route.stable, 'shop-canary']);
  });

  describe('a dev_zero app where the installation has an activator', () => {
    const appUrls = parseAppUrlTemplate('http://{deployment}.{organization}.localhost:18080/') as AppUrlTemplate;
    const gateway = { namespace: 'gw', name: 'public' };
    const activator = { proxy: { namespace: 'keda', name: 'interceptor-proxy', port: 8080 }, scalerAddress: 'scaler.keda:9090' };
    const zero = (spec: Partial<DeploymentSpecInput['sourceConfig']>, keepOnePod = false, idleSeconds?: number) =>
      renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'dev_zero', ...spec } },
        settings: { ...settings, appUrls, gateway, activator: { ...activator, ...(idleSeconds ? { idleSeconds } : {}) } },
        serving,
        keepOnePod,
      });

    it('routes its hosts to the activator and scales from zero on the requests it counts', () => {
      const objects = zero({ customUrl: 'https://shop.example.com/store', resourceSpec: { maxScale: 3 } });
      expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
        'Service/shop',
        `Service/${route.stable}`,
        'Deployment/shop',
        'InterceptorRoute/shop',
        'ScaledObject/shop',
        'HTTPRoute/shop',
        'HTTPRoute/shop-custom',
      ]);
      const spec = (kind: string) => (objects.find((o) => o.kind === kind) as unknown as { spec: Record<string, unknown> }).spec;
      // A rule per host, with that host's own paths: the custom URL's path is not opened on the app's own host.
      expect(spec('InterceptorRoute')).toEqual({
        target: { service: 'shop', port: 80 },
        rules: [
          { hosts: ['shop.ns.localhost'], paths: [{ value: '/' }] },
          { hosts: ['shop.example.com'], paths: [{ value: '/store' }] },
        ],
        scalingMetric: { concurrency: { targetValue: 10 } },
      });
      expect(spec('ScaledObject')).toMatchObject({
        minReplicaCount: 0,
        maxReplicaCount: 3,
        advanced: { horizontalPodAutoscalerConfig: { name: 'shop' } },
        cooldownPeriod: 60,
        triggers: [{ type: 'external-push', metadata: { scalerAddress: 'scaler.keda:9090', interceptorRoute: 'shop' } }],
      });
      for (const route of objects.filter((o) => o.kind === 'HTTPRoute'))
        expect((route as unknown as { spec: { rules: { backendRefs: unknown[] }[] } }).spec.rules[0]!.backendRefs).toEqual([
          { group: '', kind: 'Service', namespace: 'keda', name: 'interceptor-proxy', port: 8080, weight: 1 },
        ]);
    });

    it("waits the idle time its spec asks for before zero, else the installation's", () => {
      const cooldown = (idleSeconds?: number, installation?: number) =>
        (
          zero({ resourceSpec: { maxScale: 2 }, ...(idleSeconds ? { idleSeconds } : {}) }, false, installation).find(
            (o) => o.kind === 'ScaledObject',
          ) as unknown as {
            spec: { cooldownPeriod: number; initialCooldownPeriod: number };
          }
        ).spec;
      expect(cooldown()).toMatchObject({ cooldownPeriod: 60, initialCooldownPeriod: 60 });
      expect(cooldown(900)).toMatchObject({ cooldownPeriod: 900, initialCooldownPeriod: 900 });
      expect(cooldown(undefined, 15)).toMatchObject({ cooldownPeriod: 15, initialCooldownPeriod: 15 });
      expect(cooldown(900, 15)).toMatchObject({ cooldownPeriod: 900, initialCooldownPeriod: 900 });
    });

    it('keeps one replica while a new revision rolls out, so that it shows it starts before it is DEPLOYED', () => {
      const minimum = (keepOnePod: boolean) =>
        (
          zero({ resourceSpec: { maxScale: 2 } }, keepOnePod).find((o) => o.kind === 'ScaledObject') as unknown as {
            spec: { minReplicaCount: number };
          }
        ).spec.minReplicaCount;
      expect([minimum(true), minimum(false)]).toEqual([1, 0]);
    });

    it("scales a serverless app (the newer clients' default tier) to zero as dev_zero", () => {
      const serverless = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'serverless', resourceSpec: { maxScale: 3 } } },
        settings: { ...settings, appUrls, gateway, activator },
        serving,
      });
      expect(serverless.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(
        zero({ resourceSpec: { maxScale: 3 } }).map((o) => `${o.kind}/${o.metadata?.name}`),
      );
    });

    it('runs as dev without a URL for the activator to hold, and with maxScale 0 runs nothing', () => {
      const unrouted = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'dev_zero' } },
        settings: { ...settings, gateway, activator },
        serving,
      });
      expect(unrouted.map((o) => o.kind)).toEqual(['Service', 'Deployment', 'HorizontalPodAutoscaler']);
      expect(zero({ resourceSpec: { maxScale: 0 } }).map((o) => o.kind)).toEqual(['Service', 'Service', 'Deployment', 'HTTPRoute']);
      const dev = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'dev' } },
        settings: { ...settings, appUrls, gateway, activator },
        serving,
      });
      expect(dev.map((o) => o.kind)).toEqual(['Service', 'Service', 'Deployment', 'HorizontalPodAutoscaler', 'HTTPRoute']);
    });
  });

  describe('a durable agent server with a queue worker', () => {
    const agent: DeploymentSpecInput = {
      source: 'internal_source',
      sourceConfig: { resourceSpec: { queueMinScale: 1, queueMaxScale: 3 } },
      sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
    };
    const durable = { ...settings, images: { ...settings.images, agentServer: 'registry/berth/agent-server@sha256:0' } };
    const render = (spec: DeploymentSpecInput, installation: typeof durable) =>
      renderWorkloads({ owner, spec, settings: installation, serving });
    const envOf = (objects: ReturnType<typeof render>, name: string) =>
      Object.fromEntries(
        (
          (objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === name) as V1Deployment).spec!.template.spec!.containers[0]!
            .env ?? []
        )
          .filter((e) => e.value !== undefined)
          .map((e) => [e.name, e.value]),
      );

    it('queues runs on the API and runs them on the queue worker, ten per pod', () => {
      const objects = render(agent, durable);
      expect(envOf(objects, 'shop')).toMatchObject({ BERTH_ROLE: 'api', WORKER_COUNT: '0' });
      expect(envOf(objects, 'shop-queue')).toMatchObject({ BERTH_ROLE: 'queue', WORKER_COUNT: '1', N_JOBS_PER_WORKER: '10' });
    });

    it("scales the queue worker on the runs in its own Postgres where the installation has KEDA, with that database's password", () => {
      const withKeda = { ...durable, requestConcurrency: { serverAddress: 'http://metrics:8428', query: 'q' } };
      const objects = render(agent, withKeda);
      expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).not.toContain('HorizontalPodAutoscaler/shop-queue');
      const queue = objects.find((o) => o.kind === 'ScaledObject' && o.metadata?.name === 'shop-queue') as ScaledObject;
      expect(queue.spec).toMatchObject({
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop-queue' },
        minReplicaCount: 1,
        maxReplicaCount: 3,
        // One worker at a time, a minute apart, each draining its runs as it goes.
        advanced: {
          horizontalPodAutoscalerConfig: {
            name: 'shop-queue',
            behavior: { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
          },
        },
        triggers: [
          {
            type: 'postgresql',
            metricType: 'AverageValue',
            metadata: {
              host: 'shop-postgres.ns.svc',
              userName: 'postgres',
              dbName: 'postgres',
              sslmode: 'require',
              passwordFromEnv: 'POSTGRES_PASSWORD',
              query: "SELECT count(*) FROM runs WHERE status IN ('pending', 'running')",
              targetQueryValue: '10',
            },
          },
          // Read back by the metrics route; never more than the backlog, so never the larger of the two.
          { type: 'postgresql', name: 'runs-pending', metadata: { query: "SELECT count(*) FROM runs WHERE status = 'pending'" } },
        ],
      });
      // The password KEDA reads is the queue worker's own, from this database's Secret.
      const queueWorker = objects.find((o) => o.metadata?.name === 'shop-queue' && o.kind === 'Deployment') as V1Deployment;
      expect(queueWorker.spec!.template.spec!.containers[0]!.env).toContainEqual({
        name: 'POSTGRES_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'shop-postgres', key: 'password' } },
      });
    });

    it('leaves other apps, and agents on the reference image, to the CPU autoscaler with every worker in the API', () => {
      for (const [spec, installation] of [
        [agent, settings],
        [{ ...agent, sourceRevisionConfig: {} }, durable],
        [{ ...agent, source: 'external_docker', sourceRevisionConfig: { imageUri: 'x' } }, durable],
      ] as const) {
        const objects = render(spec as DeploymentSpecInput, installation as typeof durable);
        expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toContain('HorizontalPodAutoscaler/shop-queue');
        expect(envOf(objects, 'shop').WORKER_COUNT).toBeUndefined();
      }
    });

    it("runs ten at once in each process that runs them, whatever the queue, not aegra's three times ten", () => {
      expect(envOf(render(agent, durable), 'shop-queue')).toMatchObject({ WORKER_COUNT: '1', N_JOBS_PER_WORKER: '10' });
      const alone = render({ ...agent, sourceConfig: { resourceSpec: { maxScale: 2 } } }, durable);
      expect(envOf(alone, 'shop')).toMatchObject({ WORKER_COUNT: '1', N_JOBS_PER_WORKER: '10' });
    });

    it("drains its runs when told to stop, for the reference's 180 s or the deployment's own, within the pods' grace period", () => {
      const graceOf = (objects: ReturnType<typeof render>, name: string) =>
        (objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === name) as V1Deployment).spec!.template.spec!
          .terminationGracePeriodSeconds;
      const byDefault = render(agent, durable);
      for (const name of ['shop', 'shop-queue']) {
        expect(envOf(byDefault, name).WORKER_DRAIN_TIMEOUT).toBe('180');
        // The pre-stop sleep (15), uvicorn's wait for the requests and the worker's for the runs (180 each), the exit (15).
        expect(graceOf(byDefault, name)).toBe(390);
      }
      const own = render({ ...agent, sourceConfig: { ...agent.sourceConfig, runDrainSeconds: 20 } }, durable);
      expect(envOf(own, 'shop').WORKER_DRAIN_TIMEOUT).toBe('20');
      expect(graceOf(own, 'shop')).toBe(70);
      // Other apps, and agents on the reference's image, keep the kubelet's default.
      for (const [spec, installation] of [
        [agent, settings],
        [{ ...agent, source: 'external_docker', sourceRevisionConfig: { imageUri: 'x' } }, durable],
      ] as const) {
        const objects = render(spec as DeploymentSpecInput, installation as typeof durable);
        expect(envOf(objects, 'shop').WORKER_DRAIN_TIMEOUT).toBeUndefined();
        expect(graceOf(objects, 'shop')).toBeUndefined();
      }
    });
  });

  describe("the reference image's licence key", () => {
    const licensed = { ...settings, agentServerLicense: 'berth-agent-server-license' };
    const tenantKey = { name: 'LANGGRAPH_CLOUD_LICENSE_KEY', value: 'the-tenants-own' };
    const agent: DeploymentSpecInput = {
      source: 'internal_source',
      sourceConfig: { resourceSpec: { queueMaxScale: 1 }, queueWorker: { env: [tenantKey] } },
      sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
      secrets: [{ name: 'LANGGRAPH_CLOUD_LICENSE_KEY' }],
    };
    const licenceEnv = (spec: DeploymentSpecInput, installation: object) =>
      (
        renderWorkloads({ owner, spec, settings: installation as typeof settings, serving }).filter(
          (o) => o.kind === 'Deployment' && o.metadata?.name !== 'shop-redis',
        ) as V1Deployment[]
      ).map((d) => d.spec!.template.spec!.containers[0]!.env!.filter((e) => e.name === 'LANGGRAPH_CLOUD_LICENSE_KEY'));

    it("comes from the organization's copy of the platform's Secret, never from the tenant, in the API and the queue worker", () => {
      const platform = {
        name: 'LANGGRAPH_CLOUD_LICENSE_KEY',
        valueFrom: { secretKeyRef: { name: 'berth-agent-server-license', key: 'LANGGRAPH_CLOUD_LICENSE_KEY' } },
      };
      expect(licenceEnv(agent, licensed)).toEqual([[platform], [platform]]);
      // The client's own Docker build runs the reference's image too.
      expect(licenceEnv({ source: 'internal_docker', sourceRevisionConfig: { imageUri: 'r/i@sha256:0' } }, licensed)).toEqual([[platform]]);
    });

    it("is left out where agents run on the installation's own server, other apps, and installations that name none", () => {
      const durable = { ...licensed, images: { ...settings.images, agentServer: 'registry/berth/agent-server@sha256:0' } };
      const tenants = {
        name: 'LANGGRAPH_CLOUD_LICENSE_KEY',
        valueFrom: { secretKeyRef: { name: 'shop-secrets', key: 'LANGGRAPH_CLOUD_LICENSE_KEY' } },
      };
      // The queue worker's own variable wins over the secret's there, as any of its own does.
      expect(licenceEnv(agent, durable)).toEqual([[tenants], [tenantKey]]);
      expect(licenceEnv(agent, settings)).toEqual([[tenants], [tenantKey]]);
      expect(licenceEnv({ source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx:1' } }, licensed)).toEqual([[]]);
    });
  });

  it("sizes a development tier's database small, unless its db* fields say otherwise", () => {
    const database = (spec: DeploymentSpecInput) => {
      const sts = renderWorkloads({ owner, spec, settings }).find((o) => o.kind === 'StatefulSet') as V1StatefulSet;
      return {
        requests: sts.spec!.template.spec!.containers[0]!.resources!.requests,
        storage: sts.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests!.storage,
      };
    };
    expect(database({ source: 'codehost', sourceConfig: { deploymentType: 'dev' } })).toEqual({
      requests: { cpu: '100m', memory: '256Mi' },
      storage: '1Gi',
    });
    expect(database({ source: 'codehost', sourceConfig: { deploymentType: 'prod' } })).toEqual({
      requests: { cpu: '250m', memory: '512Mi' },
      storage: '10Gi',
    });
    expect(
      database({ source: 'codehost', sourceConfig: { deploymentType: 'dev_zero', resourceSpec: { dbStorageGi: 5, dbCpu: 0.5 } } }),
    ).toEqual({
      requests: { cpu: '500m', memory: '256Mi' },
      storage: '5Gi',
    });
  });

  it('keeps at least two API replicas of a dedicated app, more when its minScale asks', () => {
    // The replica count is the autoscaler's (the Deployment sends none).
    const bounds = (deploymentType: 'dedicated' | 'dev', resourceSpec: Record<string, number>) => {
      const objects = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType, resourceSpec } },
        settings,
        serving,
      });
      const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler') as unknown as {
        spec: { minReplicas: number; maxReplicas: number };
      };
      return [hpa.spec.minReplicas, hpa.spec.maxReplicas];
    };
    expect(bounds('dedicated', {})).toEqual([2, 2]);
    expect(bounds('dedicated', { minScale: 1, maxScale: 5 })).toEqual([2, 5]);
    expect(bounds('dedicated', { minScale: 3 })).toEqual([3, 3]);
    expect(bounds('dev', {})).toEqual([1, 1]);
  });

  it('gates the app on a readiness probe on its port, drains it before stopping, kills no slow starter, and probes no queue worker', () => {
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { resourceSpec: { queueMaxScale: 1 } } };
    const containerOf = (name: string) => {
      const deployment = renderWorkloads({ owner, spec, settings, serving }).find(
        (o) => o.kind === 'Deployment' && o.metadata?.name === name,
      ) as V1Deployment;
      return deployment.spec!.template.spec!.containers[0]!;
    };
    expect(containerOf('shop').readinessProbe).toEqual({
      tcpSocket: { port: 'http' },
      periodSeconds: 1,
      timeoutSeconds: 1,
      failureThreshold: 3,
    });
    expect(containerOf('shop').ports).toEqual([{ name: 'http', containerPort: 8000 }]);
    expect(containerOf('shop').livenessProbe).toBeUndefined();
    expect(containerOf('shop-queue').readinessProbe).toBeUndefined();
    // A terminating app keeps serving while the Gateway and kube-proxy stop sending it requests.
    expect(containerOf('shop').lifecycle).toEqual({ preStop: { sleep: { seconds: 15 } } });
    expect(containerOf('shop-queue').lifecycle).toBeUndefined();
  });

  it('checks the health path and timings the spec sets', () => {
    const spec: DeploymentSpecInput = {
      source: 'external_docker',
      sourceConfig: { healthCheck: { path: '/ok', periodSeconds: 5, failureThreshold: 6 } },
    };
    const app = renderWorkloads({ owner, spec, settings, serving }).find((o) => o.kind === 'Deployment') as V1Deployment;
    expect(app.spec!.template.spec!.containers[0]!.readinessProbe).toEqual({
      httpGet: { path: '/ok', port: 'http' },
      periodSeconds: 5,
      timeoutSeconds: 1,
      failureThreshold: 6,
    });
  });

  it('rolls out by surge: old pods stay until new ones are Ready', () => {
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { resourceSpec: { queueMaxScale: 1 } } };
    const rolled = renderWorkloads({ owner, spec, settings, serving }).filter(
      (o) => o.kind === 'Deployment' && ['shop', 'shop-queue'].includes(o.metadata?.name ?? ''),
    );
    expect(rolled).toHaveLength(2);
    for (const deployment of rolled as V1Deployment[]) {
      expect(deployment.spec!.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    }
  });

  it('renders the same manifests for the same input', () => {
    const spec: DeploymentSpecInput = {
      source: 'codehost',
      sourceConfig: { customUrl: 'https://a.example.com', resourceSpec: { queueMaxScale: 1 } },
    };
    expect(JSON.stringify(renderWorkloads({ owner, spec, settings, serving }))).toBe(
      JSON.stringify(renderWorkloads({ owner, spec, settings, serving })),
    );
  });
});

const next = { name: 'shop-bbbbbbbbbb', image: 'registry/shop:2' };
const migrating: DeploymentSpecInput = {
  source: 'external_docker',
  sourceConfig: {
    preDeployCommand: 'alembic upgrade head',
    smokeTestPath: '/ready',
    resourceSpec: { dbCpu: 0.5, sidecars: [{ name: 'proxy', image: 'envoy:1' }] },
  },
  secrets: [{ name: 'DB_TOKEN' }],
};

describe('a pre-deploy command', () => {
  it("runs once, in the revision's image with the application's environment and waits, owned by the Revision", () => {
    const job = renderPreDeployJob(workloadInput({ owner, spec: migrating, settings }, next), 'alembic upgrade head', 'rev-uid');
    expect(job.metadata).toMatchObject({
      name: 'shop-bbbbbbbbbb-pre-deploy',
      namespace: 'ns',
      labels: { 'berth.dev/revision': 'shop-bbbbbbbbbb', 'app.kubernetes.io/component': 'pre-deploy' },
      ownerReferences: [{ kind: 'Revision', name: 'shop-bbbbbbbbbb', uid: 'rev-uid', controller: true }],
    });
    expect(job.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 1800 });
    const pod = job.spec!.template.spec!;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.initContainers?.map((c) => c.name)).toEqual(['wait-for-network', 'wait-for-postgres']);
    // The application's container, running the command: no port, probes, hook or sidecar.
    expect(pod.containers).toHaveLength(1);
    const [container] = pod.containers;
    expect(container).toMatchObject({ name: 'pre-deploy', image: 'registry/shop:2', command: ['sh', '-c', 'alembic upgrade head'] });
    expect(container!.env).toContainEqual({ name: 'DB_TOKEN', valueFrom: { secretKeyRef: { name: 'shop-secrets', key: 'DB_TOKEN' } } });
    expect(container).not.toHaveProperty('ports');
    expect(container).not.toHaveProperty('readinessProbe');
    expect(container).not.toHaveProperty('startupProbe');
  });
});

describe('a smoke test', () => {
  it('holds a new pod out of traffic until its path answers, and restarts one that does not within 60 s', () => {
    const app = renderWorkloads({ owner, spec: migrating, settings, serving: next }).find(
      (o) => o.kind === 'Deployment' && o.metadata?.name === 'shop',
    ) as {
      spec: { template: { spec: { containers: { startupProbe?: object }[] } } };
    };
    expect(app.spec.template.spec.containers[0]!.startupProbe).toEqual({
      httpGet: { path: '/ready', port: 'http' },
      periodSeconds: 1,
      timeoutSeconds: 1,
      failureThreshold: 60,
    });
  });
});

describe('a queue worker', () => {
  it('counts a new pod only once it stayed up 10 s; a durable agent server one once it listens', () => {
    const queue = (
      extra: Partial<DeploymentSpecInput>,
      images: { postgres: string; redis: string; agentServer?: string } = settings.images,
    ) =>
      renderWorkloads({
        owner,
        spec: { source: 'internal_source', sourceConfig: { resourceSpec: { queueMaxScale: 2 } }, ...extra },
        settings: { ...settings, images },
        serving: next,
      }).find((o) => o.metadata?.name === 'shop-queue') as {
        spec: { minReadySeconds: number; template: { spec: { containers: { readinessProbe?: object }[] } } };
      };
    expect(queue({}).spec.minReadySeconds).toBe(10);
    expect(queue({}).spec.template.spec.containers[0]!.readinessProbe).toBeUndefined();
    const agent = queue({ sourceRevisionConfig: { graphConfigPath: 'langgraph.json' } }, {
      ...settings.images,
      agentServer: 'agent:1',
    } as never);
    expect(agent.spec.template.spec.containers[0]!.readinessProbe).toEqual({
      tcpSocket: { port: 8000 },
      periodSeconds: 1,
      failureThreshold: 3,
    });
  });
});

describe('named sizes', () => {
  const resourcesOf = (spec: DeploymentSpecInput, name: string, requestScale = 1) => {
    const found = renderWorkloads({ owner, spec, settings: { ...settings, requestScale }, serving }).find(
      (o) => o.metadata?.name === name && (o.kind === 'Deployment' || o.kind === 'StatefulSet'),
    ) as V1Deployment | V1StatefulSet | undefined;
    const container = found?.spec?.template.spec?.containers[0];
    return container && { resources: container.resources, args: container.args };
  };
  const sized = (resourceSpec: NonNullable<NonNullable<DeploymentSpecInput['sourceConfig']>['resourceSpec']>): DeploymentSpecInput => ({
    source: 'internal_source',
    sourceConfig: { deploymentType: 'prod', resourceSpec },
  });

  it("sizes the server and its queue worker by the server's size, the database by its own", () => {
    const spec = sized({ size: 'medium', dbSize: 'large', queueMaxScale: 2 });
    const medium = { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '2', memory: '4Gi' } };
    expect(resourcesOf(spec, 'shop')?.resources).toEqual(medium);
    expect(resourcesOf(spec, 'shop-queue')?.resources).toEqual(medium);
    expect(resourcesOf(spec, 'shop-postgres')).toEqual({
      resources: { requests: { cpu: '2', memory: '8Gi' }, limits: { cpu: '4', memory: '16Gi' } },
      args: [
        '-c',
        'max_connections=400',
        '-c',
        'ssl=on',
        '-c',
        'ssl_cert_file=/etc/postgresql-tls/server.crt',
        '-c',
        'ssl_key_file=/etc/postgresql-tls/server.key',
      ],
    });
  });

  it('lets a figure the spec sets win, and keeps every request within its limit', () => {
    expect(resourcesOf(sized({ size: 'large', cpu: 3, memoryLimitMb: 1024 }), 'shop')?.resources).toEqual({
      // The spec's cpu over the size's request; the size's limit raised to it would be 4 anyway.
      // The size's memory request (4 GiB) is held to the spec's limit (1 GiB).
      requests: { cpu: '3', memory: '1Gi' },
      limits: { cpu: '4', memory: '1Gi' },
    });
    expect(resourcesOf(sized({ size: 'small', cpu: 3 }), 'shop')?.resources).toEqual({
      requests: { cpu: '3', memory: '1Gi' },
      limits: { cpu: '3', memory: '2Gi' },
    });
    // No size: a limit below Berth's default request holds the request too (the pod was refused before).
    expect(resourcesOf(sized({ cpuLimit: 0.25 }), 'shop')?.resources).toEqual({
      requests: { cpu: '250m', memory: '512Mi' },
      limits: { cpu: '250m' },
    });
  });

  it('scales the requests by the installation, never the limits', () => {
    expect(resourcesOf(sized({ size: 'small' }), 'shop', 0.1)?.resources).toEqual({
      requests: { cpu: '50m', memory: '102Mi' },
      limits: { cpu: '1', memory: '2Gi' },
    });
  });

  it('runs no workload by itself: a database size without a database sizes nothing', () => {
    const image: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { resourceSpec: { dbSize: 'large', size: 'small' } } };
    expect(kinds(image)).toEqual(['Service/shop', 'Deployment/shop', 'HorizontalPodAutoscaler/shop']);
  });

  it("keeps the database's storage by tier: a size never resizes a volume", () => {
    const sts = renderWorkloads({ owner, spec: sized({ dbSize: 'small' }), settings }).find(
      (o) => o.kind === 'StatefulSet',
    ) as V1StatefulSet;
    expect(sts.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests!.storage).toBe('10Gi');
  });
});

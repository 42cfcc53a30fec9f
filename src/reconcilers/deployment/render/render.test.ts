import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { renderApplication, renderApplicationService, renderQueueWorker, type WorkloadInput } from './application.ts';
import { renderApplicationAutoscaler, renderQueueWorkerAutoscaler } from './autoscalers.ts';
import { backingServices, scaling } from './backing.ts';
import {
  agentServerBase,
  agentServerBaseEnv,
  buildContextFunction,
  builtImage,
  fetchProgram,
  graphCheck,
  graphCheckInterpreter,
  langgraphCliVersion,
  renderBuildJob,
  renderBuildSecret,
} from './build-job.ts';
import { buildJobLocation } from '../../../workloads/build-jobs.ts';
import { cpuQuantity, memoryQuantity, resourceRequirements, revisionLabel } from './common.ts';
import { defaultBuildResources, defaultConcurrencyQuery, parseCustomUrl } from '../../../api/index.ts';
import { renderIngress } from './ingress.ts';
import { networkReadyContainer } from './network-ready.ts';
import { routeServiceNames } from '../../../api/child-names.ts';
import { postgresDnsNames, renderPostgres, renderPostgresService, renderPostgresTlsSecret } from './postgres.ts';
import { renderRedis } from './redis.ts';
import { renderRevision, renderRevisionSecrets } from './revision.ts';
import type { DeploymentSpecInput } from './spec.ts';
import { renderTracingProject } from './tracing-project.ts';

const owner = { name: 'shop', namespace: 'team-a', uid: '0b8f6a5e-1111-4222-8333-944445555666' };
const ownerRef = {
  apiVersion: 'berth.dev/v1alpha1',
  kind: 'Deployment',
  name: 'shop',
  uid: owner.uid,
  controller: true,
  blockOwnerDeletion: true,
};

const imageSpec: DeploymentSpecInput = {
  source: 'external_docker',
  sourceConfig: {
    resourceSpec: {
      minScale: 2,
      maxScale: 5,
      cpu: 0.5,
      cpuLimit: 2,
      memoryMb: 1024,
      memoryLimitMb: 1536,
      labels: { team: 'a', 'app.kubernetes.io/component': 'hijack' },
      annotations: { 'prometheus.io/scrape': 'true' },
      serviceAccountName: 'shop-sa',
      imagePullSecrets: [{ name: 'regcred' }],
      volumes: [{ name: 'cache', emptyDir: {} }],
      volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
      initContainers: [{ name: 'migrate', image: 'shop:migrate' }],
      sidecars: [{ name: 'proxy', image: 'envoy:1' }],
    },
  },
  sourceRevisionConfig: { imageUri: 'shop:1' },
  secrets: [{ name: 'API_KEY' }, { name: 'DB_PASS', valueFrom: { secretKeyRef: { name: 'vault', key: 'db' } } }],
};

const input = (spec: DeploymentSpecInput = imageSpec): WorkloadInput => ({
  owner,
  spec,
  serving: { name: 'shop-abcdef0123', image: 'shop:1' },
  images: { postgres: 'postgres:16', redis: 'redis:7', networkWait: 'berth/wait:1' },
  requestScale: 1,
  progressDeadlineSeconds: 600,
  backing: backingServices(spec),
  port: 8000,
});

describe('quantities in the form the API server stores', () => {
  it.each([
    [0.5, '500m'],
    [1, '1'],
    [2.25, '2250m'],
    [0.001, '1m'],
  ])('cpu %s -> %s', (cores, expected) => expect(cpuQuantity(cores)).toBe(expected));

  it.each([
    [512, '512Mi'],
    [1024, '1Gi'],
    [1536, '1536Mi'],
    [1024 * 1024, '1Ti'],
    [0, '0'],
  ])('memory %s MB -> %s', (mb, expected) => expect(memoryQuantity(mb)).toBe(expected));

  it('sets limits only where the spec sets one', () => {
    expect(resourceRequirements({}, { cpu: 0.5, memoryMb: 512 })).toEqual({ requests: { cpu: '500m', memory: '512Mi' } });
    expect(resourceRequirements({ cpu: 1, cpuLimit: 2 }, { cpu: 0.5, memoryMb: 512 })).toEqual({
      requests: { cpu: '1', memory: '512Mi' },
      limits: { cpu: '2' },
    });
  });
});

describe('backing services', () => {
  it.each([
    ['an image without db or queue fields', { source: 'external_docker' }, { database: false, queueWorker: false, redis: false }],
    ['a codehost application', { source: 'codehost' }, { database: true, queueWorker: false, redis: false }],
    ['an application built from uploaded sources', { source: 'internal_source' }, { database: true, queueWorker: false, redis: false }],
    [
      'an image that sizes its database',
      { source: 'external_docker', sourceConfig: { resourceSpec: { dbStorageGi: 5 } } },
      { database: true, queueWorker: false, redis: false },
    ],
    [
      'an image with a queue',
      { source: 'internal_docker', sourceConfig: { resourceSpec: { queueMaxScale: 3 } } },
      { database: false, queueWorker: true, redis: true },
    ],
    [
      'an image with a cache',
      { source: 'external_docker', sourceConfig: { resourceSpec: { redisMemoryMb: 128 } } },
      { database: false, queueWorker: false, redis: true },
    ],
    [
      "an application with the team's own Postgres",
      { source: 'codehost', sourceConfig: { externalDatabase: { postgresUri: { name: 'db', key: 'uri' } } } },
      { database: false, queueWorker: false, redis: false },
    ],
    [
      "a queue with the team's own Redis",
      {
        source: 'internal_docker',
        sourceConfig: { resourceSpec: { queueMaxScale: 3 }, externalDatabase: { redisUri: { name: 'cache', key: 'uri' } } },
      },
      { database: false, queueWorker: true, redis: false },
    ],
  ])('%s', (_, spec, expected) => {
    const { external, ...ours } = backingServices(spec as DeploymentSpecInput);
    expect(ours).toEqual(expected);
    expect(external).toEqual((spec as DeploymentSpecInput).sourceConfig?.externalDatabase ?? {});
  });

  it.each([
    [undefined, undefined, { kind: 'autoscaled', minReplicas: 1, maxReplicas: 1 }],
    [2, 5, { kind: 'autoscaled', minReplicas: 2, maxReplicas: 5 }],
    [0, 3, { kind: 'autoscaled', minReplicas: 1, maxReplicas: 3 }],
    [0, 0, { kind: 'scaledToZero' }],
  ])('scaling min %s max %s', (min, max, expected) => {
    expect(scaling(min, max)).toEqual(expected);
  });
});

describe('renderApplication', () => {
  const deployment = renderApplication(input());
  const pod = deployment.spec!.template;
  const app = pod.spec!.containers[0]!;

  it('is owned by the Deployment and labelled with it', () => {
    expect(deployment.metadata).toMatchObject({
      name: 'shop',
      namespace: 'team-a',
      ownerReferences: [ownerRef],
      labels: { team: 'a', 'berth.dev/deployment': 'shop', 'app.kubernetes.io/component': 'application' },
    });
  });

  it('runs the serving revision image, labelled with the revision', () => {
    expect(app.image).toBe('shop:1');
    expect(pod.metadata!.labels).toMatchObject({
      [revisionLabel]: 'shop-abcdef0123',
      team: 'a',
      'app.kubernetes.io/component': 'application',
    });
    expect(deployment.spec!.selector.matchLabels).toEqual({ 'berth.dev/deployment': 'shop', 'app.kubernetes.io/component': 'application' });
  });

  it('sizes the container from resourceSpec', () => {
    expect(app.resources).toEqual({ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '1536Mi' } });
  });

  it('scales the requests by the request scale, never the limits, and gives apps/v1 the progress deadline', () => {
    const scaled = renderApplication({ ...input(), requestScale: 0.25, progressDeadlineSeconds: 90 });
    expect(scaled.spec?.template.spec?.containers[0]?.resources).toEqual({
      requests: { cpu: '125m', memory: '256Mi' },
      limits: { cpu: '2', memory: '1536Mi' },
    });
    expect(scaled.spec?.progressDeadlineSeconds).toBe(90);
    expect(resourceRequirements({ cpu: 0.001, memoryMb: 1 }, { cpu: 0.5, memoryMb: 512 }, 0.1)).toEqual({
      requests: { cpu: '1m', memory: '1Mi' },
    });
  });

  it('reads secrets from Secrets, never from values', () => {
    expect(app.env).toEqual(
      expect.arrayContaining([
        { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-secrets', key: 'API_KEY' } } },
        { name: 'DB_PASS', valueFrom: { secretKeyRef: { name: 'vault', key: 'db' } } },
      ]),
    );
  });

  it("reads a revision's secrets from its own Secret, whatever the spec names now", () => {
    const snapshot = { snapshot: 'shop-abcdef0123-env', names: ['API_KEY', 'OLD_KEY'] };
    const own = renderApplication({ ...input(), serving: { ...input().serving, secrets: snapshot } });
    const env = own.spec!.template.spec!.containers[0]!.env!;
    expect(env.filter((e) => e.valueFrom?.secretKeyRef && !e.name.endsWith('_PASSWORD'))).toEqual([
      { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-abcdef0123-env', key: 'API_KEY' } } },
      { name: 'OLD_KEY', valueFrom: { secretKeyRef: { name: 'shop-abcdef0123-env', key: 'OLD_KEY' } } },
    ]);
  });

  it('carries the pod settings of resourceSpec', () => {
    expect(pod.metadata!.annotations).toEqual({ 'prometheus.io/scrape': 'true' });
    expect(pod.spec).toMatchObject({
      serviceAccountName: 'shop-sa',
      imagePullSecrets: [{ name: 'regcred' }],
      initContainers: [{ name: networkReadyContainer }, { name: 'migrate', image: 'shop:migrate' }],
      volumes: [{ name: 'cache', emptyDir: {} }],
    });
    expect(pod.spec!.containers.map((c) => c.name)).toEqual(['app', 'proxy']);
    expect(app.volumeMounts).toEqual([{ name: 'cache', mountPath: '/cache' }]);
  });

  it("adds the organization's registry credential to the pull secrets, once", () => {
    const withRegistry = renderApplication({ ...input(), registryCredentials: 'berth-organization' });
    expect(withRegistry.spec!.template.spec!.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'berth-organization' }]);
    const named = renderApplication({ ...input(), registryCredentials: 'regcred' });
    expect(named.spec!.template.spec!.imagePullSecrets).toEqual([{ name: 'regcred' }]);
  });

  it("pulls the organization registry's images with the credential at every start, whatever the spec asks", () => {
    const registry = '10.243.0.1:5001';
    const own = `${registry}/team-a/shop@sha256:${'a'.repeat(64)}`;
    const spec = {
      ...imageSpec,
      sourceRevisionConfig: { imageUri: own },
      sourceConfig: {
        resourceSpec: {
          sidecars: [{ name: 'cached', image: `${registry}/team-b/tool:1`, imagePullPolicy: 'Never' as const }],
          initContainers: [
            { name: 'init', image: `${registry}/team-a/init:1`, imagePullPolicy: 'IfNotPresent' as const },
            { name: 'public', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' as const },
          ],
        },
      },
    };
    const pod = renderApplication({
      ...input(spec),
      serving: { ...input(spec).serving, image: own },
      registryCredentials: 'berth-organization',
      credentialedRegistry: registry,
    }).spec!.template.spec!;
    const policies = Object.fromEntries(
      [...pod.containers, ...(pod.initContainers ?? [])].map((container) => [container.name, container.imagePullPolicy]),
    );
    expect(policies).toEqual({ app: 'Always', cached: 'Always', init: 'Always', public: 'IfNotPresent', 'wait-for-postgres': undefined });
  });

  it('leaves the replica count to the autoscaler, except at zero', () => {
    expect(deployment.spec!.replicas).toBeUndefined();
    const zero = renderApplication(input({ ...imageSpec, sourceConfig: { resourceSpec: { maxScale: 0 } } }));
    expect(zero.spec!.replicas).toBe(0);
  });

  it('connects to the backing services it has', () => {
    const env = renderApplication(input({ source: 'codehost', sourceConfig: { resourceSpec: { queueMaxScale: 1 } } })).spec!.template.spec!
      .containers[0]!.env!;
    expect(env.find((e) => e.name === 'DATABASE_URI')?.value).toBe(
      'postgres://postgres:$(POSTGRES_PASSWORD)@shop-postgres:5432/postgres?sslmode=disable',
    );
    expect(env.find((e) => e.name === 'REDIS_URI')?.value).toBe('redis://:$(REDIS_PASSWORD)@shop-redis:6379');
    // Passwords come from Secrets, declared before the URIs that expand them.
    const names = env.map((e) => e.name);
    expect(names.indexOf('POSTGRES_PASSWORD')).toBeLessThan(names.indexOf('DATABASE_URI'));
    expect(names.indexOf('REDIS_PASSWORD')).toBeLessThan(names.indexOf('REDIS_URI'));
    expect(env.find((e) => e.name === 'REDIS_PASSWORD')?.valueFrom).toEqual({ secretKeyRef: { name: 'shop-redis', key: 'password' } });
    expect(app.env!.some((e) => e.name === 'DATABASE_URI')).toBe(false);
  });

  it("holds the app's and the queue worker's containers until the database and the cache answer, before the user's init containers", () => {
    const spec: DeploymentSpecInput = {
      source: 'codehost',
      sourceConfig: { resourceSpec: { queueMaxScale: 1, initContainers: [{ name: 'migrate', image: 'shop:1' }] } },
    };
    for (const workload of [renderApplication(input(spec)), renderQueueWorker(input(spec))]) {
      const init = workload.spec!.template.spec!.initContainers!;
      expect(init.map((c) => [c.name, c.image])).toEqual([
        [networkReadyContainer, 'berth/wait:1'],
        ['wait-for-postgres', 'postgres:16'],
        ['wait-for-redis', 'redis:7'],
        ['migrate', 'shop:1'],
      ]);
      expect(init[1]!.env).toEqual([{ name: 'POSTGRES_HOST', value: 'shop-postgres' }]);
      // The password stays in its Secret: redis-cli reads REDISCLI_AUTH, nothing is on a command line.
      expect(init[2]!.env).toContainEqual({ name: 'REDISCLI_AUTH', valueFrom: { secretKeyRef: { name: 'shop-redis', key: 'password' } } });
      expect(JSON.stringify(init[2]!.command)).not.toMatch(/-a |password/i);
    }
    const databaseOnly = renderApplication(input({ source: 'external_docker', sourceConfig: { resourceSpec: { dbStorageGi: 1 } } }));
    expect(databaseOnly.spec!.template.spec!.initContainers!.map((c) => c.name)).toEqual([networkReadyContainer, 'wait-for-postgres']);
  });

  it("gives the team's own databases' URIs from their Secrets, and holds the pods until each answers", () => {
    const externalDatabase = { postgresUri: { name: 'team-db', key: 'uri' }, redisUri: { name: 'team-cache', key: 'url' } };
    const spec: DeploymentSpecInput = { source: 'codehost', sourceConfig: { resourceSpec: { queueMaxScale: 1 }, externalDatabase } };
    for (const workload of [renderApplication(input(spec)), renderQueueWorker(input(spec))]) {
      const pod = workload.spec!.template.spec!;
      const env = pod.containers[0]!.env!;
      expect(env.find((e) => e.name === 'DATABASE_URI')).toEqual({
        name: 'DATABASE_URI',
        valueFrom: { secretKeyRef: externalDatabase.postgresUri },
      });
      expect(env.find((e) => e.name === 'REDIS_URI')).toEqual({
        name: 'REDIS_URI',
        valueFrom: { secretKeyRef: externalDatabase.redisUri },
      });
      expect(env.map((e) => e.name)).not.toContain('POSTGRES_PASSWORD');
      const init = pod.initContainers!;
      expect(init.map((c) => [c.name, c.image])).toEqual([
        [networkReadyContainer, 'berth/wait:1'],
        ['wait-for-external-postgres', 'postgres:16'],
        ['wait-for-external-redis', 'redis:7'],
      ]);
      expect(init[1]!.env).toContainEqual({ name: 'URI', valueFrom: { secretKeyRef: externalDatabase.postgresUri } });
      expect(init[1]!.terminationMessagePolicy).toBe('FallbackToLogsOnError');
    }
  });

  it('omits what resourceSpec does not set', () => {
    const bare = renderApplication(input({ source: 'external_docker', sourceRevisionConfig: { imageUri: 'x' } }));
    expect(bare.spec!.template.spec).not.toHaveProperty('volumes');
    // Only the wait for the node's network policy: a bare app is held for nothing else.
    expect(bare.spec!.template.spec!.initContainers!.map((c) => c.name)).toEqual([networkReadyContainer]);
    // With no image for that wait (--network-wait-image unset), nothing at all.
    const unheld = renderApplication({
      ...input({ source: 'external_docker', sourceRevisionConfig: { imageUri: 'x' } }),
      images: { postgres: 'p', redis: 'r' },
    });
    expect(unheld.spec!.template.spec).not.toHaveProperty('initContainers');
    expect(bare.spec!.template.spec!.containers).toHaveLength(1);
  });
});

describe('renderApplicationService and renderQueueWorker', () => {
  it('routes port 80 to the application', () => {
    expect(renderApplicationService(input()).spec).toEqual({
      selector: { 'berth.dev/deployment': 'shop', 'app.kubernetes.io/component': 'application' },
      ports: [{ name: 'http', port: 80, targetPort: 'http' }],
    });
  });

  it('sizes the queue worker from the queue fields', () => {
    const worker = renderQueueWorker(
      input({ source: 'external_docker', sourceConfig: { resourceSpec: { queueCpu: 1, queueMemoryMb: 2048 } } }),
    );
    expect(worker.metadata!.name).toBe('shop-queue');
    expect(worker.spec!.template.spec!.containers[0]).toMatchObject({
      name: 'queue',
      image: 'shop:1',
      resources: { requests: { cpu: '1', memory: '2Gi' } },
    });
  });

  it("starts the queue worker with its own command, arguments and environment, the image's entrypoint and BERTH_ROLE otherwise", () => {
    const plain = renderQueueWorker(input({ source: 'external_docker', sourceConfig: { resourceSpec: { queueMaxScale: 1 } } })).spec!
      .template.spec!.containers[0]!;
    expect(plain.command).toBeUndefined();
    expect(plain.args).toBeUndefined();
    expect(plain.env).toContainEqual({ name: 'BERTH_ROLE', value: 'queue' });
    const own = renderQueueWorker(
      input({
        source: 'external_docker',
        sourceConfig: {
          resourceSpec: { queueMaxScale: 1 },
          queueWorker: {
            command: ['/app'],
            args: ['worker'],
            env: [
              { name: 'BERTH_ROLE', value: 'jobs' },
              { name: 'N_JOBS', value: '4' },
            ],
          },
        },
      }),
    ).spec!.template.spec!.containers[0]!;
    expect(own).toMatchObject({ command: ['/app'], args: ['worker'] });
    expect(own.env!.filter((e) => e.name === 'BERTH_ROLE')).toEqual([{ name: 'BERTH_ROLE', value: 'jobs' }]);
    expect(own.env).toContainEqual({ name: 'N_JOBS', value: '4' });
    expect(own.env).toContainEqual(expect.objectContaining({ name: 'REDIS_URI' }));
    // The application's container is not touched by it.
    const app = renderApplication(
      input({ source: 'external_docker', sourceConfig: { queueWorker: { command: ['/app'], args: ['worker'] } } }),
    ).spec!.template.spec!.containers[0]!;
    expect(app.command).toBeUndefined();
  });
});

describe('autoscalers', () => {
  const autoscaling = { scaleDownWindowSeconds: 60 };
  const routed = routeServiceNames(owner.uid).stable;
  it.each([
    [
      { minScale: 2, maxScale: 5 },
      { minReplicas: 2, maxReplicas: 5 },
    ],
    [{}, { minReplicas: 1, maxReplicas: 1 }],
    [{ maxScale: 0 }, undefined],
  ])('%j', (resourceSpec, expected) => {
    const hpa = renderApplicationAutoscaler(owner, { source: 'external_docker', sourceConfig: { resourceSpec } }, autoscaling, routed);
    if (expected === undefined) expect(hpa).toBeUndefined();
    else expect(hpa!.spec).toMatchObject({ ...expected, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' } });
  });

  it('is a KEDA ScaledObject on requests in flight and CPU where the installation reads them', () => {
    const signal = { serverAddress: 'http://prometheus.monitoring:9090', query: defaultConcurrencyQuery };
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { resourceSpec: { minScale: 2, maxScale: 6 } } };
    const scaled = renderApplicationAutoscaler(owner, spec, { ...autoscaling, requestConcurrency: signal }, routed)!;
    expect(scaled).toMatchObject({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'shop', namespace: owner.namespace },
    });
    expect(scaled.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
      minReplicaCount: 2,
      maxReplicaCount: 6,
      // KEDA's autoscaler takes the name Berth's own would have, with the same scale-down window.
      advanced: { horizontalPodAutoscalerConfig: { name: 'shop', behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } },
      triggers: [
        { type: 'cpu', metricType: 'Utilization', metadata: { value: '70' } },
        {
          type: 'prometheus',
          name: 'requests-in-flight',
          metricType: 'AverageValue',
          metadata: {
            serverAddress: 'http://prometheus.monitoring:9090',
            // The route Service's figures: named from the uid, no other deployment's can fold into them.
            query: `sum(rate(traefik_service_request_duration_seconds_sum{service="${owner.namespace}-${routed}-http-80@kubernetesgateway"}[30s]))`,
            threshold: '10',
            ignoreNullValues: 'true',
          },
        },
      ],
    });
    // max_scale 0 still means no autoscaler at all.
    expect(
      renderApplicationAutoscaler(
        owner,
        { source: 'external_docker', sourceConfig: { resourceSpec: { maxScale: 0 } } },
        { ...autoscaling, requestConcurrency: signal },
        routed,
      ),
    ).toBeUndefined();
  });

  it("scales the queue worker from the queue fields, load low for the installation's window before replicas go, one at a time", () => {
    expect(
      renderQueueWorkerAutoscaler(
        owner,
        { source: 'external_docker', sourceConfig: { resourceSpec: { queueMinScale: 1, queueMaxScale: 4 } } },
        { scaleDownWindowSeconds: 15 },
      )!.spec,
    ).toMatchObject({
      minReplicas: 1,
      maxReplicas: 4,
      scaleTargetRef: { name: 'shop-queue' },
      behavior: { scaleDown: { stabilizationWindowSeconds: 15, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
    });
  });
});

describe('postgres and redis', () => {
  const spec: DeploymentSpecInput = {
    source: 'codehost',
    sourceConfig: { resourceSpec: { dbCpu: 1, dbMemoryMb: 2048, dbStorageGi: 20, dbMaxConnections: 50, redisMemoryMb: 100 } },
  };

  it('sizes the database from the db fields', () => {
    const sts = renderPostgres({ owner, spec, image: 'postgres:16' });
    const container = sts.spec!.template.spec!.containers[0]!;
    expect(container.resources).toEqual({ requests: { cpu: '1', memory: '2Gi' } });
    expect(container.args).toEqual([
      '-c',
      'max_connections=50',
      '-c',
      'ssl=on',
      '-c',
      'ssl_cert_file=/etc/postgresql-tls/server.crt',
      '-c',
      'ssl_key_file=/etc/postgresql-tls/server.key',
    ]);
    expect(sts.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests).toEqual({ storage: '20Gi' });
    expect(sts.metadata!.ownerReferences).toEqual([ownerRef]);
  });

  it('serves TLS from its own Secret, copied where only the server reads its key', () => {
    const pod = renderPostgres({ owner, spec, image: 'postgres:16' }).spec!.template.spec!;
    const [copy] = pod.initContainers!;
    expect(copy).toMatchObject({ name: 'tls', image: 'postgres:16', resources: pod.containers[0]!.resources });
    expect(copy!.command!.join(' ')).toContain('umask 077');
    expect(copy!.command!.join(' ')).toContain('chown postgres:postgres /etc/postgresql-tls/server.crt /etc/postgresql-tls/server.key');
    expect(pod.volumes).toEqual([
      { name: 'tls-secret', secret: { secretName: 'shop-postgres-tls', defaultMode: 0o400 } },
      { name: 'tls', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
    ]);
    expect(pod.containers[0]!.volumeMounts).toContainEqual({ name: 'tls', mountPath: '/etc/postgresql-tls', readOnly: true });
    const secret = renderPostgresTlsSecret(owner, { certificate: 'CERT', key: 'KEY' });
    expect(secret).toMatchObject({ type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'CERT', 'tls.key': 'KEY' } });
    expect(secret.metadata).toMatchObject({ name: 'shop-postgres-tls', ownerReferences: [ownerRef] });
    expect(postgresDnsNames(owner)).toEqual([
      'shop-postgres',
      `shop-postgres.${owner.namespace}.svc`,
      `shop-postgres.${owner.namespace}.svc.cluster.local`,
    ]);
  });

  it('keeps the claim size of an existing database', () => {
    const sts = renderPostgres({ owner, spec, image: 'postgres:16', existingStorage: '10Gi' });
    expect(sts.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests).toEqual({ storage: '10Gi' });
  });

  it('gives the database a headless Service', () => {
    expect(renderPostgresService(owner).spec).toMatchObject({ clusterIP: 'None', ports: [{ port: 5432 }] });
  });

  it('sizes redis from redisMemoryMb', () => {
    const container = renderRedis(owner, spec, 'redis:7').spec!.template.spec!.containers[0]!;
    expect(container.resources).toEqual({ requests: { cpu: '100m', memory: '100Mi' }, limits: { memory: '100Mi' } });
    expect(container.args).toContain('90mb');
  });

  it('makes redis require the password of its Secret, never spelled in the spec', () => {
    const container = renderRedis(owner, spec, 'redis:7').spec!.template.spec!.containers[0]!;
    expect(container.args!.slice(-2)).toEqual(['--requirepass', '$(BERTH_REDIS_PASSWORD)']);
    expect(container.env).toEqual([{ name: 'BERTH_REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'shop-redis', key: 'password' } } }]);
  });
});

describe('ingress', () => {
  it.each([
    ['https://shop.example.com', { host: 'shop.example.com', path: '/' }],
    ['http://Shop.Example.com/api', { host: 'shop.example.com', path: '/api' }],
    ['shop.example.com', { host: 'shop.example.com', path: '/' }],
    ['https://10.0.0.1', undefined],
    ['https://', undefined],
  ])('%s', (url, expected) => {
    expect(parseCustomUrl(url)).toEqual(expected);
  });

  it('routes the host to the route Service', () => {
    const routed = routeServiceNames(owner.uid).stable;
    const ingress = renderIngress(owner, [{ objectName: 'shop', host: 'shop.example.com', path: '/' }], routed);
    expect(ingress.spec!.rules![0]).toEqual({
      host: 'shop.example.com',
      http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: routed, port: { name: 'http' } } } }] },
    });
  });
});

/** A build pod's steps: its init containers after the wait for the network. */
function steps(pod: V1PodSpec): V1Container[] {
  return pod.initContainers!.filter((c) => c.name !== networkReadyContainer);
}

describe('renderBuildJob', () => {
  const besideOwner = buildJobLocation(undefined, { ...owner, name: 'shop-abcdef0123', uid: 'r-uid' });
  const job = renderBuildJob({
    owner,
    revisionName: 'shop-abcdef0123',
    location: besideOwner,
    sources: {
      kind: 'repository',
      repoUrl: 'https://github.com/acme/shop',
      repoRef: 'main; rm -rf /',
      credentialsSecretName: 'github-token',
    },
    installCommand: 'npm ci',
    buildCommand: 'npm run build',
    images: { git: 'alpine/git', tools: 'node:24', builder: 'moby/buildkit', agentTools: 'python:3.11-slim' },
    networkWaitImage: 'berth/wait:1',
    graphConfigPath: 'agents/langgraph.json',
    registry: 'registry.local:5000/',
    privileged: true,
    resources: defaultBuildResources,
    requestScale: 0.5,
  });
  const pod = job.spec!.template.spec!;

  it('gives every step its requests, scaled, and the limits of CPU, memory and node disk', () => {
    for (const step of [...steps(pod), ...pod.containers]) {
      expect(step.resources, step.name).toEqual({
        requests: { cpu: '250m', memory: '512Mi' },
        limits: { cpu: '2', memory: '4Gi', 'ephemeral-storage': '20Gi' },
      });
    }
  });

  it('pushes <registry>/<namespace>/<deployment>:<revision>', () => {
    expect(builtImage('registry.local:5000/', 'team-a', 'shop', 'shop-abcdef0123')).toBe('registry.local:5000/team-a/shop:shop-abcdef0123');
    expect(pod.containers[0]!.env).toEqual([{ name: 'IMAGE', value: 'registry.local:5000/team-a/shop:shop-abcdef0123' }]);
    expect(pod.containers[0]!.command!.join(' ')).toContain('--output="type=image,name=$IMAGE,push=true"');
  });

  it('runs clone, commands, dockerfile and image in order, each leaving its result or its last log lines as termination message', () => {
    // First, the wait for the node's network policy (the clone's fetch must not meet a new pod's first moment), sized as a wait.
    expect(pod.initContainers![0]).toMatchObject({ name: networkReadyContainer, resources: { requests: { cpu: '10m' } } });
    expect([...steps(pod), ...pod.containers].map((c) => [c.name, c.terminationMessagePolicy])).toEqual([
      ['clone', 'FallbackToLogsOnError'],
      ['commands', 'FallbackToLogsOnError'],
      ['dockerfile', 'FallbackToLogsOnError'],
      ['image', 'FallbackToLogsOnError'],
    ]);
    expect(steps(pod)[0]!.command!.join(' ')).toContain('git rev-parse HEAD >/dev/termination-log');
    expect(pod.containers[0]!.command!.join(' ')).toContain('cat /tmp/build-metadata.json >/dev/termination-log');
    expect(pod.containers[0]!.securityContext).toEqual({ privileged: true });
    expect(job.spec!.backoffLimit).toBe(0);
  });

  it('passes user input as environment, never inside the script', () => {
    const clone = steps(pod)[0]!;
    expect(clone.command!.join(' ')).not.toContain('rm -rf');
    expect(clone.env).toEqual(expect.arrayContaining([{ name: 'REPO_REF', value: 'main; rm -rf /' }]));
    expect(steps(pod)[1]!.env).toEqual([
      { name: 'INSTALL_COMMAND', value: 'npm ci' },
      { name: 'BUILD_COMMAND', value: 'npm run build' },
    ]);
  });

  it("makes the Dockerfile from the configuration file in the agent tools image, and builds it from the file's directory", () => {
    const step = steps(pod)[2]!;
    expect(step.image).toBe('python:3.11-slim');
    expect(step.env).toEqual(
      expect.arrayContaining([
        { name: 'GRAPH_CONFIG_PATH', value: 'agents/langgraph.json' },
        { name: 'LANGGRAPH_CLI_VERSION', value: langgraphCliVersion },
        // No report of the build to the tool's maker.
        { name: 'LANGGRAPH_CLI_NO_ANALYTICS', value: '1' },
      ]),
    );
    const script = step.command!.join(' ');
    expect(script).toContain('if [ -f Dockerfile ]; then');
    expect(script).toContain('langgraph dockerfile -c "$config" /generated/Dockerfile');
    expect(script).not.toContain('agents/langgraph.json');
    expect(pod.containers[0]!.command!.join(' ')).toContain('--local=context="$context" --local=dockerfile="$dockerfile"');
    expect(pod.containers[0]!.volumeMounts).toEqual(expect.arrayContaining([{ name: 'generated', mountPath: '/generated' }]));
  });

  it("gives the token to git for the fetch only, never into the workspace's git config", () => {
    const script = steps(pod)[0]!.command!.join(' ');
    expect(script).toContain('git -c "http.extraHeader=Authorization: Basic');
    expect(script).not.toMatch(/git config /);
  });

  it('reads the code host token from the integration Secret', () => {
    expect(steps(pod)[0]!.env).toEqual(
      expect.arrayContaining([{ name: 'GIT_TOKEN', valueFrom: { secretKeyRef: { name: 'github-token', key: 'token', optional: true } } }]),
    );
  });

  it('is named and labelled after the revision', () => {
    expect(job.metadata).toMatchObject({
      name: 'shop-abcdef0123-build',
      labels: { [revisionLabel]: 'shop-abcdef0123' },
      ownerReferences: [ownerRef],
    });
    expect(pod.restartPolicy).toBe('Never');
  });

  it('fetches an uploaded archive with Python instead of cloning, its addresses as environment; the commands step unpacks it', () => {
    const archive = renderBuildJob({
      owner,
      revisionName: 'shop-abcdef0123',
      location: besideOwner,
      sources: {
        kind: 'archive',
        manifestUrl: 'http://registry.local:5000/v2/team-a/shop/sources/manifests/abc',
        blobsUrl: 'http://registry.local:5000/v2/team-a/shop/sources/blobs',
      },
      images: { git: 'alpine/git', tools: 'busybox', builder: 'moby/buildkit', agentTools: 'python:3.11-slim' },
      registry: 'registry.local:5000',
      privileged: false,
      resources: defaultBuildResources,
      requestScale: 1,
    }).spec!.template.spec!;
    const [fetch, commands] = steps(archive);
    expect([...steps(archive), ...archive.containers].map((c) => c.name)).toEqual(['fetch', 'commands', 'dockerfile', 'image']);
    expect(fetch!.image).toBe('python:3.11-slim');
    expect(fetch!.env).toEqual([
      { name: 'MANIFEST_URL', value: 'http://registry.local:5000/v2/team-a/shop/sources/manifests/abc' },
      { name: 'BLOBS_URL', value: 'http://registry.local:5000/v2/team-a/shop/sources/blobs' },
      { name: 'FETCH', value: fetchProgram },
    ]);
    expect(fetch!.volumeMounts).toEqual([{ name: 'sources', mountPath: '/sources' }]);
    expect(commands!.command!.join(' ')).toContain('tar -xzf /sources/sources.tar.gz');
    expect(commands!.volumeMounts).toContainEqual({ name: 'sources', mountPath: '/sources', readOnly: true });
    expect(archive.containers[0]!.securityContext).toBeUndefined();
  });

  it('with a registry credential, mounts it only into the fetch and image steps, as a Docker config', () => {
    const credentialed = renderBuildJob({
      owner,
      revisionName: 'shop-abcdef0123',
      location: besideOwner,
      sources: {
        kind: 'archive',
        manifestUrl: 'http://registry.local/v2/team-a/shop/sources/manifests/abc',
        blobsUrl: 'http://registry.local/v2/team-a/shop/sources/blobs',
      },
      images: { git: 'alpine/git', tools: 'busybox', builder: 'moby/buildkit', agentTools: 'python:3.11-slim' },
      registry: 'registry.local',
      privileged: false,
      resources: defaultBuildResources,
      requestScale: 1,
      registryCredentials: 'berth-organization',
    }).spec!.template.spec!;
    const mounting = [...steps(credentialed), ...credentialed.containers]
      .filter((c) => c.volumeMounts?.some((m) => m.name === 'registry-auth'))
      .map((c) => c.name);
    expect(mounting).toEqual(['fetch', 'image']);
    expect(credentialed.volumes).toContainEqual({
      name: 'registry-auth',
      secret: { secretName: 'berth-organization', items: [{ key: '.dockerconfigjson', path: 'config.json' }] },
    });
    expect(credentialed.containers[0]!.env).toContainEqual({ name: 'DOCKER_CONFIG', value: '/registry-auth' });
  });
});

describe('renderRevision and renderTracingProject', () => {
  const digest = 'f'.repeat(64);

  it('names, labels and owns the revision', () => {
    const revision = renderRevision({ owner, generation: 3, source: 'codehost', sourceRevisionConfig: { repoRef: 'main' }, digest });
    expect(revision.metadata).toEqual({
      name: 'shop-ffffffffff',
      namespace: 'team-a',
      labels: { 'berth.dev/deployment': 'shop', 'berth.dev/revision-digest': 'f'.repeat(63), 'berth.dev/deployment-generation': '3' },
      ownerReferences: [ownerRef],
    });
    expect(revision.spec).toEqual({ deploymentName: 'shop', source: 'codehost', sourceRevisionConfig: { repoRef: 'main' }, digest });
  });

  it("keeps the revision's secret values in an immutable Secret of its own, which the revision names", () => {
    const secret = renderRevisionSecrets(owner, digest, { API_KEY: 'b25l' });
    expect(secret).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'shop-ffffffffff-env',
        namespace: 'team-a',
        // No berth.dev/secret label: no cache of Berth's holds it.
        labels: { 'berth.dev/deployment': 'shop', 'berth.dev/revision-digest': 'f'.repeat(63) },
        ownerReferences: [ownerRef],
      },
      type: 'Opaque',
      immutable: true,
      data: { API_KEY: 'b25l' },
    });
    const revision = renderRevision({
      owner,
      generation: 1,
      source: 'external_docker',
      sourceRevisionConfig: { imageUri: 'shop:1' },
      digest,
      secretNames: ['API_KEY'],
      secretSnapshot: secret.metadata!.name!,
    });
    expect(revision.spec).toMatchObject({ secretNames: ['API_KEY'], secretSnapshot: 'shop-ffffffffff-env' });
  });

  it('records the commit when the ref is one', () => {
    const sha = 'a'.repeat(40);
    expect(
      renderRevision({ owner, generation: 1, source: 'codehost', sourceRevisionConfig: { repoRef: sha }, digest }).spec.sourceRevisionConfig
        .repoCommitSha,
    ).toBe(sha);
  });

  it('keeps the tracing project free of ownerReferences', () => {
    const project = renderTracingProject(owner);
    expect(project).toEqual({
      apiVersion: 'berth.dev/v1alpha1',
      kind: 'TracingProject',
      metadata: { name: 'shop', namespace: 'team-a', labels: { 'berth.dev/deployment': 'shop' } },
      spec: { deploymentName: 'shop' },
    });
  });
});

describe('the graph check of a configuration file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-graph-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const check = (files: Record<string, string>, graphs: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'langgraph.json'), JSON.stringify({ dependencies: ['.'], graphs }));
    // As the dockerfile step runs it: from the sources' directory.
    const [python, ...flags] = graphCheckInterpreter;
    const result = spawnSync(python, [...flags, 'langgraph.json'], { cwd: dir, input: graphCheck, encoding: 'utf8' });
    return { status: result.status, stdout: result.stdout };
  };

  it('passes graphs whose file defines the name at top level, without running the file', () => {
    const files = {
      'agent.py': 'import sys\nsys.exit(3)\ngraph = build()\n',
      'other.py': 'from lib import compiled as graph\n',
      'fn.py': 'def make_graph():\n    pass\n',
    };
    expect(
      check(files, { agent: './agent.py:graph', other: './other.py:graph', fn: './fn.py:make_graph', module: 'my_package.graphs:graph' }),
    ).toEqual({ status: 0, stdout: '' });
  });

  it('fails, naming the graph, the file and the error, for a missing file, a syntax error or a missing name', () => {
    const result = check(
      { 'broken.py': 'graph = (\n', 'named.py': 'grph = 1\n' },
      { a: './missing.py:graph', b: './broken.py:graph', c: './named.py:graph' },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/graph a \(\.\/missing\.py:graph\): \[Errno 2\] No such file or directory/);
    expect(result.stdout).toMatch(/graph b \(\.\/broken\.py:graph\): .*line 1/);
    expect(result.stdout).toMatch(/graph c \(\.\/named\.py:graph\): \.\/named\.py defines no graph at top level/);
  });

  it('never runs the sources: modules named like those of the standard library stay data', () => {
    const marker = join(dir, 'ran');
    const hostile = `open(${JSON.stringify(marker)}, "w").write("ran")\n`;
    const result = check(
      { 'ast.py': hostile, 'json.py': hostile, 'os.py': hostile, 'agent.py': 'graph = 1\n' },
      { agent: './agent.py:graph' },
    );
    expect(result).toEqual({ status: 0, stdout: '' });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the agent server's base image", () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-agent-base-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The generated Dockerfile after the step, as its shell runs it with the Job's settings. */
  const baseOf = (image: string | undefined, config: object) => {
    mkdirSync(join(dir, 'generated'), { recursive: true });
    writeFileSync(join(dir, 'generated/Dockerfile'), 'FROM langchain/langgraph-api:3.11\nADD . /deps/app\nFROM other AS second\n');
    writeFileSync(join(dir, 'langgraph.json'), JSON.stringify(config));
    const env = Object.fromEntries(agentServerBaseEnv(image).map(({ name, value }) => [name, value!]));
    const script = `config=langgraph.json\n${agentServerBase.replaceAll('/generated/', `${dir}/generated/`)}`;
    const result = spawnSync('sh', ['-eu', '-c', script], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    return readFileSync(join(dir, 'generated/Dockerfile'), 'utf8');
  };

  it("replaces the reference's server, and only it, with the one Berth names", () => {
    expect(baseOf('registry.local/berth/agent-server:aegra', { graphs: {} })).toBe(
      'FROM registry.local/berth/agent-server:aegra\nADD . /deps/app\nFROM other AS second\n',
    );
  });

  it("keeps the reference's server when none is named, or the configuration file names its own base_image", () => {
    expect(agentServerBaseEnv(undefined)).toEqual([]);
    expect(baseOf(undefined, { graphs: {} })).toMatch(/^FROM langchain\/langgraph-api:3.11\n/);
    expect(baseOf('registry.local/berth/agent-server:aegra', { base_image: 'mine/server', graphs: {} })).toMatch(
      /^FROM langchain\/langgraph-api:3.11\n/,
    );
  });
});

describe('the build context of a configuration file', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'berth-build-context-'));
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));
  mkdirSync(join(workspace, 'agents/inner'), { recursive: true });
  symlinkSync('/', join(workspace, 'root'));
  symlinkSync('../..', join(workspace, 'agents/up'));
  symlinkSync('inner', join(workspace, 'agents/alias'));
  /** What the image step's shell makes of the directory the dockerfile step wrote. */
  const contextOf = (directory: string) => {
    writeFileSync(join(workspace, '.context'), `${directory}\n`);
    const script = `${buildContextFunction}\nbuild_context "$1" "$1/.context"`;
    const result = spawnSync('sh', ['-c', script, 'sh', workspace], { encoding: 'utf8' });
    return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
  };

  it('is the directory inside the sources, links inside them followed', () => {
    expect(contextOf('.')).toEqual({ status: 0, stdout: workspace, stderr: '' });
    expect(contextOf('agents').stdout).toBe(join(workspace, 'agents'));
    expect(contextOf('agents/alias').stdout).toBe(join(workspace, 'agents/inner'));
  });

  it('is refused when a link leads out of the sources, or names nothing', () => {
    expect(contextOf('root')).toEqual({ status: 1, stdout: '', stderr: 'the build context root leads out of the sources' });
    expect(contextOf('agents/up')).toMatchObject({ status: 1, stderr: 'the build context agents/up leads out of the sources' });
    expect(contextOf('missing')).toMatchObject({ status: 1, stderr: 'the build context missing is not a directory of the sources' });
  });
});

describe('a build apart from its Deployment (the build namespace)', () => {
  const location = buildJobLocation('berth-builds', { ...owner, name: 'shop-abcdef0123', uid: '6f1c-revision-uid' });
  const job = renderBuildJob({
    owner,
    revisionName: 'shop-abcdef0123',
    location,
    sources: { kind: 'repository', repoUrl: 'https://github.com/acme/shop', repoRef: 'main', credentialsSecretName: location.name },
    images: { git: 'alpine/git', tools: 'busybox', builder: 'moby/buildkit', agentTools: 'python:3.11-slim' },
    registry: 'registry.local',
    privileged: true,
    resources: defaultBuildResources,
    requestScale: 1,
    registryCredentials: location.name,
  });

  it("runs on the installation's build nodes when it names them, and anywhere otherwise", () => {
    expect(job.spec!.template.spec!.nodeSelector).toBeUndefined();
    const placement = {
      nodeSelector: { 'berth.dev/builds': 'true' },
      tolerations: [{ key: 'berth.dev/builds', operator: 'Exists' as const, effect: 'NoSchedule' as const }],
    };
    const placed = renderBuildJob({
      owner,
      revisionName: 'shop-abcdef0123',
      location,
      sources: { kind: 'repository', repoUrl: 'https://github.com/acme/shop', repoRef: 'main' },
      images: { git: 'alpine/git', tools: 'busybox', builder: 'moby/buildkit', agentTools: 'python:3.11-slim' },
      registry: 'registry.local',
      privileged: true,
      resources: defaultBuildResources,
      requestScale: 1,
      placement,
    }).spec!.template.spec!;
    expect({ nodeSelector: placed.nodeSelector, tolerations: placed.tolerations }).toEqual(placement);
  });

  it('is named by its Revision uid in the build namespace, labelled with whose build it is, owned by nobody', () => {
    expect(location).toEqual({ namespace: 'berth-builds', name: 'build-6f1c-revision-uid', apart: true });
    expect(job.metadata!.namespace).toBe('berth-builds');
    expect(job.metadata!.name).toBe('build-6f1c-revision-uid');
    expect(job.metadata!.ownerReferences).toBeUndefined();
    expect(job.metadata!.labels).toMatchObject({
      [revisionLabel]: 'shop-abcdef0123',
      'berth.dev/build-for-namespace': owner.namespace,
      'berth.dev/build-for-deployment': owner.uid,
    });
    expect(job.spec!.template.metadata!.labels).toEqual({
      [revisionLabel]: 'shop-abcdef0123',
      'berth.dev/build-for-namespace': owner.namespace,
    });
    expect(job.spec!.template.spec!.automountServiceAccountToken).toBe(false);
  });

  it('reads the code host token and the registry credential from its own Secret, owned by the Job', () => {
    const pod = job.spec!.template.spec!;
    const clone = steps(pod)[0]!;
    expect(clone.env).toContainEqual({
      name: 'GIT_TOKEN',
      valueFrom: { secretKeyRef: { name: location.name, key: 'token', optional: true } },
    });
    expect(pod.volumes).toContainEqual({
      name: 'registry-auth',
      secret: { secretName: location.name, items: [{ key: '.dockerconfigjson', path: 'config.json' }] },
    });
    const secret = renderBuildSecret({ ...location, uid: 'job-uid' }, { dockerConfigJson: 'e30=', token: 'ghp_x' });
    expect(secret.metadata!.ownerReferences).toEqual([
      { apiVersion: 'batch/v1', kind: 'Job', name: location.name, uid: 'job-uid', controller: true, blockOwnerDeletion: true },
    ]);
    expect(secret.data).toEqual({ '.dockerconfigjson': 'e30=', token: Buffer.from('ghp_x').toString('base64') });
  });

  it('stays beside its Deployment when no build namespace is set', () => {
    expect(buildJobLocation(undefined, { ...owner, name: 'shop-1', uid: 'u' })).toEqual({
      namespace: owner.namespace,
      name: 'shop-1-build',
      apart: false,
    });
    expect(buildJobLocation(owner.namespace, { ...owner, name: 'shop-1', uid: 'u' }).apart).toBe(false);
  });
});

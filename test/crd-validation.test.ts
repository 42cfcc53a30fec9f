// What the API server itself refuses, before anything is stored: one invalid object per rule of the
// generated CRDs, each rejected with a message that names the offending field. Creation rules are
// checked on create; transition rules (immutability) by creating a valid object and then changing it.
import { KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiVersion } from '../src/api/index.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const objects = KubernetesObjectApi.makeApiClient(testKubeConfig());
let namespace: string;
let counter = 0;

beforeAll(async () => {
  namespace = await useNamespace('crd-validation');
});

type Outcome = { ok: true } | { ok: false; code: number; message: string };

function failure(error: unknown): Outcome {
  const e = error as { code?: number; body?: unknown };
  let body = e.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // a non-JSON body is its own message
    }
  }
  const message = typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : String(body ?? error);
  return { ok: false, code: e.code ?? 0, message };
}

async function create(object: KubernetesObject): Promise<Outcome> {
  return objects.create({ ...object, metadata: { ...object.metadata, namespace } }).then(() => ({ ok: true }) as const, failure);
}

async function apply(object: KubernetesObject): Promise<Outcome> {
  return objects
    .patch(
      { ...object, metadata: { ...object.metadata, namespace } },
      undefined,
      undefined,
      'crd-validation',
      true,
      PatchStrategy.ServerSideApply,
    )
    .then(() => ({ ok: true }) as const, failure);
}

type Spec = Record<string, unknown>;
type Manifest = KubernetesObject & { spec?: Spec };
const nextName = (prefix: string) => `${prefix}-${++counter}`;

const deployment = (spec: Spec): Manifest => ({ apiVersion, kind: 'Deployment', metadata: { name: nextName('d') }, spec });
const provider = (spec: Spec): Manifest => ({ apiVersion, kind: 'OAuthProvider', metadata: { name: nextName('p') }, spec });
const integration = (spec: Spec): Manifest => ({ apiVersion, kind: 'CodeHostIntegration', metadata: { name: nextName('c') }, spec });
const revision = (spec: Spec): Manifest => ({ apiVersion, kind: 'Revision', metadata: { name: nextName('r') }, spec });
const tracingProject = (spec: Spec): Manifest => ({ apiVersion, kind: 'TracingProject', metadata: { name: nextName('t') }, spec });

const integrationId = '6f1c2a3e-8b4d-4f7a-9c2e-1d3b5a7c9e0f';
const codehost = (sourceConfig: Spec = {}, sourceRevisionConfig: Spec = {}, rest: Spec = {}) => ({
  source: 'codehost',
  sourceConfig: { integrationId, repoUrl: 'https://github.com/example-org/app', ...sourceConfig },
  sourceRevisionConfig: { repoRef: 'main', ...sourceRevisionConfig },
  ...rest,
});
const docker = (sourceConfig: Spec = {}, sourceRevisionConfig: Spec = {}, rest: Spec = {}) => ({
  source: 'external_docker',
  sourceConfig,
  sourceRevisionConfig: { imageUri: 'ghcr.io/example-org/app:1', ...sourceRevisionConfig },
  ...rest,
});
const resources = (resourceSpec: Spec) => docker({ resourceSpec });
const providerSpec = (overrides: Spec = {}) => ({
  providerId: 'acme',
  name: 'Acme',
  clientId: 'client',
  authUrl: 'https://sso.example/authorize',
  tokenUrl: 'https://sso.example/token',
  ...overrides,
});
const revisionSpec = (overrides: Spec = {}) => ({
  deploymentName: 'app',
  source: 'codehost',
  sourceRevisionConfig: { repoRef: 'main', repoCommitSha: 'abc123' },
  digest: 'sha256-0123456789abcdef',
  ...overrides,
});
const { source: _omitted, ...withoutSource } = docker();

/** [what is wrong, the invalid object, text the error must contain (the offending field)]. */
const invalidOnCreate: [string, Manifest, string][] = [
  ['unknown source', deployment({ ...docker(), source: 'ftp' }), 'spec.source'],
  ['missing source', deployment(withoutSource), 'spec.source'],
  ['codehost without integrationId', deployment(codehost({ integrationId: undefined })), 'spec.sourceConfig.integrationId'],
  ['codehost without repoUrl', deployment(codehost({ repoUrl: undefined })), 'spec.sourceConfig.repoUrl'],
  ['codehost without repoRef', deployment(codehost({}, { repoRef: undefined })), 'spec.sourceRevisionConfig.repoRef'],
  ['codehost with imageUri', deployment(codehost({}, { imageUri: 'nginx:1' })), 'spec.sourceRevisionConfig.imageUri'],
  ['external_docker without imageUri', deployment(docker({}, { imageUri: undefined })), 'spec.sourceRevisionConfig.imageUri'],
  [
    'external_docker with graphConfigPath',
    deployment(docker({}, { graphConfigPath: 'app.json' })),
    'spec.sourceRevisionConfig.graphConfigPath',
  ],
  [
    'tag repoRef with buildOnPush',
    deployment(codehost({ buildOnPush: true }, { repoRef: 'refs/tags/v1.0.0' })),
    'spec.sourceConfig.buildOnPush',
  ],
  ['repoUrl that is not a URL', deployment(codehost({ repoUrl: 'github.com/example-org/app' })), 'spec.sourceConfig.repoUrl'],
  ['customUrl that is not a URL', deployment(docker({ customUrl: 'ftp://example.com' })), 'spec.sourceConfig.customUrl'],
  ['integrationId that is not a UUID', deployment(codehost({ integrationId: 'not-a-uuid' })), 'spec.sourceConfig.integrationId'],
  ['unknown deploymentType', deployment(docker({ deploymentType: 'huge' })), 'spec.sourceConfig.deploymentType'],
  ['negative minScale', deployment(resources({ minScale: -1 })), 'spec.sourceConfig.resourceSpec.minScale'],
  ['idleSeconds below a minute', deployment(docker({ idleSeconds: 10 })), 'spec.sourceConfig.idleSeconds'],
  ['canary steps out of order', deployment(docker({ canary: { steps: [50, 10] } })), 'spec.sourceConfig.canary'],
  ['a canary step twice', deployment(docker({ canary: { steps: [10, 10, 50] } })), 'spec.sourceConfig.canary'],
  ['a canary step of 100', deployment(docker({ canary: { steps: [10, 100] } })), 'spec.sourceConfig.canary.steps[1]'],
  [
    'a canary success ratio above 1',
    deployment(docker({ canary: { steps: [10], minSuccessRatio: 1.5 } })),
    'spec.sourceConfig.canary.minSuccessRatio',
  ],
  ['fractional maxScale', deployment(resources({ maxScale: 1.5 })), 'spec.sourceConfig.resourceSpec.maxScale'],
  ['negative cpu', deployment(resources({ cpu: -0.5 })), 'spec.sourceConfig.resourceSpec.cpu'],
  ['minScale above maxScale', deployment(resources({ minScale: 3, maxScale: 2 })), 'spec.sourceConfig.resourceSpec.minScale'],
  [
    'queueMinScale above queueMaxScale',
    deployment(resources({ queueMinScale: 5, queueMaxScale: 1 })),
    'spec.sourceConfig.resourceSpec.queueMinScale',
  ],
  [
    'orchestratorMinScale above orchestratorMaxScale',
    deployment(resources({ orchestratorMinScale: 2, orchestratorMaxScale: 0 })),
    'spec.sourceConfig.resourceSpec.orchestratorMinScale',
  ],
  ['cpuLimit below cpu', deployment(resources({ cpu: 2, cpuLimit: 1 })), 'spec.sourceConfig.resourceSpec.cpuLimit'],
  ['fractional cpuLimit below cpu', deployment(resources({ cpu: 1, cpuLimit: 0.5 })), 'spec.sourceConfig.resourceSpec.cpuLimit'],
  [
    'memoryLimitMb below memoryMb',
    deployment(resources({ memoryMb: 512, memoryLimitMb: 256 })),
    'spec.sourceConfig.resourceSpec.memoryLimitMb',
  ],
  [
    'queueCpuLimit below queueCpu',
    deployment(resources({ queueCpu: 1, queueCpuLimit: 0.5 })),
    'spec.sourceConfig.resourceSpec.queueCpuLimit',
  ],
  [
    'queueMemoryLimitMb below queueMemoryMb',
    deployment(resources({ queueMemoryMb: 300, queueMemoryLimitMb: 200 })),
    'spec.sourceConfig.resourceSpec.queueMemoryLimitMb',
  ],
  [
    'orchestratorMemoryLimitMb below orchestratorMemoryMb',
    deployment(resources({ orchestratorMemoryMb: 300, orchestratorMemoryLimitMb: 200 })),
    'spec.sourceConfig.resourceSpec.orchestratorMemoryLimitMb',
  ],
  [
    'executorCpuLimit below executorCpu',
    deployment(resources({ executorCpu: 4, executorCpuLimit: 2 })),
    'spec.sourceConfig.resourceSpec.executorCpuLimit',
  ],
  ['dbCpuLimit below dbCpu', deployment(resources({ dbCpu: 2, dbCpuLimit: 1 })), 'spec.sourceConfig.resourceSpec.dbCpuLimit'],
  [
    'dbMemoryLimitMb below dbMemoryMb',
    deployment(resources({ dbMemoryMb: 2048, dbMemoryLimitMb: 1024 })),
    'spec.sourceConfig.resourceSpec.dbMemoryLimitMb',
  ],
  [
    'volume with two sources',
    deployment(resources({ volumes: [{ name: 'v', configMap: { name: 'a' }, emptyDir: {} }] })),
    'spec.sourceConfig.resourceSpec.volumes[0]',
  ],
  ['sidecar without image', deployment(resources({ sidecars: [{ name: 'proxy' }] })), 'spec.sourceConfig.resourceSpec.sidecars[0].image'],
  // The names Berth gives its own containers: the pod would name two alike and never be made.
  [
    'sidecar named app',
    deployment(resources({ sidecars: [{ name: 'app', image: 'busybox' }] })),
    'spec.sourceConfig.resourceSpec.sidecars[0].name',
  ],
  [
    'init container named as a wait of Berth',
    deployment(resources({ initContainers: [{ name: 'wait-for-network', image: 'busybox' }] })),
    'spec.sourceConfig.resourceSpec.initContainers[0].name',
  ],
  ['repoUrl with a credential', deployment(codehost({ repoUrl: 'https://user:token@github.com/a/b' })), 'spec.sourceConfig.repoUrl'],
  ['repoUrl with a fragment', deployment(codehost({ repoUrl: 'https://github.com/a/b#' })), 'spec.sourceConfig.repoUrl'],
  // Pod Security baseline: what it forbids a container is refused before it reaches a pod.
  [
    'privileged sidecar',
    deployment(resources({ sidecars: [{ name: 'root', image: 'busybox', securityContext: { privileged: true } }] })),
    'spec.sourceConfig.resourceSpec.sidecars[0].securityContext.privileged',
  ],
  [
    'init container adding SYS_ADMIN',
    deployment(
      resources({ initContainers: [{ name: 'init', image: 'busybox', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] }),
    ),
    'spec.sourceConfig.resourceSpec.initContainers[0].securityContext.capabilities.add[0]',
  ],
  [
    'Unconfined seccomp profile',
    deployment(resources({ sidecars: [{ name: 's', image: 'busybox', securityContext: { seccompProfile: { type: 'Unconfined' } } }] })),
    'spec.sourceConfig.resourceSpec.sidecars[0].securityContext.seccompProfile.type',
  ],
  [
    'unknown imagePullPolicy',
    deployment(resources({ initContainers: [{ name: 'init', image: 'busybox', imagePullPolicy: 'Sometimes' }] })),
    'spec.sourceConfig.resourceSpec.initContainers[0].imagePullPolicy',
  ],
  [
    'volumeMount without mountPath',
    deployment(resources({ volumeMounts: [{ name: 'v' }] })),
    'spec.sourceConfig.resourceSpec.volumeMounts[0].mountPath',
  ],
  ['secret name that is no Secret key', deployment(docker({}, {}, { secrets: [{ name: 'A B' }] })), 'spec.secrets[0].name'],
  ['the same secret twice', deployment(docker({}, {}, { secrets: [{ name: 'A' }, { name: 'A' }] })), 'spec.secrets[1]'],
  [
    'secretKeyRef without key',
    deployment(docker({}, {}, { secrets: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's' } } }] })),
    'spec.secrets[0].valueFrom.secretKeyRef.key',
  ],
  ['OAuth authUrl that is not a URL', provider(providerSpec({ authUrl: 'sso.example/authorize' })), 'spec.authUrl'],
  ['OAuth tokenUrl that is not a URL', provider(providerSpec({ tokenUrl: 'javascript:alert(1)' })), 'spec.tokenUrl'],
  ['OAuth mcpServerUrl that is not a URL', provider(providerSpec({ mcpServerUrl: 'mcp' })), 'spec.mcpServerUrl'],
  [
    'OAuth codeChallengeMethod other than S256 or plain',
    provider(providerSpec({ codeChallengeMethod: 'S512' })),
    'spec.codeChallengeMethod',
  ],
  [
    'OAuth unknown tokenEndpointAuthMethod',
    provider(providerSpec({ tokenEndpointAuthMethod: 'private_key_jwt' })),
    'spec.tokenEndpointAuthMethod',
  ],
  ['OAuth unknown providerType', provider(providerSpec({ providerType: 'vendor_c' })), 'spec.providerType'],
  ['OAuth without clientId', provider(providerSpec({ clientId: undefined })), 'spec.clientId'],
  ['OAuth clientSecretRef without name', provider(providerSpec({ clientSecretRef: { key: 'k' } })), 'spec.clientSecretRef.name'],
  ['code host other than github or gitlab', integration({ provider: 'bitbucket', credentialsSecretRef: { name: 's' } }), 'spec.provider'],
  ['code host without credentialsSecretRef', integration({ provider: 'github' }), 'spec.credentialsSecretRef'],
  ['code host baseUrl that is not a URL', integration({ baseUrl: 'localhost:3000', credentialsSecretRef: { name: 's' } }), 'spec.baseUrl'],
  ['Revision without digest', revision(revisionSpec({ digest: undefined })), 'spec.digest'],
  ['Revision with unknown source', revision(revisionSpec({ source: 'zip' })), 'spec.source'],
  ['TracingProject without deploymentName', tracingProject({}), 'spec.deploymentName'],
];

/** [what changes, the valid object, the same object changed, text the error must contain]. */
const invalidTransitions: [string, Manifest, Spec, string][] = [
  ['source changes', deployment(docker()), { ...docker(), source: 'internal_docker' }, 'spec.source'],
  [
    'integrationId changes',
    deployment(codehost()),
    codehost({ integrationId: '0b7e7c1e-2d7a-4e55-9a36-5b8d8f0c1a2b' }),
    'spec.sourceConfig.integrationId',
  ],
  [
    'deploymentType changes',
    deployment(docker({ deploymentType: 'dev' })),
    docker({ deploymentType: 'prod' }),
    'spec.sourceConfig.deploymentType',
  ],
  ['deploymentType is removed', deployment(docker({ deploymentType: 'dev' })), docker(), 'spec.sourceConfig.deploymentType'],
  [
    'listenerId changes',
    deployment(docker({ listenerId: integrationId })),
    docker({ listenerId: '0b7e7c1e-2d7a-4e55-9a36-5b8d8f0c1a2b' }),
    'spec.sourceConfig.listenerId',
  ],
  [
    'listenerConfig.k8sNamespace changes',
    deployment(docker({ listenerConfig: { k8sNamespace: 'apps' } })),
    docker({ listenerConfig: { k8sNamespace: 'other' } }),
    'spec.sourceConfig.listenerConfig.k8sNamespace',
  ],
  [
    'listenerConfig is removed',
    deployment(docker({ listenerConfig: { k8sNamespace: 'apps' } })),
    docker(),
    'spec.sourceConfig.listenerConfig.k8sNamespace',
  ],
  ['a Revision spec is edited', revision(revisionSpec()), revisionSpec({ digest: 'sha256-fedcba' }), 'spec'],
  ['a Revision config is edited', revision(revisionSpec()), revisionSpec({ sourceRevisionConfig: { repoRef: 'dev' } }), 'spec'],
  ['providerId changes', provider(providerSpec()), providerSpec({ providerId: 'other' }), 'spec.providerId'],
  ['a TracingProject changes deployment', tracingProject({ deploymentName: 'a' }), { deploymentName: 'b' }, 'spec.deploymentName'],
];

describe('CRD validation in the API server', () => {
  it('accepts the valid objects the cases start from', async () => {
    for (const valid of [
      deployment(codehost({ buildOnPush: true, deploymentType: 'dev' }, { graphConfigPath: 'app.json' })),
      deployment(codehost({ buildOnPush: false }, { repoRef: 'refs/tags/v1.0.0' })),
      deployment(
        docker({
          customUrl: 'https://app.example.com',
          resourceSpec: { minScale: 2, maxScale: 2, cpu: 1, cpuLimit: 1.5, memoryMb: 1, memoryLimitMb: 1 },
        }),
      ),
      deployment({ ...docker(), source: 'internal_docker' }),
      // Waiting for its first image.
      deployment({ ...docker({}, { imageUri: undefined }), source: 'internal_docker' }),
      provider(providerSpec({ codeChallengeMethod: 'plain', mcpServerUrl: 'http://127.0.0.1:8080/mcp' })),
      integration({ baseUrl: 'http://127.0.0.1:3000/api/v3', credentialsSecretRef: { name: 's' } }),
      revision(revisionSpec()),
      tracingProject({ deploymentName: 'app' }),
    ]) {
      expect(await create(valid), JSON.stringify(valid.spec)).toEqual({ ok: true });
    }
  });

  it.each(invalidOnCreate)('rejects %s, naming the field', async (_what, object, field) => {
    const outcome = await create(object);
    expect(outcome).toMatchObject({ ok: false, code: 422 });
    expect((outcome as { message: string }).message).toContain(field);
  });

  it.each(invalidTransitions)('rejects an update where %s, naming the field', async (_what, valid, changed, field) => {
    expect(await apply(valid)).toEqual({ ok: true });
    const outcome = await apply({ ...valid, spec: changed } as KubernetesObject);
    expect(outcome).toMatchObject({ ok: false, code: 422 });
    expect((outcome as { message: string }).message).toContain(field);
  });

  it('lets an immutable-once-set field be set later, and sourceConfig change in place', async () => {
    const object = deployment(docker({ resourceSpec: { minScale: 1 } }));
    expect(await apply(object)).toEqual({ ok: true });
    expect(await apply({ ...object, spec: docker({ deploymentType: 'dev', resourceSpec: { minScale: 2 } }) } as KubernetesObject)).toEqual({
      ok: true,
    });
    expect(
      await apply({
        ...object,
        spec: docker({ deploymentType: 'dev', customUrl: 'https://a.example' }, { imageUri: 'app:2' }),
      } as KubernetesObject),
    ).toEqual({
      ok: true,
    });
    // The repository changes in place too (the next build reads it).
    const fromGit = deployment(codehost());
    expect(await apply(fromGit)).toEqual({ ok: true });
    expect(await apply({ ...fromGit, spec: codehost({ repoUrl: 'https://github.com/example-org/other' }) } as KubernetesObject)).toEqual({
      ok: true,
    });
  });

  it('applies the documented defaults', async () => {
    const object = provider(providerSpec());
    expect(await apply(object)).toEqual({ ok: true });
    const stored = (await objects.read({ ...object, metadata: { name: object.metadata!.name!, namespace } })) as Manifest;
    expect(stored.spec).toMatchObject({
      usesPkce: false,
      codeChallengeMethod: 'S256',
      tokenEndpointAuthMethod: 'client_secret_post',
      isDynamicClient: false,
    });
    const integrationObject = integration({ credentialsSecretRef: { name: 's' } });
    expect(await apply(integrationObject)).toEqual({ ok: true });
    const storedIntegration = (await objects.read({
      ...integrationObject,
      metadata: { name: integrationObject.metadata!.name!, namespace },
    })) as KubernetesObject & {
      spec: Spec;
    };
    expect(storedIntegration.spec.provider).toBe('github');
  });
});

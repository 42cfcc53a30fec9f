// The snake_case <-> camelCase conversion is derived from the schemas: converting a body that uses every
// declared field to a CR spec and back gives the same body, and free-form members keep their keys.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  codeHostIntegrationSpecSchema,
  deploymentSpecSchema,
  fromWire,
  oauthProviderObjectName,
  oauthProviderSpecSchema,
  revisionSpecSchema,
  snakeCase,
  toWire,
  unwrap,
  wireSchema,
} from './index.ts';
import { partsOf, type Schema } from './schema-parts.ts';

/** Every path a schema declares (array elements as []), down to scalars and free-form maps. */
function declaredPaths(schema: Schema, prefix = ''): string[] {
  const parts = partsOf(unwrap(schema));
  if (parts.kind === 'object') {
    return Object.entries(parts.shape).flatMap(([key, member]) => declaredPaths(member, `${prefix}.${key}`));
  }
  if (parts.kind === 'array') return declaredPaths(parts.element, `${prefix}[]`);
  return [prefix];
}

/** Every path a value fills, spelled like declaredPaths. */
function presentPaths(value: unknown, schema: Schema, prefix = ''): string[] {
  const parts = partsOf(unwrap(schema));
  if (parts.kind === 'object' && value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, member]) =>
      parts.shape[key] ? presentPaths(member, parts.shape[key], `${prefix}.${key}`) : [],
    );
  }
  if (parts.kind === 'array' && Array.isArray(value)) return value.flatMap((item) => presentPaths(item, parts.element, `${prefix}[]`));
  return [prefix];
}

const container = (name: string) => ({
  name,
  image: `registry.example/${name}:1`,
  imagePullPolicy: 'IfNotPresent',
  command: ['run'],
  args: ['--port', '8080'],
  workingDir: '/app',
  env: [
    { name: 'MODE', value: 'prod' },
    { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  ],
  envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'APP_' }],
  resources: { limits: { cpu: '1', 'nvidia.com/gpu': 1 }, requests: { memory: '256Mi' } },
  volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'x', mountPropagation: 'None', readOnly: true, subPathExpr: '$(POD_NAME)' }],
  securityContext: {
    privileged: false,
    allowPrivilegeEscalation: false,
    capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
    runAsUser: 1000,
    runAsGroup: 1000,
    runAsNonRoot: true,
    readOnlyRootFilesystem: true,
    seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/app.json' },
    appArmorProfile: { type: 'RuntimeDefault', localhostProfile: 'unused' },
  },
  restartPolicy: 'Always',
});

/** A deployment body as the HTTP interface spells it, using every field the interface declares. */
const everyFieldBody = {
  source: 'codehost',
  source_config: {
    integration_id: '6f1c2a3e-8b4d-4f7a-9c2e-1d3b5a7c9e0f',
    repo_url: 'https://github.com/example-org/app',
    deployment_type: 'dev',
    build_on_push: true,
    custom_url: 'https://app.example.com',
    resource_spec: {
      size: 'medium',
      min_scale: 1,
      max_scale: 3,
      cpu: 0.5,
      cpu_limit: 1,
      memory_mb: 512,
      memory_limit_mb: 1024,
      queue_min_scale: 1,
      queue_max_scale: 2,
      queue_cpu: 0.25,
      queue_cpu_limit: 0.5,
      queue_memory_mb: 256,
      queue_memory_limit_mb: 512,
      orchestrator_cpu: 0.5,
      orchestrator_cpu_limit: 1,
      orchestrator_memory_mb: 256,
      orchestrator_memory_limit_mb: 512,
      orchestrator_min_scale: 1,
      orchestrator_max_scale: 2,
      executor_cpu: 1,
      executor_cpu_limit: 2,
      executor_memory_mb: 1024,
      executor_memory_limit_mb: 2048,
      redis_memory_mb: 128,
      db_size: 'small',
      db_cpu: 1,
      db_cpu_limit: 2,
      db_memory_mb: 1024,
      db_memory_limit_mb: 2048,
      db_storage_gi: 10,
      db_max_connections: 100,
      labels: { 'app.kubernetes.io/name': 'app', team_name: 'core' },
      annotations: { 'example.com/owner_team': 'core', someCamelKey: 'x' },
      service_account_name: 'app',
      image_pull_secrets: [{ name: 'registry' }],
      volumes: [
        { name: 'a', configMap: { name: 'settings', defaultMode: 420, items: [{ key: 'k', path: 'p' }] } },
        { name: 'b', secret: { secretName: 's' } },
        { name: 'c', emptyDir: { sizeLimit: '1Gi' } },
        { name: 'd', persistentVolumeClaim: { claimName: 'data' } },
        { name: 'e', nfs: { server: 'nfs.local', path: '/x' } },
        { name: 'f', projected: { sources: [{ serviceAccountToken: { audience: 'api', expirationSeconds: 600 } }] } },
        { name: 'g', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'h', csi: { driver: 'secrets-store.csi.k8s.io', volumeAttributes: { secretProviderClass: 'x' } } },
      ],
      volume_mounts: [
        { name: 'a', mountPath: '/etc/app', subPath: 'app.json', mountPropagation: 'HostToContainer', readOnly: true, subPathExpr: '$(X)' },
      ],
      init_containers: [container('init')],
      sidecars: [container('proxy')],
    },
    listener_id: '0b7e7c1e-2d7a-4e55-9a36-5b8d8f0c1a2b',
    listener_config: { k8s_namespace: 'apps' },
    health_check: { path: '/healthz', period_seconds: 5, timeout_seconds: 2, failure_threshold: 4 },
    install_command: 'pip install .',
    build_command: 'make',
    pre_deploy_command: 'alembic upgrade head',
    smoke_test_path: '/ready',
    database_retention: 'delete',
    backups: { schedule: '30 2 * * *', before_revision: 'best_effort' },
    external_database: { postgres_uri: { name: 'team-db', key: 'uri' }, redis_uri: { name: 'team-cache', key: 'uri' } },
    notifications: { url: 'https://hooks.example.com/berth', signing_secret: { name: 'hook', key: 'key' }, events: ['deployed', 'failed'] },
    canary: { steps: [10, 50], pause_seconds: 30, min_requests: 20, min_success_ratio: 0.95, max_latency_ratio: 2 },
    previews: {
      trigger: 'label',
      label: 'preview',
      forks: 'all',
      fork_label: 'safe-to-preview',
      max_concurrent: 3,
      idle_seconds: 300,
      database: 'clone',
      secrets: [{ name: 'DB_URL', value_from: { secret_key_ref: { name: 'staging', key: 'url' } } }],
    },
    idle_seconds: 120,
    run_drain_seconds: 60,
    queue_worker: {
      command: ['/app'],
      args: ['worker'],
      env: [
        { name: 'N_JOBS', value: '4' },
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
    },
  },
  source_revision_config: {
    repo_ref: 'main',
    graph_config_path: 'app.json',
    image_uri: 'registry.example/app:1',
    source_tarball_path: `sources/${'0'.repeat(32)}.tar.gz`,
  },
  secrets: [{ name: 'TOKEN' }, { name: 'DB_PASSWORD', value_from: { secret_key_ref: { name: 'db', key: 'password' } } }],
  revision_name: 'app-0123456789',
  tracked_packages: ['fastapi:0.115.0'],
  preview_of: { deployment_name: 'app', pull_request: 12, from_fork: false },
};

describe('wire conversion', () => {
  it('spells declared keys in snake_case', () => {
    expect(snakeCase('memoryLimitMb')).toBe('memory_limit_mb');
    expect(snakeCase('k8sNamespace')).toBe('k8s_namespace');
    expect(snakeCase('dbStorageGi')).toBe('db_storage_gi');
  });

  it('round-trips a deployment body that uses every declared field', () => {
    const spec = fromWire(deploymentSpecSchema, everyFieldBody);
    // The body really fills every field the schema declares, so the identity below covers them all.
    const missing = declaredPaths(deploymentSpecSchema).filter((path) => !presentPaths(spec, deploymentSpecSchema).includes(path));
    expect(missing).toEqual([]);
    // The camelCase value is a valid CR spec (CEL rules aside: those run in the API server).
    expect(deploymentSpecSchema.safeParse(spec).success).toBe(true);
    expect(toWire(deploymentSpecSchema, spec)).toEqual(everyFieldBody);
  });

  it('leaves free-form maps and the camelCase shapes of the interface untouched', () => {
    const spec = fromWire(deploymentSpecSchema, everyFieldBody) as {
      sourceConfig: { resourceSpec: Record<string, unknown>; listenerConfig: Record<string, unknown> };
    };
    const resources = spec.sourceConfig.resourceSpec;
    expect(resources.labels).toEqual({ 'app.kubernetes.io/name': 'app', team_name: 'core' });
    expect(resources.annotations).toEqual({ 'example.com/owner_team': 'core', someCamelKey: 'x' });
    expect((resources.volumes as unknown[])[0]).toEqual(everyFieldBody.source_config.resource_spec.volumes[0]);
    expect(resources.volumeMounts).toEqual(everyFieldBody.source_config.resource_spec.volume_mounts);
    expect(resources.sidecars).toEqual([container('proxy')]);
    expect(resources.minScale).toBe(1);
    expect(spec.sourceConfig.listenerConfig).toEqual({ k8sNamespace: 'apps' });
  });

  it('keeps undeclared keys as they are, for validation to judge', () => {
    expect(fromWire(deploymentSpecSchema, { source: 'codehost', unknown_member: 1, source_config: { fooBar: 2 } })).toEqual({
      source: 'codehost',
      unknown_member: 1,
      sourceConfig: { fooBar: 2 },
    });
  });

  it('round-trips the other kinds', () => {
    const provider = {
      provider_id: 'acme',
      name: 'Acme',
      client_id: 'c',
      auth_url: 'https://a.example/authorize',
      token_url: 'https://a.example/token',
      client_secret_ref: { name: 's', key: 'k' },
      uses_pkce: true,
      code_challenge_method: 'S256',
      provider_type: 'vendor_b',
      token_endpoint_auth_method: 'none',
      mcp_server_url: 'https://mcp.example/mcp',
      is_dynamic_client: true,
    };
    const spec = fromWire(oauthProviderSpecSchema, provider);
    expect(spec).toMatchObject({ providerId: 'acme', clientSecretRef: { name: 's', key: 'k' }, mcpServerUrl: 'https://mcp.example/mcp' });
    expect(toWire(oauthProviderSpecSchema, spec)).toEqual(provider);
    const integration = { provider: 'github', base_url: 'http://127.0.0.1:3000/api/v3', credentials_secret_ref: { name: 'gh' } };
    expect(toWire(codeHostIntegrationSpecSchema, fromWire(codeHostIntegrationSpecSchema, integration))).toEqual(integration);
    const revision = {
      deployment_name: 'app',
      source: 'codehost',
      source_revision_config: { repo_ref: 'main', repo_commit_sha: 'abc' },
      digest: 'd',
    };
    expect(fromWire(revisionSpecSchema, revision)).toEqual({
      deploymentName: 'app',
      source: 'codehost',
      sourceRevisionConfig: { repoRef: 'main', repoCommitSha: 'abc' },
      digest: 'd',
    });
  });

  it('derives snake_case schemas that validate wire bodies with the same rules', () => {
    const wire = wireSchema(deploymentSpecSchema);
    expect(wire.safeParse(everyFieldBody).success).toBe(true);
    const bad = wire.safeParse({ ...everyFieldBody, source_config: { resource_spec: { min_scale: -1 } } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['source_config', 'resource_spec', 'min_scale']);
    const json = JSON.stringify(z.toJSONSchema(wire, { io: 'input' }));
    expect(json).toContain('"memory_limit_mb"');
    expect(json).toContain('"mountPath"');
    expect(json).not.toContain('"memoryLimitMb"');
    // CEL rules speak of camelCase fields: they stay in the CRD.
    expect(json).not.toContain('x-kubernetes-validations');
  });
});

describe('oauthProviderObjectName', () => {
  it('uses a provider id that is already a valid name as it is', () => {
    expect(oauthProviderObjectName('github')).toBe('github');
    expect(oauthProviderObjectName('acme-sso-2')).toBe('acme-sso-2');
  });

  it('derives a valid, distinct name for any other id', () => {
    const ids = ['GitHub', 'github ', 'My Provider/1', 'my-provider-1', 'é', '-', 'x'.repeat(300), 'a_b', 'a.b'];
    const names = ids.map(oauthProviderObjectName);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(new Set(names).size).toBe(ids.length);
    expect(oauthProviderObjectName('My Provider/1')).toBe(oauthProviderObjectName('My Provider/1'));
  });
});

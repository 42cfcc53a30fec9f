// Security, checked from outside a running Berth: no endpoint but the probes answers without a valid
// key; API keys are stored only as hashes; one organization can neither read nor change another's
// objects (404, never 403); client secrets and secret values appear in no response, log line, Event,
// metric or status; the chart runs the pod as non-root with a read-only root filesystem and no
// capabilities.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { describe, expect, inject, it } from 'vitest';
import { labels } from '../../src/api/index.ts';
import { apiKeyLabel, ensureApiKey } from '../../src/facade/api-keys.ts';
import { runArgs, spawnBerth, waitReady } from '../support/berth-process.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { operationsOf, type OpenApiDocument } from './support/openapi-fuzz.ts';
import { recordFigures } from './support/figures.ts';
import { cachedBuild } from '../../workbench/cache-dir.ts';

const root = join(import.meta.dirname, '../..');

describe('security', () => {
  it('keys, tenancy and secrets hold against a running Berth', async () => {
    const kc = testKubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const operatorNamespace = await useNamespace('berth-op');
    const orgA = { id: crypto.randomUUID(), namespace: '', key: '' };
    const orgB = { id: crypto.randomUUID(), namespace: '', key: '' };
    for (const org of [orgA, orgB]) {
      org.namespace = await useNamespace('org', { [labels.organizationId]: org.id });
      org.key = (await ensureApiKey(kc, operatorNamespace, [org.id])).key;
    }
    const berth = spawnBerth(
      inject('kubeconfigPath'),
      runArgs({ operatorNamespace, watchNamespaces: [orgA.namespace, orgB.namespace, operatorNamespace] }),
    );
    const probePort = await waitReady(berth);
    const facade = `http://127.0.0.1:${await berth.facadePort()}`;
    const responses: string[] = [];
    const call = async (method: string, path: string, key: string | undefined, body?: unknown) => {
      const response = await fetch(`${facade}${path}`, {
        method,
        headers: {
          ...(key !== undefined ? { 'x-api-key': key } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      responses.push(`${method} ${path} ${response.status} ${JSON.stringify([...response.headers])} ${text}`);
      return { status: response.status, text, json: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
    };

    // Secret material: the test looks for these everywhere afterwards.
    const clientSecret = `client-secret-${randomBytes(12).toString('hex')}`;
    const secretValue = `secret-value-${randomBytes(12).toString('hex')}`;
    const rotatedValue = `rotated-value-${randomBytes(12).toString('hex')}`;
    const markers = [clientSecret, secretValue, rotatedValue, orgA.key, orgB.key];

    const provider = await call('POST', '/v2/auth/providers', orgB.key, {
      provider_id: 'github-login',
      name: 'GitHub login',
      client_id: 'client-1',
      auth_url: 'https://auth.example.com/authorize',
      token_url: 'https://auth.example.com/token',
      client_secret: clientSecret,
    });
    expect(provider.status).toBe(200);
    const deployment = await call('POST', '/v2/deployments', orgB.key, {
      name: 'private-app',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 2 } },
      source_revision_config: { image_uri: 'registry.example.com/private:1' },
      secrets: [{ name: 'DATABASE_PASSWORD', value: secretValue }],
    });
    expect(deployment.status).toBe(201);
    const deploymentId = deployment.json!.id as string;
    const rotated = await call('PATCH', `/v2/deployments/${deploymentId}`, orgB.key, {
      secrets: [{ name: 'DATABASE_PASSWORD', value: rotatedValue }],
    });
    expect(rotated.status).toBe(200);
    await eventually(
      async () =>
        ((await call('GET', `/v2/deployments/${deploymentId}/revisions`, orgB.key)).json?.resources as unknown[] | undefined)?.length === 2,
      60_000,
      'a revision for the rotated value',
    );

    // 1. Without a valid key, every documented operation answers 401; only the probes answer, and the
    // operations documented as public (the registry's token endpoint, which docker calls with its own
    // credentials, the upload URL, whose signed token is its credential, and the code host's webhook,
    // whose signature is) answer without a key, and never with a server error.
    const document = (await (await fetch(`${facade}/openapi.json`)).json()) as OpenApiDocument;
    const operations = operationsOf(document).filter((operation) => !operation.public);
    const publicOperations = operationsOf(document).filter((operation) => operation.public);
    expect(publicOperations.map((operation) => `${operation.method} ${operation.path}`)).toEqual([
      'GET /v2/registry/token',
      'PUT /v2/uploads/{upload_token}',
      'POST /v1/integrations/codehost/{integration_id}/webhook',
    ]);
    for (const operation of publicOperations) {
      for (const key of [undefined, orgB.key]) expect((await call(operation.method, operation.path, key)).status).toBeLessThan(500);
    }
    const unauthenticated: string[] = [];
    for (const operation of operations) {
      const path = operation.path.replace(/\{[^}]+\}/g, (param) =>
        param === '{deployment_id}' ? deploymentId : param === '{provider_id}' ? 'github-login' : crypto.randomUUID(),
      );
      for (const key of [undefined, '', 'berth_not-a-key', `${orgB.key}x`]) {
        const answer = await call(operation.method, path, key, operation.bodySchema ? {} : undefined);
        if (answer.status !== 401) unauthenticated.push(`${operation.method} ${path} with ${JSON.stringify(key)} -> ${answer.status}`);
      }
    }
    expect(unauthenticated).toEqual([]);
    for (const probe of ['/healthz', '/readyz']) expect((await fetch(`http://127.0.0.1:${probePort}${probe}`)).status).toBe(200);

    // 2. Keys are stored as SHA-256 hashes only.
    const keySecrets = (await core.listNamespacedSecret({ namespace: operatorNamespace, labelSelector: `${apiKeyLabel}=true` })).items;
    const storedKeyMaterial = JSON.stringify(
      keySecrets.map((s) =>
        Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
      ),
    );
    expect(keySecrets.length).toBeGreaterThanOrEqual(2);
    for (const key of [orgA.key, orgB.key]) {
      expect(storedKeyMaterial).not.toContain(key);
      expect(storedKeyMaterial).toContain(createHash('sha256').update(key).digest('hex'));
    }

    // 3. Organization A cannot see or change B's objects: 404, and B's objects stay as they were.
    const before = await custom.getNamespacedCustomObject({
      group: 'berth.dev',
      version: 'v1alpha1',
      namespace: orgB.namespace,
      plural: 'deployments',
      name: 'private-app',
    });
    const crossTenant = [
      await call('GET', `/v2/deployments/${deploymentId}`, orgA.key),
      await call('PATCH', `/v2/deployments/${deploymentId}`, orgA.key, {
        source_revision_config: { image_uri: 'registry.example.com/evil:1' },
      }),
      await call('DELETE', `/v2/deployments/${deploymentId}`, orgA.key),
      await call('GET', `/v2/deployments/${deploymentId}/revisions`, orgA.key),
      await call('GET', '/v2/auth/providers/github-login', orgA.key),
      await call('PATCH', '/v2/auth/providers/github-login', orgA.key, { name: 'taken over' }),
      await call('DELETE', '/v2/auth/providers/github-login', orgA.key),
    ];
    expect(crossTenant.map((answer) => answer.status)).toEqual(crossTenant.map(() => 404));
    expect(JSON.stringify((await call('GET', '/v2/deployments', orgA.key)).json)).not.toContain(deploymentId);
    expect(JSON.stringify((await call('GET', '/v2/auth/providers', orgA.key)).json)).not.toContain('github-login');
    // Naming B as the tenant does not help a key that cannot reach it.
    const tenantHop = await fetch(`${facade}/v2/deployments/${deploymentId}`, {
      headers: { 'x-api-key': orgA.key, 'x-tenant-id': orgB.id },
    });
    expect(tenantHop.status).toBe(401);
    const after = await custom.getNamespacedCustomObject({
      group: 'berth.dev',
      version: 'v1alpha1',
      namespace: orgB.namespace,
      plural: 'deployments',
      name: 'private-app',
    });
    expect((after as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe(
      (before as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
    );

    // 4. Secret material is in Secrets and nowhere else: responses, logs, Events, metrics, objects.
    const metrics = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
    await berth.stop();
    const events = (await core.listEventForAllNamespaces()).items;
    const berthObjects: unknown[] = [];
    for (const namespace of [orgA.namespace, orgB.namespace]) {
      for (const plural of ['deployments', 'revisions', 'oauthproviders', 'tracingprojects', 'codehostintegrations']) {
        berthObjects.push(
          ...(
            (await custom.listNamespacedCustomObject({ group: 'berth.dev', version: 'v1alpha1', namespace, plural })) as {
              items: unknown[];
            }
          ).items,
        );
      }
    }
    const places: Record<string, string> = {
      responses: responses.join('\n'),
      logs: berth.rawOutput.join('\n'),
      events: JSON.stringify(events),
      metrics,
      objects: JSON.stringify(berthObjects),
    };
    const leaks = Object.entries(places).flatMap(([place, text]) =>
      markers.filter((marker) => text.includes(marker)).map((marker) => `${place} holds ${marker.slice(0, 14)}...`),
    );
    // Sanity: the values were really stored, in the Secrets made for them.
    const orgSecrets = JSON.stringify(
      (await core.listNamespacedSecret({ namespace: orgB.namespace })).items.map((s) =>
        Object.values(s.data ?? {}).map((v) => Buffer.from(v, 'base64').toString('utf8')),
      ),
    );
    recordFigures('security', {
      operationsCheckedWithoutKey: operations.length * 4,
      crossTenantAttempts: crossTenant.length + 3,
      placesSearched: Object.keys(places).length,
      bytesSearched: Object.values(places).reduce((sum, text) => sum + text.length, 0),
      secretLeaks: leaks.length,
    });
    expect(orgSecrets).toContain(clientSecret);
    expect(orgSecrets).toContain(rotatedValue);
    expect(leaks).toEqual([]);
  });

  it('the chart runs the pod as non-root, read-only, with every capability dropped', () => {
    const toolsBin = cachedBuild('tools');
    const rendered = execFileSync(
      join(toolsBin, 'helm'),
      ['template', 'berth', join(root, 'charts/berth'), '--namespace', 'berth-system', '--set', 'rbac.clusterWide=true'],
      { encoding: 'utf8' },
    );
    type PodSpec = {
      securityContext?: Record<string, unknown>;
      containers: Array<{
        name: string;
        securityContext?: {
          runAsNonRoot?: boolean;
          readOnlyRootFilesystem?: boolean;
          allowPrivilegeEscalation?: boolean;
          privileged?: boolean;
          capabilities?: { drop?: string[]; add?: string[] };
        };
      }>;
      initContainers?: unknown[];
    };
    const workloads = parseAllDocuments(rendered)
      .map((doc) => doc.toJSON() as { kind?: string; spec?: { template?: { spec?: PodSpec } } } | null)
      .filter((object) => object?.spec?.template?.spec);
    expect(workloads.length).toBeGreaterThan(0);
    for (const workload of workloads) {
      const pod = workload!.spec!.template!.spec!;
      for (const container of [...pod.containers, ...((pod.initContainers ?? []) as PodSpec['containers'])]) {
        const context = container.securityContext ?? {};
        expect(context.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, `${container.name} runAsNonRoot`).toBe(true);
        expect(context.readOnlyRootFilesystem, `${container.name} readOnlyRootFilesystem`).toBe(true);
        expect(context.allowPrivilegeEscalation, `${container.name} allowPrivilegeEscalation`).toBe(false);
        expect(context.privileged ?? false).toBe(false);
        expect(context.capabilities?.drop).toContain('ALL');
        expect(context.capabilities?.add ?? []).toEqual([]);
      }
    }
  });
});

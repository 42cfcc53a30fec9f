// OAuth providers through the HTTP facade, against the real API server: every field of the response
// table, the client secret kept in a Secret and never returned, uniqueness of provider_id, tenancy,
// and objects made with kubectl visible through the facade and the other way round.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { group, oauthProviderKind, oauthProviderObjectName, version, type OAuthProvider } from '../src/api/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig } from './support/cluster.ts';
import { startTestFacade, type TestFacade } from './support/facade.ts';
import { expectTable, providerTable } from './support/facade-shapes.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

let t: TestFacade;
beforeAll(async () => {
  t = await startTestFacade();
});

const clientSecret = 'very-secret-client-secret-value';

function providerBody(providerId: string, extra: Record<string, unknown> = {}) {
  return {
    provider_id: providerId,
    name: `Provider ${providerId}`,
    client_id: 'client-123',
    auth_url: 'https://auth.example.com/authorize',
    token_url: 'https://auth.example.com/token',
    ...extra,
  };
}

async function readProvider(namespace: string, name: string): Promise<OAuthProvider> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural: oauthProviderKind.plural, name })) as OAuthProvider;
}

describe('POST /v2/auth/providers', () => {
  it('creates the provider and its Secret, and answers every field of the table without the secret', async () => {
    const response = await t.call('POST', '/v2/auth/providers', {
      body: providerBody('github-main', { client_secret: clientSecret, uses_pkce: true }),
    });
    expect(response.status).toBe(200);
    expectTable(response.body, providerTable);
    expect(response.text).not.toContain(clientSecret);
    expect(response.body).toMatchObject({
      organization_id: t.org.id,
      provider_id: 'github-main',
      uses_pkce: true,
      code_challenge_method: 'S256',
      token_endpoint_auth_method: 'client_secret_post',
      is_dynamic_client: false,
      provider_type: null,
      mcp_server_url: null,
    });

    const stored = await readProvider(t.org.namespace, 'github-main');
    expect(stored.metadata.uid).toBe(response.body.id);
    expect(JSON.stringify(stored)).not.toContain(clientSecret);
    const ref = stored.spec.clientSecretRef!;
    const secret = await core.readNamespacedSecret({ namespace: t.org.namespace, name: ref.name });
    expect(Buffer.from(secret.data![ref.key]!, 'base64').toString()).toBe(clientSecret);
    expect(secret.metadata?.ownerReferences?.[0]?.uid).toBe(stored.metadata.uid);
    expect(t.logLines.join('\n')).not.toContain(clientSecret);
  });

  it('derives metadata.name from a provider_id that is not a valid object name', async () => {
    const providerId = 'My Provider/With Spaces';
    const response = await t.call('POST', '/v2/auth/providers', { body: providerBody(providerId, { provider_type: 'vendor_a' }) });
    expect(response.status).toBe(200);
    expect(response.body.provider_type).toBe('vendor_a');
    const stored = await readProvider(t.org.namespace, oauthProviderObjectName(providerId));
    expect(stored.spec.providerId).toBe(providerId);
    const read = await t.call('GET', `/v2/auth/providers/${encodeURIComponent(providerId)}`);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(response.body.id);
  });

  it('serves a provider_id of the longest length allowed', async () => {
    const providerId = `long-${'x'.repeat(248)}`;
    const created = await t.call('POST', '/v2/auth/providers', { body: providerBody(providerId, { name: 'Long' }) });
    expect(created.status, created.text).toBe(200);
    const read = await t.call('GET', `/v2/auth/providers/${providerId}`);
    expect(read.status).toBe(200);
    expect(read.body.provider_id).toBe(providerId);
    expect((await t.call('POST', '/v2/auth/providers', { body: providerBody(`${providerId}y`, { name: 'Longer' }) })).status).toBe(422);
  });

  it('answers 409 for a provider_id already used in the organization, and changes nothing', async () => {
    const first = await t.call('POST', '/v2/auth/providers', { body: providerBody('dup', { client_secret: 'first-secret-value' }) });
    expect(first.status).toBe(200);
    const before = await readProvider(t.org.namespace, 'dup');
    const again = await t.call('POST', '/v2/auth/providers', {
      body: providerBody('dup', { client_secret: 'second-secret-value', name: 'Other' }),
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/dup already exists/);
    const after = await readProvider(t.org.namespace, 'dup');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    const secret = await core.readNamespacedSecret({ namespace: t.org.namespace, name: before.spec.clientSecretRef!.name });
    expect(Buffer.from(secret.data!.clientSecret!, 'base64').toString()).toBe('first-secret-value');
  });

  it("acts in the key's first organization, or in the one X-Tenant-Id selects among the key's", async () => {
    const mine = await t.call('GET', '/v2/auth/providers/github-main', { key: t.sharedKey });
    expect(mine.status).toBe(200);
    expect(mine.body.organization_id).toBe(t.org.id);
    const created = await t.call('POST', '/v2/auth/providers', {
      body: providerBody('tenant-selected'),
      key: t.sharedKey,
      headers: { 'x-tenant-id': t.otherOrg.id },
    });
    expect(created.status).toBe(200);
    expect(created.body.organization_id).toBe(t.otherOrg.id);
    expect((await t.call('GET', '/v2/auth/providers/tenant-selected', { key: t.otherOrg.key })).status).toBe(200);
    expect((await t.call('GET', '/v2/auth/providers/tenant-selected')).status).toBe(404);
  });

  it('lets another organization use the same provider_id', async () => {
    const response = await t.call('POST', '/v2/auth/providers', { body: providerBody('dup'), key: t.otherOrg.key });
    expect(response.status).toBe(200);
    expect(response.body.organization_id).toBe(t.otherOrg.id);
  });
});

describe('GET, PATCH, DELETE /v2/auth/providers', () => {
  it("reads a provider and answers 404 for an unknown one and for another organization's", async () => {
    await t.call('POST', '/v2/auth/providers', { body: providerBody('readable') });
    const read = await t.call('GET', '/v2/auth/providers/readable');
    expect(read.status).toBe(200);
    expectTable(read.body, providerTable);

    expect((await t.call('GET', '/v2/auth/providers/nope')).status).toBe(404);
    const foreign = await t.call('GET', '/v2/auth/providers/readable', { key: t.otherOrg.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'OAuth provider readable not found.' });
  });

  it('lists providers in pages', async () => {
    for (const id of ['page-a', 'page-b', 'page-c'])
      expect((await t.call('POST', '/v2/auth/providers', { body: providerBody(id) })).status).toBe(200);
    const all = await t.call('GET', '/v2/auth/providers?limit=100');
    expect(all.status).toBe(200);
    const ids = all.body.resources.map((p: { provider_id: string }) => p.provider_id);
    expect(ids).toEqual(expect.arrayContaining(['page-a', 'page-b', 'page-c']));
    expect(all.body.offset).toBe(ids.length);
    all.body.resources.forEach((provider: Record<string, unknown>) => expectTable(provider, providerTable));

    const page = await t.call('GET', '/v2/auth/providers?limit=2&offset=1');
    expect(page.body.resources.map((p: { provider_id: string }) => p.provider_id)).toEqual(ids.slice(1, 3));
    expect(page.body.offset).toBe(3);
    const foreign = await t.call('GET', '/v2/auth/providers?limit=100', { key: t.otherOrg.key });
    expect(foreign.body.resources.map((p: { provider_id: string }) => p.provider_id)).not.toContain('page-a');
  });

  it('updates members and the client secret, never returning it', async () => {
    await t.call('POST', '/v2/auth/providers', { body: providerBody('updatable') });
    const response = await t.call('PATCH', '/v2/auth/providers/updatable', {
      body: { name: 'Renamed', client_secret: 'rotated-secret-value', uses_pkce: null },
    });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe('Renamed');
    expect(response.body.uses_pkce).toBe(false);
    expect(response.text).not.toContain('rotated-secret-value');
    const stored = await readProvider(t.org.namespace, 'updatable');
    const secret = await core.readNamespacedSecret({ namespace: t.org.namespace, name: stored.spec.clientSecretRef!.name });
    expect(Buffer.from(secret.data!.clientSecret!, 'base64').toString()).toBe('rotated-secret-value');

    const refused = await t.call('PATCH', '/v2/auth/providers/updatable', { body: { provider_id: 'other' } });
    expect(refused.status).toBe(422);
  });

  it('deletes a provider (204) and then answers 404', async () => {
    await t.call('POST', '/v2/auth/providers', { body: providerBody('deletable') });
    expect((await t.call('DELETE', '/v2/auth/providers/deletable', { key: t.otherOrg.key })).status).toBe(404);
    const deleted = await t.call('DELETE', '/v2/auth/providers/deletable');
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    await eventually(async () => (await t.call('GET', '/v2/auth/providers/deletable')).status === 404, 10_000, 'the provider to be gone');
  });
});

describe('kubectl and the facade see the same objects', () => {
  it('serves a provider applied with kubectl', async () => {
    const manifest = {
      apiVersion: `${group}/${version}`,
      kind: 'OAuthProvider',
      metadata: { name: 'from-kubectl', namespace: t.org.namespace },
      spec: {
        providerId: 'from-kubectl',
        name: 'Applied',
        clientId: 'abc',
        authUrl: 'https://a.example.com/auth',
        tokenUrl: 'https://a.example.com/token',
      },
    };
    const applied = await kubectl(['apply', '-f', '-'], JSON.stringify(manifest));
    expect(applied.stderr).toBe('');
    const read = await eventually(
      async () => {
        const response = await t.call('GET', '/v2/auth/providers/from-kubectl');
        return response.status === 200 && response;
      },
      10_000,
      'the applied provider through the facade',
    );
    expectTable(read.body, providerTable);
    expect(read.body).toMatchObject({
      name: 'Applied',
      uses_pkce: false,
      code_challenge_method: 'S256',
      token_endpoint_auth_method: 'client_secret_post',
    });
  });

  it('shows a provider created through the facade to kubectl', async () => {
    await t.call('POST', '/v2/auth/providers', { body: providerBody('for-kubectl') });
    const got = await kubectl(['get', 'oauthproviders.berth.dev', 'for-kubectl', '-n', t.org.namespace, '-o', 'json']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout).spec).toMatchObject({ providerId: 'for-kubectl', clientId: 'client-123' });
  });
});

// The OAuthProvider controller against the real API server and a real authorization server
// (oidc-provider on loopback): Secret checks, status and Events, discovery, dynamic registration,
// and that no client secret ever shows up where it must not.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { CoreV1Api, CustomObjectsApi, type CoreV1Event, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fieldManager,
  group,
  oauthProviderKind,
  oauthProviderObjectName,
  version,
  type OAuthProvider,
  type OAuthProviderSpec,
} from '../src/api/index.ts';
import { registerOAuthProviderController } from '../src/reconcilers/oauth-provider/controller.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { Manager } from '../src/runtime/manager.ts';
import { startAuthorizationServer, type AuthorizationServer } from './support/authorization-server.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';
import { secretNotReadableMessage } from '../src/api/readable-secrets.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

const logLines: string[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString('utf8'));
    done();
  },
});

let namespace: string;
let authServer: AuthorizationServer;
let manager: Manager;

beforeAll(async () => {
  namespace = await useNamespace('oauth');
  authServer = await startAuthorizationServer();
  manager = new Manager({
    kubeConfig: kc,
    logger: createLogger({ destination: logSink, level: 'debug' }),
    healthPort: false,
    processMetrics: false,
    eventAggregateWindowMs: 100,
  });
  registerOAuthProviderController(manager, {
    namespaces: [namespace],
    retryAfterMs: 500,
    peerTimeoutMs: 2_000,
    // The authorization server runs on loopback.
    privateNetworks: true,
    registration: { grantTypes: ['client_credentials'] },
  });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
  await authServer?.close();
});

function baseSpec(providerId: string, overrides: Partial<OAuthProviderSpec> = {}): Record<string, unknown> {
  return {
    providerId,
    name: `Provider ${providerId}`,
    clientId: 'berth-client',
    authUrl: 'https://auth.example.com/authorize',
    tokenUrl: 'https://auth.example.com/token',
    ...overrides,
  };
}

async function createProvider(spec: Record<string, unknown>): Promise<string> {
  const name = oauthProviderObjectName(String(spec.providerId));
  await custom.createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: oauthProviderKind.plural,
    body: { apiVersion: oauthProviderKind.apiVersion, kind: oauthProviderKind.kind, metadata: { name }, spec },
  });
  return name;
}

async function readProvider(name: string): Promise<OAuthProvider> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural: oauthProviderKind.plural, name })) as OAuthProvider;
}

function condition(provider: OAuthProvider, type: string) {
  return provider.status?.conditions?.find((c) => c.type === type);
}

/** Waits until the provider's Ready condition has `reason` for its current generation. */
async function waitForReady(name: string, status: 'True' | 'False', reason: string): Promise<OAuthProvider> {
  return eventually(
    async () => {
      const provider = await readProvider(name);
      const ready = condition(provider, 'Ready');
      return (
        provider.status?.observedGeneration === provider.metadata.generation &&
        ready?.status === status &&
        ready.reason === reason &&
        provider
      );
    },
    30_000,
    `${name} Ready=${status} (${reason})`,
  );
}

async function eventsOf(name: string): Promise<CoreV1Event[]> {
  const list = await core.listNamespacedEvent({ namespace });
  return list.items.filter((event) => event.involvedObject.name === name && event.involvedObject.kind === 'OAuthProvider');
}

function secretValue(secret: V1Secret, key: string): string {
  return Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
}

async function reconcileCount(): Promise<number> {
  const metric = await manager.metrics.reconcileTotal.get();
  return metric.values.filter((v) => v.labels.controller === 'oauthprovider').reduce((sum, v) => sum + v.value, 0);
}

/** Successful status writes this process made (the test itself never writes a status). */
async function statusWrites(): Promise<number> {
  const metric = await manager.metrics.kubeApiRequests.get();
  return metric.values
    .filter((v) => v.labels.verb === 'update' && v.labels.resource === 'oauthproviders.berth.dev/status' && v.labels.code === '200')
    .reduce((sum, v) => sum + v.value, 0);
}

/** Makes `trigger` enqueue a Ready provider and checks that the reconcile it causes writes nothing. */
async function expectNoWriteOnReconcile(name: string, trigger: () => Promise<unknown>): Promise<void> {
  const before = await waitForReady(name, 'True', 'Ready');
  const writes = await statusWrites();
  const reconciles = await reconcileCount();
  await trigger();
  await eventually(async () => (await reconcileCount()) > reconciles, 30_000, 'another reconcile');
  const after = await readProvider(name);
  expect(await statusWrites()).toBe(writes);
  expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect(after.status?.updatedAt).toBe(before.status?.updatedAt);
}

const staticClientSecret = 'static-client-secret-7f3a9c';
const dynamicClientSecrets: string[] = [];

describe('an OAuthProvider with a client secret', () => {
  it('is Ready=False naming the missing Secret, then Ready=True once the Secret exists, without a spec change', async () => {
    const name = await createProvider(baseSpec('acme-static', { clientSecretRef: { name: 'acme-oauth', key: 'clientSecret' } }));
    const waiting = await waitForReady(name, 'False', 'ClientSecretNotFound');
    expect(condition(waiting, 'Ready')?.message).toBe(secretNotReadableMessage('acme-oauth', namespace));
    expect(condition(waiting, 'Stalled')?.status).toBe('False');
    expect(waiting.status?.updatedAt).toEqual(expect.any(String));
    const specBefore = waiting.spec;

    // A Secret without the key is named too.
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'acme-oauth', labels: sharedSecretLabels }, stringData: { other: 'x' } },
    });
    const missingKey = await waitForReady(name, 'False', 'ClientSecretKeyMissing');
    expect(condition(missingKey, 'Ready')?.message).toBe('Secret "acme-oauth" has no value for key "clientSecret"');

    await core.replaceNamespacedSecret({
      namespace,
      name: 'acme-oauth',
      body: { metadata: { name: 'acme-oauth', labels: sharedSecretLabels }, stringData: { clientSecret: staticClientSecret } },
    });
    const ready = await waitForReady(name, 'True', 'Ready');
    expect(ready.spec).toEqual(specBefore);
    expect(ready.metadata.generation).toBe(waiting.metadata.generation);
    expect(ready.status).toMatchObject({
      observedGeneration: ready.metadata.generation,
      authorizationEndpoint: 'https://auth.example.com/authorize',
      tokenEndpoint: 'https://auth.example.com/token',
    });
    expect(condition(ready, 'Reconciling')?.status).toBe('False');
    expect(condition(ready, 'Stalled')?.status).toBe('False');

    const events = await eventually(async () => {
      const found = await eventsOf(name);
      return found.some((e) => e.reason === 'Ready') && found;
    });
    expect(events.find((e) => e.reason === 'ClientSecretNotFound')).toMatchObject({ type: 'Warning' });
    expect(events.find((e) => e.reason === 'Ready')).toMatchObject({ type: 'Normal' });
  });

  it('writes nothing when a reconcile finds nothing changed', async () => {
    // A change to the referenced Secret that does not matter enqueues the provider again.
    await expectNoWriteOnReconcile(oauthProviderObjectName('acme-static'), () =>
      core.patchNamespacedSecret({
        namespace,
        name: 'acme-oauth',
        body: [{ op: 'add', path: '/metadata/labels/touched', value: 'yes' }],
      }),
    );
  });

  it('is Stalled when a public client does not use PKCE', async () => {
    const name = await createProvider(baseSpec('public-no-pkce', { tokenEndpointAuthMethod: 'none' }));
    const stalled = await waitForReady(name, 'False', 'PublicClientWithoutPkce');
    expect(condition(stalled, 'Stalled')).toMatchObject({
      status: 'True',
      message: 'tokenEndpointAuthMethod none (a public client) requires usesPkce: true',
    });
    await custom.patchNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: oauthProviderKind.plural,
      name,
      body: [{ op: 'replace', path: '/spec/usesPkce', value: true }],
    });
    await waitForReady(name, 'True', 'Ready');
  });

  it('is Stalled when its secret would travel over plain HTTP', async () => {
    const name = await createProvider(
      baseSpec('plain-http', { tokenUrl: 'http://auth.example.com/token', clientSecretRef: { name: 'acme-oauth', key: 'clientSecret' } }),
    );
    const stalled = await waitForReady(name, 'False', 'InsecureUrl');
    expect(condition(stalled, 'Ready')?.message).toBe('spec.tokenUrl: http://auth.example.com/token must use https');
  });
});

describe('an OAuthProvider for an MCP server', () => {
  it('registers a dynamic client once, whose credentials in the owned Secret get a token', async () => {
    const name = await createProvider(
      baseSpec('mcp-dynamic', {
        mcpServerUrl: authServer.mcpServerUrl,
        isDynamicClient: true,
        tokenEndpointAuthMethod: 'client_secret_post',
      }),
    );
    const ready = await waitForReady(name, 'True', 'Ready');
    expect(ready.status).toMatchObject({
      issuer: authServer.issuer,
      tokenEndpoint: authServer.tokenEndpoint,
      registrationEndpoint: authServer.registrationEndpoint,
      authorizationEndpoint: `${authServer.issuer}/auth`,
      dynamicClientId: expect.any(String),
      dynamicClientSecretRef: { name: `${name}-oauth-client`, key: 'clientSecret' },
    });

    const secret = await core.readNamespacedSecret({ namespace, name: ready.status!.dynamicClientSecretRef!.name });
    expect(secret.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'OAuthProvider', name, uid: ready.metadata.uid, controller: true }),
    ]);
    // Berth's one field manager owns what it wrote: the Secret, and the provider's status.
    expect(secret.metadata?.managedFields?.map((entry) => entry.manager)).toEqual([fieldManager]);
    expect(ready.metadata.managedFields?.filter((entry) => entry.subresource === 'status').map((entry) => entry.manager)).toEqual([
      fieldManager,
    ]);
    const clientId = secretValue(secret, 'clientId');
    const clientSecret = secretValue(secret, 'clientSecret');
    dynamicClientSecrets.push(clientSecret, secretValue(secret, 'registrationAccessToken'));
    expect(clientId).toBe(ready.status!.dynamicClientId);
    expect(clientSecret).not.toBe('');

    const token = await authServer.clientCredentialsToken(clientId, clientSecret);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });

    // A spec change reconciles again (new observedGeneration) without a second registration.
    await custom.patchNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: oauthProviderKind.plural,
      name,
      body: [{ op: 'replace', path: '/spec/name', value: 'MCP tools' }],
    });
    const again = await eventually(async () => {
      const provider = await readProvider(name);
      return provider.metadata.generation === 2 && provider.status?.observedGeneration === 2 && provider;
    });
    expect(again.status?.dynamicClientId).toBe(clientId);
    expect(authServer.requests.filter((r) => r === 'POST /reg')).toHaveLength(1);

    // A change to the owned Secret that does not matter reconciles again: no write, no registration.
    await expectNoWriteOnReconcile(name, () =>
      core.patchNamespacedSecret({
        namespace,
        name: secret.metadata!.name!,
        body: [{ op: 'add', path: '/metadata/labels/touched', value: 'yes' }],
      }),
    );
    expect(authServer.requests.filter((r) => r === 'POST /reg')).toHaveLength(1);

    const events = await eventually(async () => {
      const found = await eventsOf(name);
      return found.some((e) => e.reason === 'ClientRegistered') && found;
    });
    expect(events.find((e) => e.reason === 'ClientRegistered')?.message).toBe(
      `registered client "${clientId}" at ${authServer.registrationEndpoint} (no client registered yet); credentials in Secret "${name}-oauth-client"`,
    );
  });

  it('registers again, at the new authorization server, when the MCP server moves', async () => {
    const name = await createProvider(baseSpec('mcp-moving', { mcpServerUrl: authServer.mcpServerUrl, isDynamicClient: true }));
    const first = await waitForReady(name, 'True', 'Ready');
    const secretName = first.status!.dynamicClientSecretRef!.name;
    const elsewhere = await startAuthorizationServer({ oidcDiscoveryOnly: true });
    try {
      await custom.patchNamespacedCustomObject({
        group,
        version,
        namespace,
        plural: oauthProviderKind.plural,
        name,
        body: [{ op: 'replace', path: '/spec/mcpServerUrl', value: elsewhere.mcpServerUrl }],
      });
      const moved = await eventually(async () => {
        const provider = await readProvider(name);
        return provider.status?.observedGeneration === 2 && provider.status.issuer === elsewhere.issuer && provider;
      });
      expect(condition(moved, 'Ready')?.status).toBe('True');
      expect(moved.status?.dynamicClientId).not.toBe(first.status?.dynamicClientId);
      expect(elsewhere.requests.filter((r) => r === 'POST /reg')).toHaveLength(1);

      const secret = await core.readNamespacedSecret({ namespace, name: secretName });
      const clientSecret = secretValue(secret, 'clientSecret');
      dynamicClientSecrets.push(clientSecret, secretValue(secret, 'registrationAccessToken'));
      expect(secretValue(secret, 'clientId')).toBe(moved.status?.dynamicClientId);
      expect((await elsewhere.clientCredentialsToken(secretValue(secret, 'clientId'), clientSecret)).status).toBe(200);
    } finally {
      await elsewhere.close();
    }
  });

  it('is Stalled while the authorization server cannot take its auth method, and registers once the spec fixes it', async () => {
    const basicOnly = await startAuthorizationServer({ clientAuthMethods: ['client_secret_basic'] });
    try {
      const name = await createProvider(
        baseSpec('mcp-basic', {
          mcpServerUrl: basicOnly.mcpServerUrl,
          isDynamicClient: true,
          tokenEndpointAuthMethod: 'client_secret_post',
        }),
      );
      const stalled = await waitForReady(name, 'False', 'AuthMethodUnsupported');
      expect(condition(stalled, 'Stalled')?.status).toBe('True');
      expect(condition(stalled, 'Ready')?.message).toBe(
        `authorization server ${basicOnly.issuer}/ does not support tokenEndpointAuthMethod client_secret_post`,
      );
      expect(basicOnly.requests).not.toContain('POST /reg');

      await custom.patchNamespacedCustomObject({
        group,
        version,
        namespace,
        plural: oauthProviderKind.plural,
        name,
        body: [{ op: 'replace', path: '/spec/tokenEndpointAuthMethod', value: 'client_secret_basic' }],
      });
      const ready = await waitForReady(name, 'True', 'Ready');
      const secret = await core.readNamespacedSecret({ namespace, name: ready.status!.dynamicClientSecretRef!.name });
      const clientSecret = secretValue(secret, 'clientSecret');
      dynamicClientSecrets.push(clientSecret, secretValue(secret, 'registrationAccessToken'));
      const token = await basicOnly.clientCredentialsToken(secretValue(secret, 'clientId'), clientSecret, 'client_secret_basic');
      expect(token.status).toBe(200);
    } finally {
      await basicOnly.close();
    }
  });

  it('leaves alone a Secret of the same name that it does not own', async () => {
    const registrations = authServer.requests.filter((r) => r === 'POST /reg').length;
    const name = oauthProviderObjectName('mcp-taken');
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: `${name}-oauth-client` }, stringData: { mine: 'yes' } } });
    await createProvider(baseSpec('mcp-taken', { mcpServerUrl: authServer.mcpServerUrl, isDynamicClient: true }));
    const stalled = await waitForReady(name, 'False', 'SecretNameTaken');
    expect(condition(stalled, 'Stalled')?.status).toBe('True');
    expect(condition(stalled, 'Ready')?.message).toBe(`Secret "${name}-oauth-client" exists and is not owned by this OAuthProvider`);
    const secret = await core.readNamespacedSecret({ namespace, name: `${name}-oauth-client` });
    expect(Object.keys(secret.data ?? {})).toEqual(['mine']);
    expect(authServer.requests.filter((r) => r === 'POST /reg')).toHaveLength(registrations);
  });

  it('is Ready=False, not Stalled, while the MCP server cannot be reached', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = `http://127.0.0.1:${port}/mcp`;
    const name = await createProvider(baseSpec('mcp-offline', { mcpServerUrl: unreachable, isDynamicClient: true }));
    const waiting = await waitForReady(name, 'False', 'DiscoveryFailed');
    expect(condition(waiting, 'Ready')?.message).toBe(
      `discovery from ${unreachable} failed: GET http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp: ECONNREFUSED`,
    );
    expect(condition(waiting, 'Stalled')?.status).toBe('False');
    expect(condition(waiting, 'Reconciling')?.status).toBe('True');
  });

  it('deletes the dynamic client Secret with its provider', { timeout: 150_000 }, async () => {
    const name = oauthProviderObjectName('mcp-dynamic');
    await custom.deleteNamespacedCustomObject({ group, version, namespace, plural: oauthProviderKind.plural, name });
    await eventually(
      () =>
        core.readNamespacedSecret({ namespace, name: `${name}-oauth-client` }).then(
          () => false,
          (e: { code?: number }) => e.code === 404,
        ),
      120_000,
      'the dynamic client Secret to be garbage-collected',
    );
  });
});

describe('client secrets', () => {
  it('appear in no status, Event, log line or error message', async () => {
    expect(dynamicClientSecrets.length).toBeGreaterThan(0);
    const secrets = [staticClientSecret, ...dynamicClientSecrets].filter(Boolean);
    const providers = (await custom.listNamespacedCustomObject({ group, version, namespace, plural: oauthProviderKind.plural })) as {
      items: OAuthProvider[];
    };
    const events = await core.listNamespacedEvent({ namespace });
    const places = {
      status: JSON.stringify(providers.items.map((p) => p.status)),
      providers: JSON.stringify(providers.items),
      events: JSON.stringify(events.items),
      logs: logLines.join(''),
    };
    // The places are not empty: the check would catch a leak.
    expect(providers.items.length).toBeGreaterThan(3);
    expect(events.items.length).toBeGreaterThan(3);
    expect(logLines.length).toBeGreaterThan(3);
    for (const [place, text] of Object.entries(places)) {
      for (const secret of secrets) {
        expect(text.includes(secret), `a client secret in ${place}`).toBe(false);
      }
    }
  });
});

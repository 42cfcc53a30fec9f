// Upgrading from a version whose OAuthProvider controller wrote with no field manager: the new one
// takes those entries over (the provider's status, the dynamic client Secret it owns), so one manager
// owns what Berth sets, and it touches nothing it does not own. Real API server, real authorization server.
import type { V1ManagedFieldsEntry, V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldManager, legacyFieldManagers, oauthProviderKind, oauthProviderObjectName, type OAuthProvider } from '../src/api/index.ts';
import { registerOAuthProviderController } from '../src/reconcilers/oauth-provider/controller.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { Manager } from '../src/runtime/manager.ts';
import { collectionPath, objectPath, secretKind, type ResourceKind } from '../src/runtime/types.ts';
import { startAuthorizationServer, type AuthorizationServer } from './support/authorization-server.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
let namespace: string;
let authServer: AuthorizationServer;
const managers: Manager[] = [];

beforeAll(async () => {
  namespace = await useNamespace('oauth-managers');
  authServer = await startAuthorizationServer();
});

afterAll(async () => {
  for (const manager of managers) await manager.stop();
  await authServer?.close();
});

async function startController(): Promise<Manager> {
  const manager = new Manager({ kubeConfig: kc, healthPort: false, processMetrics: false });
  registerOAuthProviderController(manager, {
    namespaces: [namespace],
    peerTimeoutMs: 2_000,
    // The authorization server runs on loopback.
    privateNetworks: true,
    registration: { grantTypes: ['client_credentials'] },
  });
  managers.push(manager);
  await manager.start();
  return manager;
}

/** A write as the earlier version made it: no fieldManager, no User-Agent. */
function legacyWrite(method: 'POST' | 'PATCH', path: string, body: unknown): Promise<unknown> {
  return kubeRequest(kc, { method, path, body, ...(method === 'PATCH' ? { contentType: 'application/json-patch+json' } : {}) });
}

async function read<T>(
  resource: ResourceKind,
  name: string,
): Promise<T & { metadata: { managedFields?: V1ManagedFieldsEntry[]; resourceVersion?: string } }> {
  return kubeRequest(kc, { method: 'GET', path: objectPath(resource, { namespace, name }) });
}

/** A provider as a user makes it, with `kubectl apply`. */
async function createProvider(providerId: string, spec: Record<string, unknown>): Promise<string> {
  const name = oauthProviderObjectName(providerId);
  await kubeRequest(kc, {
    method: 'POST',
    path: collectionPath(oauthProviderKind, namespace),
    query: { fieldManager: 'kubectl-client-side-apply' },
    body: {
      apiVersion: oauthProviderKind.apiVersion,
      kind: oauthProviderKind.kind,
      metadata: { name },
      spec: {
        providerId,
        name: providerId,
        clientId: 'c',
        authUrl: 'https://a.example/authorize',
        tokenUrl: 'https://a.example/token',
        ...spec,
      },
    },
  });
  return name;
}

const managersOf = (entries: V1ManagedFieldsEntry[] | undefined, subresource?: string) =>
  (entries ?? []).filter((entry) => entry.subresource === subresource).map((entry) => entry.manager ?? '');

describe('OAuthProvider writes of an earlier version', () => {
  it('are taken over by Berth’s one field manager on the first reconcile, and nothing else changes', async () => {
    // What a write with no field manager and no User-Agent is recorded as: the name Berth adopts.
    const [legacy] = legacyFieldManagers;
    const notOwned = `${oauthProviderObjectName('plain')}-oauth-client`;
    await legacyWrite('POST', collectionPath(secretKind, namespace), {
      metadata: { name: notOwned },
      stringData: { note: 'a user Secret' },
    });
    const probe = await read<V1Secret>(secretKind, notOwned);
    expect(managersOf(probe.metadata.managedFields)).toHaveLength(1);
    expect(legacyFieldManagers).toContain(managersOf(probe.metadata.managedFields)[0]);

    // The state a dynamic client's registration leaves, made by this version, then recorded as the
    // earlier one recorded it: the same entries under the legacy name.
    const name = await createProvider('legacy-mcp', {
      mcpServerUrl: authServer.mcpServerUrl,
      isDynamicClient: true,
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    await createProvider('plain', { tokenEndpointAuthMethod: 'none', usesPkce: true });
    const first = await startController();
    const registered = await eventually(
      async () => {
        const provider = await read<OAuthProvider>(oauthProviderKind, name);
        return provider.status?.dynamicClientSecretRef && provider.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? provider
          : undefined;
      },
      30_000,
      'the dynamic client registered',
    );
    await first.stop();
    const secretName = registered.status!.dynamicClientSecretRef!.name;
    for (const [resource, objectName] of [
      [oauthProviderKind, name],
      [secretKind, secretName],
    ] as const) {
      const object = await read<object>(resource, objectName);
      // The earlier version replaced the status (PUT) and wrote the Secret: Update entries, all.
      const renamed = object.metadata.managedFields!.map((entry) =>
        entry.manager === fieldManager ? { ...entry, manager: legacy, operation: 'Update' } : entry,
      );
      await legacyWrite('PATCH', objectPath(resource, { namespace, name: objectName }), [
        { op: 'replace', path: '/metadata/managedFields', value: renamed },
      ]);
    }
    const before = { provider: await read<OAuthProvider>(oauthProviderKind, name), secret: await read<V1Secret>(secretKind, secretName) };
    expect(managersOf(before.provider.metadata.managedFields, 'status')).toEqual([legacy]);
    expect(managersOf(before.secret.metadata.managedFields)).toEqual([legacy]);
    const registrations = authServer.requests.filter((r) => r === 'POST /reg').length;

    await startController();
    const provider = await eventually(
      async () => {
        const current = await read<OAuthProvider>(oauthProviderKind, name);
        return managersOf(current.metadata.managedFields, 'status')[0] === fieldManager ? current : undefined;
      },
      30_000,
      'the status entry adopted',
    );
    const secret = await eventually(
      async () => {
        const current = await read<V1Secret>(secretKind, secretName);
        return managersOf(current.metadata.managedFields)[0] === fieldManager ? current : undefined;
      },
      30_000,
      'the Secret entry adopted',
    );

    // One owner, the same fields; the user's spec entry, the status and the data as they were. The
    // status is Berth's by server-side apply now, so what it stops sending goes.
    expect(managersOf(provider.metadata.managedFields, 'status')).toEqual([fieldManager]);
    expect(provider.metadata.managedFields!.find((e) => e.subresource === 'status')!.operation).toBe('Apply');
    expect(managersOf(provider.metadata.managedFields)).toEqual(managersOf(before.provider.metadata.managedFields));
    expect(provider.metadata.managedFields!.find((e) => e.subresource === 'status')!.fieldsV1).toEqual(
      before.provider.metadata.managedFields!.find((e) => e.subresource === 'status')!.fieldsV1,
    );
    expect(provider.status).toEqual(before.provider.status);
    expect(managersOf(secret.metadata.managedFields)).toEqual([fieldManager]);
    expect(secret.metadata.managedFields![0]!.fieldsV1).toEqual(before.secret.metadata.managedFields![0]!.fieldsV1);
    expect(secret.data).toEqual(before.secret.data);
    expect(authServer.requests.filter((r) => r === 'POST /reg')).toHaveLength(registrations);

    // A Secret of the provider-owned name that the provider does not own stays as its writer left it.
    await eventually(
      async () => {
        const plain = await read<OAuthProvider>(oauthProviderKind, oauthProviderObjectName('plain'));
        return plain.status?.observedGeneration === plain.metadata.generation;
      },
      30_000,
      'the plain provider reconciled',
    );
    expect((await read<V1Secret>(secretKind, notOwned)).metadata.managedFields).toEqual(probe.metadata.managedFields);
  });
});

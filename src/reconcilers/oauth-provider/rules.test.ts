// The reconciler's pure decisions: spec validation, the status and whether it needs a write, the
// dynamic client Secret and when a stored registration must be replaced.
import { describe, expect, it } from 'vitest';
import type { OAuthProvider, OAuthProviderSpec } from '../../api/index.ts';
import {
  dynamicClientSecretName,
  readStoredRegistration,
  registrationStaleReason,
  renderDynamicClientSecret,
} from './render/dynamic-client-secret.ts';
import { specProblems } from './spec-problems.ts';
import { statusesEqual } from '../../api/index.ts';
import { nextStatus, readyTransition, retryDelay } from './status.ts';

const spec: OAuthProviderSpec = {
  providerId: 'acme',
  name: 'Acme',
  clientId: 'client',
  authUrl: 'https://auth.example.com/authorize',
  tokenUrl: 'https://auth.example.com/token',
  clientSecretRef: { name: 'acme', key: 'secret' },
  usesPkce: false,
  codeChallengeMethod: 'S256',
  tokenEndpointAuthMethod: 'client_secret_post',
  isDynamicClient: false,
};

describe('specProblems', () => {
  it('accepts a confidential client with a secret reference', () => {
    expect(specProblems(spec)).toEqual([]);
  });

  it.each([
    [{ tokenEndpointAuthMethod: 'none' as const, clientSecretRef: undefined }, 'PublicClientWithoutPkce'],
    [{ clientSecretRef: undefined }, 'ClientSecretRefMissing'],
    [{ tokenEndpointAuthMethod: 'client_secret_basic' as const, clientSecretRef: undefined }, 'ClientSecretRefMissing'],
    [{ isDynamicClient: true }, 'McpServerUrlMissing'],
    [{ authUrl: 'http://auth.example.com/authorize' }, 'InsecureUrl'],
  ])('refuses %j with %s', (change, reason) => {
    expect(specProblems({ ...spec, ...change }).map((p) => p.reason)).toEqual([reason]);
  });

  it('needs no secret reference for a dynamic client or a public one with PKCE', () => {
    expect(
      specProblems({ ...spec, clientSecretRef: undefined, isDynamicClient: true, mcpServerUrl: 'https://mcp.example.com/mcp' }),
    ).toEqual([]);
    expect(specProblems({ ...spec, clientSecretRef: undefined, tokenEndpointAuthMethod: 'none', usesPkce: true })).toEqual([]);
  });

  it('accepts plain HTTP on loopback, or anywhere when allowed', () => {
    expect(specProblems({ ...spec, tokenUrl: 'http://127.0.0.1:8080/token' })).toEqual([]);
    expect(specProblems({ ...spec, tokenUrl: 'http://keycloak.auth.svc/token' }, { allowHttp: true })).toEqual([]);
  });
});

describe('nextStatus', () => {
  const t0 = new Date('2026-01-01T00:00:00.123Z');
  const t1 = new Date('2026-01-01T00:05:00Z');
  const ready = { state: 'ready' as const, reason: 'Ready', message: 'ok' };
  const resolution = { authorizationEndpoint: spec.authUrl, tokenEndpoint: spec.tokenUrl };

  it('stamps updatedAt and the kstatus conditions on the first write', () => {
    const status = nextStatus(undefined, { generation: 1, verdict: ready, resolution, now: t0 });
    expect(status).toMatchObject({ observedGeneration: 1, updatedAt: '2026-01-01T00:00:00Z', ...resolution });
    expect(status.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['Reconciling', 'False'],
      ['Stalled', 'False'],
    ]);
  });

  it('returns the current status itself when nothing changed, so no write happens', () => {
    const first = nextStatus(undefined, { generation: 1, verdict: ready, resolution, now: t0 });
    expect(nextStatus(first, { generation: 1, verdict: ready, resolution, now: t1 })).toBe(first);
  });

  it('does not count the order of keys as a change (the API server sorts them)', () => {
    const withRef = { ...resolution, dynamicClientSecretRef: { name: 'acme-oauth-client', key: 'clientSecret' } };
    const first = nextStatus(undefined, { generation: 1, verdict: ready, resolution: withRef, now: t0 });
    const fromServer = JSON.parse(JSON.stringify({ ...first, dynamicClientSecretRef: { key: 'clientSecret', name: 'acme-oauth-client' } }));
    expect(nextStatus(fromServer, { generation: 1, verdict: ready, resolution: withRef, now: t1 })).toBe(fromServer);
  });

  it('moves updatedAt when a field, the generation or a condition changes', () => {
    const first = nextStatus(undefined, { generation: 1, verdict: ready, resolution, now: t0 });
    for (const input of [
      { generation: 2, verdict: ready, resolution },
      { generation: 1, verdict: ready, resolution: { ...resolution, issuer: 'https://auth.example.com' } },
      { generation: 1, verdict: { state: 'stalled' as const, reason: 'InsecureUrl', message: 'no' }, resolution },
    ]) {
      const next = nextStatus(first, { ...input, now: t1 });
      expect(next.updatedAt).toBe('2026-01-01T00:05:00Z');
      expect(statusesEqual(first, next)).toBe(false);
    }
  });

  it('reports a Ready transition once, as Warning when it is not Ready', () => {
    const first = nextStatus(undefined, {
      generation: 1,
      verdict: { state: 'progressing', reason: 'ClientSecretNotFound', message: 'm' },
      resolution,
      now: t0,
    });
    expect(readyTransition(undefined, first.conditions)).toEqual({ type: 'Warning', reason: 'ClientSecretNotFound', message: 'm' });
    const second = nextStatus(first, { generation: 1, verdict: ready, resolution, now: t1 });
    expect(readyTransition(first.conditions, second.conditions)).toEqual({ type: 'Normal', reason: 'Ready', message: 'ok' });
    expect(readyTransition(second.conditions, second.conditions)).toBeUndefined();
  });
});

describe('the dynamic client Secret', () => {
  const provider = {
    apiVersion: 'berth.dev/v1alpha1',
    metadata: { name: 'acme', namespace: 'org', uid: 'uid-1' },
  } as Pick<OAuthProvider, 'apiVersion' | 'metadata'>;
  const client = {
    clientId: 'id-1',
    clientSecret: 'shh',
    clientSecretExpiresAt: 0,
    registrationAccessToken: 'rat',
    tokenEndpointAuthMethod: 'client_secret_post' as const,
  };
  const registration = { registrationEndpoint: 'https://auth.example.com/reg', requestedAuthMethod: 'client_secret_post' as const };

  it('is owned by its provider and reads back without its secret', () => {
    const secret = renderDynamicClientSecret(provider, client, registration);
    expect(secret.metadata).toMatchObject({
      name: 'acme-oauth-client',
      namespace: 'org',
      ownerReferences: [{ kind: 'OAuthProvider', name: 'acme', uid: 'uid-1', controller: true }],
    });
    const stored = readStoredRegistration(secret, 'uid-1');
    expect(stored).toEqual({
      ownedByProvider: true,
      clientId: 'id-1',
      hasClientSecret: true,
      clientSecretExpiresAt: 0,
      registrationEndpoint: 'https://auth.example.com/reg',
      requestedAuthMethod: 'client_secret_post',
    });
    expect(JSON.stringify(stored)).not.toContain('shh');
    expect(readStoredRegistration(secret, 'another-uid').ownedByProvider).toBe(false);
  });

  it('is kept until the endpoint, the method or the secret lifetime make it useless', () => {
    const stored = readStoredRegistration(renderDynamicClientSecret(provider, client, registration), 'uid-1');
    const current = { registrationEndpoint: 'https://auth.example.com/reg', tokenEndpointAuthMethod: 'client_secret_post' as const };
    expect(registrationStaleReason(stored, current, 1_800_000_000)).toBeUndefined();
    expect(registrationStaleReason(stored, { ...current, registrationEndpoint: 'https://other.example.com/reg' }, 0)).toBe(
      'the registration endpoint changed',
    );
    expect(registrationStaleReason(stored, { ...current, tokenEndpointAuthMethod: 'client_secret_basic' }, 0)).toBe(
      'tokenEndpointAuthMethod changed',
    );
    expect(registrationStaleReason({ ...stored, clientSecretExpiresAt: 1_000 }, current, 900)).toBe('the client secret expires');
    expect(registrationStaleReason({ ...stored, clientSecretExpiresAt: 2_000 }, current, 1_000)).toBeUndefined();
  });

  it('has a name that fits whatever the provider is called', () => {
    const long = 'p'.repeat(253);
    expect(dynamicClientSecretName(long).length).toBeLessThanOrEqual(253);
    expect(dynamicClientSecretName(long)).not.toBe(dynamicClientSecretName(`${'p'.repeat(252)}q`));
  });
});

describe('retryDelay', () => {
  const failingSince = (iso: string) =>
    nextStatus(undefined, {
      generation: 1,
      verdict: { state: 'progressing', reason: 'DiscoveryFailed', message: 'm' },
      resolution: {},
      now: new Date(iso),
    }).conditions;

  it('starts at the base delay and grows with the age of the failure up to the cap', () => {
    const conditions = failingSince('2026-01-01T00:00:00Z');
    expect(retryDelay(conditions, new Date('2026-01-01T00:00:01Z'), 30_000, 300_000)).toBe(30_000);
    expect(retryDelay(conditions, new Date('2026-01-01T00:02:00Z'), 30_000, 300_000)).toBe(120_000);
    expect(retryDelay(conditions, new Date('2026-01-01T03:00:00Z'), 30_000, 300_000)).toBe(300_000);
    expect(retryDelay(undefined, new Date('2026-01-01T03:00:00Z'), 30_000, 300_000)).toBe(30_000);
  });
});

// API keys and tenant resolution: pure, no API server.
import { describe, expect, it } from 'vitest';
import { apiKeyRecordFromSecret, hashApiKey, matchApiKey, mintApiKey, renderApiKeySecret } from './api-keys.ts';
import type { HttpError } from './errors.ts';
import { resolveTenant } from './tenancy.ts';

const orgA = '11111111-1111-4111-8111-111111111111';
const orgB = '22222222-2222-4222-8222-222222222222';
const namespaces = [
  { metadata: { name: 'team-b', labels: { 'berth.dev/organization-id': orgB } } },
  { metadata: { name: 'team-a', labels: { 'berth.dev/organization-id': orgA } } },
  { metadata: { name: 'unlabelled' } },
];

function stored(key: string, organizations: string[]) {
  const secret = renderApiKeySecret('berth-system', hashApiKey(key), organizations);
  // As the API server returns it: stringData becomes base64 data.
  const data = Object.fromEntries(Object.entries(secret.stringData!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  return apiKeyRecordFromSecret({ ...secret, stringData: undefined, data })!;
}

function status(run: () => unknown): number | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as HttpError).statusCode;
  }
}

describe('API keys', () => {
  it('stores only the hash, and matches the key it was made from', () => {
    const key = mintApiKey();
    const secret = renderApiKeySecret('berth-system', hashApiKey(key), [orgA]);
    expect(JSON.stringify(secret)).not.toContain(key);
    const record = stored(key, [orgA]);
    expect(matchApiKey(key, [stored(mintApiKey(), [orgB]), record])).toBe(record);
    expect(matchApiKey(`${key}x`, [record])).toBeUndefined();
  });

  it('ignores Secrets that are not well-formed key Secrets', () => {
    expect(
      apiKeyRecordFromSecret({ metadata: { labels: { 'berth.dev/api-key': 'true' } }, data: { sha256: 'bm90LWhleA==' } }),
    ).toBeUndefined();
    expect(apiKeyRecordFromSecret({ metadata: {}, stringData: { sha256: 'a'.repeat(64), organizations: orgA } })).toBeUndefined();
  });
});

describe('resolveTenant', () => {
  const key = mintApiKey();
  const keys = [stored(key, [orgA, orgB])];

  it("uses the key's first organization, or the one X-Tenant-Id names", () => {
    expect(resolveTenant({ apiKey: key, tenantId: undefined, keys, namespaces })).toEqual({ organizationId: orgA, namespace: 'team-a' });
    expect(resolveTenant({ apiKey: key, tenantId: orgB, keys, namespaces })).toEqual({ organizationId: orgB, namespace: 'team-b' });
  });

  it.each([
    ['no key', undefined, undefined],
    ['an unknown key', 'berth_nope', undefined],
    ['a tenant the key cannot reach', key, '33333333-3333-4333-8333-333333333333'],
  ])('answers 401 for %s', (_what, apiKey, tenantId) => {
    expect(status(() => resolveTenant({ apiKey, tenantId, keys, namespaces }))).toBe(401);
  });

  it('answers 401 for an organization without a namespace', () => {
    expect(status(() => resolveTenant({ apiKey: key, tenantId: orgB, keys, namespaces: namespaces.slice(1) }))).toBe(401);
  });
});

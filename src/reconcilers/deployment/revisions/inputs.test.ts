import type { V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { CodeHostIntegration } from '../../../api/index.ts';
import {
  awaitedProblem,
  fingerprintSecrets,
  referencedSecretNames,
  resolveIntegration,
  secretReferences,
  sourceConfigSecretReferences,
} from './inputs.ts';

const secrets: Record<string, V1Secret> = {
  'shop-secrets': { metadata: { name: 'shop-secrets' }, data: { API_KEY: Buffer.from('one').toString('base64') } },
  vault: { metadata: { name: 'vault' }, data: { db: Buffer.from('hunter2').toString('base64') } },
};
const lookup = (_namespace: string, name: string) => secrets[name];

describe('secretReferences', () => {
  it('reads an entry without valueFrom from <deployment>-secrets, under its own name', () => {
    expect(
      secretReferences('shop', [{ name: 'API_KEY' }, { name: 'DB', valueFrom: { secretKeyRef: { name: 'vault', key: 'db' } } }]),
    ).toEqual([
      { entry: 'API_KEY', secretName: 'shop-secrets', key: 'API_KEY' },
      { entry: 'DB', secretName: 'vault', key: 'db' },
    ]);
    expect(referencedSecretNames('shop', { secrets: [{ name: 'A' }, { name: 'B' }] })).toEqual(new Set(['shop-secrets']));
  });
});

describe('fingerprintSecrets', () => {
  it('hashes every value, keeping none', () => {
    const result = fingerprintSecrets(
      'ns',
      secretReferences('shop', [{ name: 'API_KEY' }, { name: 'DB', valueFrom: { secretKeyRef: { name: 'vault', key: 'db' } } }]),
      lookup,
    );
    expect('fingerprints' in result && result.fingerprints.map((f) => f.name)).toEqual(['API_KEY', 'DB']);
    expect(JSON.stringify(result)).not.toContain(Buffer.from('hunter2').toString('base64'));
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it.each([
    [
      'a missing Secret',
      [{ name: 'X', valueFrom: { secretKeyRef: { name: 'nope', key: 'x' } } }],
      'SecretNotFound',
      'Secret "nope" not found in namespace "ns", or not shared with Berth: label it berth.dev/secret=shared',
    ],
    ['a missing key', [{ name: 'X', valueFrom: { secretKeyRef: { name: 'vault', key: 'x' } } }], 'SecretKeyNotFound', 'no key x'],
    ['a value the facade never wrote', [{ name: 'OTHER' }], 'SecretKeyNotFound', 'shop-secrets'],
  ])('reports %s', (_, entries, reason, text) => {
    const result = fingerprintSecrets('ns', secretReferences('shop', entries), lookup);
    expect(result).toMatchObject({ problem: { reason } });
    expect('problem' in result && result.problem.message).toContain(text);
  });
});

describe("the team's own databases", () => {
  const externalDatabase = { postgresUri: { name: 'vault', key: 'db' }, redisUri: { name: 'cache', key: 'uri' } };

  it('are Secrets the Deployment reads, and each missing one says what reads it', () => {
    expect(referencedSecretNames('shop', { secrets: [], sourceConfig: { externalDatabase } })).toEqual(new Set(['vault', 'cache']));
    const result = fingerprintSecrets('ns', sourceConfigSecretReferences({ externalDatabase }), lookup);
    expect(result).toMatchObject({ problem: { reason: 'SecretNotFound' } });
    expect('problem' in result && result.problem.message).toContain('(for spec.sourceConfig.externalDatabase.redisUri).');
    expect(sourceConfigSecretReferences(undefined)).toEqual([]);
  });
});

describe('resolveIntegration', () => {
  const integration = {
    metadata: { name: 'gh', uid: '11111111-2222-4333-8444-555555555555' },
    spec: { provider: 'github', credentialsSecretRef: { name: 'c' } },
  } as CodeHostIntegration;

  it.each([
    ['an image source needs none', 'external_docker', undefined, {}],
    ['a known id', 'codehost', integration.metadata.uid, { integration }],
  ])('%s', (_, source, id, expected) => {
    expect(resolveIntegration(source, id, [integration])).toEqual(expected);
  });

  it('reports an unknown id', () => {
    expect(resolveIntegration('codehost', '00000000-0000-4000-8000-000000000000', [integration])).toMatchObject({
      problem: { reason: 'IntegrationNotFound' },
    });
  });
});

describe('awaitedProblem', () => {
  const missing = fingerprintSecrets('ns', secretReferences('fresh', [{ name: 'API_KEY' }]), lookup) as {
    problem: { reason: string; message: string };
    secretName?: string;
  };
  const created = '2026-01-01T00:00:00Z';

  it.each([
    ['the facade Secret of a new Deployment', missing, '2026-01-01T00:00:10Z', true],
    ['the facade Secret after the grace period', missing, '2026-01-01T00:01:00Z', undefined],
  ])('%s', (_, result, now, awaited) => {
    expect(awaitedProblem(result, 'fresh', created, new Date(now)).awaited).toBe(awaited);
  });

  it('never waits for a Secret the user names', () => {
    const other = fingerprintSecrets(
      'ns',
      secretReferences('fresh', [{ name: 'X', valueFrom: { secretKeyRef: { name: 'nope', key: 'x' } } }]),
      lookup,
    ) as { problem: { reason: string; message: string }; secretName?: string };
    expect(awaitedProblem(other, 'fresh', created, new Date('2026-01-01T00:00:01Z')).awaited).toBeUndefined();
  });
});

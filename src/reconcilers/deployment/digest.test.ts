import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprintSecret, revisionDigest } from './digest.ts';

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"d":[3,{"y":2,"z":1}]}}'],
    [{ a: undefined, b: 'x' }, '{"b":"x"}'],
    [[2, 1], '[2,1]'],
  ])('%j -> %s', (input, expected) => {
    expect(canonicalJson(input)).toBe(expected);
  });
});

describe('revisionDigest', () => {
  const config = { repoRef: 'main', graphConfigPath: 'app.json' };
  const secrets = [fingerprintSecret('API_KEY', 'one'), fingerprintSecret('DB', 'two')];

  it('ignores key order and secret order', () => {
    expect(revisionDigest({ graphConfigPath: 'app.json', repoRef: 'main' }, [...secrets].reverse())).toBe(revisionDigest(config, secrets));
  });

  it('is a sha256 hex digest', () => {
    expect(revisionDigest(config, secrets)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['the revision config changes', { ...config, repoRef: 'dev' }, secrets],
    ['a secret value changes', config, [fingerprintSecret('API_KEY', 'three'), secrets[1]!]],
    ['a secret is renamed', config, [fingerprintSecret('API_KEY2', 'one'), secrets[1]!]],
    ['a secret is added', config, [...secrets, fingerprintSecret('NEW', '')]],
  ])('changes when %s', (_, nextConfig, nextSecrets) => {
    expect(revisionDigest(nextConfig, nextSecrets)).not.toBe(revisionDigest(config, secrets));
  });

  it('keeps secret values out of the fingerprint', () => {
    expect(JSON.stringify(fingerprintSecret('API_KEY', 'hunter2'))).not.toContain('hunter2');
  });

  it('treats an absent config and an empty one alike', () => {
    expect(revisionDigest(undefined, [])).toBe(revisionDigest({}, []));
  });
});

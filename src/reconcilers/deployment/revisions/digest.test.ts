import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprintSecret, revisionDigest } from './digest.ts';

/** The text applied hashes were first computed from: JSON.stringify of a copy with sorted keys. */
function sortedCopyJson(value: unknown): string {
  const normalise = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(normalise);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) {
        const member = (v as Record<string, unknown>)[key];
        if (member !== undefined && member !== null) out[key] = normalise(member);
      }
      return out;
    }
    return v;
  };
  return JSON.stringify(normalise(value));
}

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"d":[3,{"y":2,"z":1}]}}'],
    [{ a: undefined, b: 'x' }, '{"b":"x"}'],
    [[2, 1], '[2,1]'],
    // As the sorted copy listed them: integer-like keys first, in numeric order.
    [{ b: 3, '10': 1, '': 4, '9': 2 }, '{"9":2,"10":1,"":4,"b":3}'],
  ])('%j -> %s', (input, expected) => {
    expect(canonicalJson(input)).toBe(expected);
  });

  it('writes exactly the text stored hashes were computed from, so no object is applied again after an upgrade', () => {
    const withHoles = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
    }));
    fc.assert(
      fc.property(withHoles.object, (value) => canonicalJson(value) === sortedCopyJson(value)),
      { numRuns: 5000 },
    );
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

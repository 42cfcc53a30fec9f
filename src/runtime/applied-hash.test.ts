import { describe, expect, it } from 'vitest';
import { appliedHashOf, contains, upToDate, withAppliedHash } from './applied-hash.ts';

describe('contains', () => {
  it.each([
    ['equal scalars', 1, 1, true],
    ['different scalars', 1, 2, false],
    ['extra members in the actual object', { a: 1, b: 2 }, { a: 1 }, true],
    ['a missing member', { a: 1 }, { a: 1, b: 2 }, false],
    ['defaults inside list items', [{ name: 'x', protocol: 'TCP' }], [{ name: 'x' }], true],
    ['a list of another length', [{ name: 'x' }, { name: 'y' }], [{ name: 'x' }], false],
    ['an empty list the server dropped', {}, { list: [] }, true],
    ['an empty map the server dropped', {}, { map: {} }, true],
    ['an emptyDir kept as {}', { emptyDir: {} }, { emptyDir: {} }, true],
    ['a changed quantity', { cpu: '1' }, { cpu: '500m' }, false],
    ['a quantity the server canonicalised', { cpu: '1', memory: '1Gi' }, { cpu: '1000m', memory: '1024Mi' }, true],
    ['an exponent quantity', { memory: '129e6' }, { memory: '129M' }, true],
    ['strings that are not quantities', { image: 'nginx:1' }, { image: 'nginx:1.0' }, false],
  ])('%s', (_, actual, desired, expected) => {
    expect(contains(actual, desired)).toBe(expected);
  });
});

describe('upToDate', () => {
  const desired = withAppliedHash({ metadata: { name: 'a', labels: { x: '1' } }, spec: { replicas: 1 } });

  it('is true for the stored form of the same manifest', () => {
    const stored = { ...desired, metadata: { ...desired.metadata, uid: 'u', resourceVersion: '5' }, status: { ready: true } };
    expect(upToDate(stored, desired)).toBe(true);
  });

  it('sees what stopped being rendered through the hash', () => {
    const withoutLabel = withAppliedHash({ metadata: { name: 'a', labels: {} }, spec: { replicas: 1 } });
    expect(upToDate(desired, withoutLabel)).toBe(false);
  });

  it('sees drift made by someone else', () => {
    expect(upToDate({ ...desired, spec: { replicas: 3 } }, desired)).toBe(false);
  });

  it('is false when nothing is cached', () => {
    expect(upToDate(undefined, desired)).toBe(false);
  });

  it('hashes deterministically', () => {
    expect(appliedHashOf(desired)).toMatch(/^[0-9a-f]{16}$/);
    expect(appliedHashOf(withAppliedHash({ spec: { replicas: 1 }, metadata: { labels: { x: '1' }, name: 'a' } }))).toBe(
      appliedHashOf(desired),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { customHostOf, openHostPolicy, type Deployment } from '../../api/index.ts';
import { includes } from './listeners.ts';
import { heldCustomHosts } from './tls.ts';

describe('includes', () => {
  it('holds when every wanted field has the same value, whatever else the API server added', () => {
    expect(includes({ a: 1, b: { c: [{ d: 'x', e: 2 }] }, extra: true }, { a: 1, b: { c: [{ d: 'x' }] } })).toBe(true);
  });
  it('fails on a changed value, a missing field, or a list of another length', () => {
    expect(includes({ a: 2 }, { a: 1 })).toBe(false);
    expect(includes({}, { a: { b: 1 } })).toBe(false);
    expect(includes({ a: [1, 2] }, { a: [1] })).toBe(false);
    expect(includes(undefined, { a: 1 })).toBe(false);
  });
});

describe('heldCustomHosts', () => {
  const deployment = (name: string, host: string, recorded?: string) =>
    ({
      metadata: { name, namespace: 'shop', uid: name, creationTimestamp: '2026-12-01T00:00:00Z' },
      spec: { source: 'external_docker', sourceConfig: { customUrl: `https://${host}/` } },
      ...(recorded ? { status: { customHostClaim: { host: recorded, claimedAt: '2026-12-01T00:00:01Z' } } } : {}),
    }) as unknown as Deployment;
  const cache = (all: Deployment[]) => ({
    list: () => all,
    byIndex: (_index: string, host: string) => all.filter((d) => customHostOf(d) === host),
  });

  it('gives a listener only to hosts whose claim the controller accepted and recorded (proved, where proof is asked)', () => {
    const all = [
      deployment('proved', 'a.example.com', 'a.example.com'),
      deployment('unproved', 'b.example.com'),
      deployment('moved', 'c.example.com', 'old.example.com'),
    ];
    expect(heldCustomHosts(cache(all), 'shop', openHostPolicy)).toEqual(['a.example.com']);
  });
});

import { describe, expect, it } from 'vitest';
import { customHostLimitRefusal, hostRefusal, nextHostClaim, openHostPolicy, parseCustomUrl, type HostClaim } from './custom-hosts.ts';

const claim = (uid: string | undefined, createdAt: string, customUrl?: string): HostClaim => ({
  metadata: { ...(uid ? { uid } : {}), creationTimestamp: createdAt },
  spec: { sourceConfig: customUrl ? { customUrl } : {} },
});

describe('hostRefusal', () => {
  const earlier = claim('b-uid', '2026-11-26T10:00:00Z', 'https://shop.example.com');
  const later = claim('a-uid', '2026-11-26T11:00:00Z', 'shop.EXAMPLE.com/store');

  it('lets the earliest claim of a host keep it, by creation time and then uid', () => {
    expect(hostRefusal(earlier, [earlier, later], openHostPolicy)).toBeUndefined();
    expect(hostRefusal(later, [earlier, later], openHostPolicy)).toEqual({
      reason: 'HostClaimed',
      message: 'custom_url host shop.example.com is claimed by another deployment',
    });
    const twin = claim('c-uid', '2026-11-26T10:00:00Z', 'https://shop.example.com');
    expect(hostRefusal(twin, [earlier, twin], openHostPolicy)?.reason).toBe('HostClaimed');
    expect(hostRefusal(earlier, [earlier, twin], openHostPolicy)).toBeUndefined();
  });

  it('keeps a host with its first accepted claim, whatever the age of a deployment that claims it later', () => {
    // The victim, made at 11:00, holds shop.example.com since 11:01; an older deployment moves to it at 12:00.
    const victim = { ...later, status: { customHostClaim: { host: 'shop.example.com', claimedAt: '2026-11-26T11:01:00Z' } } };
    const attacker = { ...earlier, status: { customHostClaim: { host: 'own.example.com', claimedAt: '2026-11-26T10:00:01Z' } } };
    expect(hostRefusal(attacker, [attacker, victim], openHostPolicy)?.reason).toBe('HostClaimed');
    expect(hostRefusal(victim, [attacker, victim], openHostPolicy)).toBeUndefined();
    // Between two recorded claims of one host (as after a restore), the earlier record.
    const recordedLater = { ...earlier, status: { customHostClaim: { host: 'shop.example.com', claimedAt: '2026-11-26T11:02:00Z' } } };
    expect(hostRefusal(recordedLater, [recordedLater, victim], openHostPolicy)?.reason).toBe('HostClaimed');
  });

  it('records a claim once accepted, keeps it while the host stays, and drops it with the host', () => {
    const now = '2026-11-26T12:00:00Z';
    const held = { host: 'shop.example.com', claimedAt: '2026-11-26T11:00:00Z' };
    expect(nextHostClaim(undefined, 'shop.example.com', false, now)).toEqual({ host: 'shop.example.com', claimedAt: now });
    expect(nextHostClaim(undefined, 'shop.example.com', true, now)).toBeUndefined();
    expect(nextHostClaim(held, 'shop.example.com', false, now)).toBe(held);
    expect(nextHostClaim(held, 'other.example.com', false, now)).toEqual({ host: 'other.example.com', claimedAt: now });
    expect(nextHostClaim(held, 'other.example.com', true, now)).toBeUndefined();
    expect(nextHostClaim(held, undefined, false, now)).toBeUndefined();
  });

  it('refuses any claim of a claimed host for a deployment not yet created', () => {
    expect(hostRefusal(claim(undefined, '', 'https://shop.example.com'), [earlier], openHostPolicy)?.reason).toBe('HostClaimed');
    expect(hostRefusal(claim(undefined, '', 'https://free.example.com'), [], openHostPolicy)).toBeUndefined();
  });

  it('keeps reserved hosts and the allowed domains', () => {
    const policy = { allowedDomains: ['apps.example.com'], reservedHosts: ['API.apps.example.com'] };
    expect(hostRefusal(claim('x', '', 'https://api.apps.example.com/v2'), [], policy)?.reason).toBe('HostReserved');
    expect(hostRefusal(claim('x', '', 'https://evil.com'), [], policy)?.reason).toBe('HostNotAllowed');
    expect(hostRefusal(claim('x', '', 'https://xapps.example.com'), [], policy)?.reason).toBe('HostNotAllowed');
    expect(hostRefusal(claim('x', '', 'https://a.b.apps.example.com'), [], policy)).toBeUndefined();
    expect(hostRefusal(claim('x', '', 'https://apps.example.com'), [], policy)).toBeUndefined();
    expect(hostRefusal(claim('x', ''), [], policy)).toBeUndefined();
  });

  it("refuses hosts under the apps domain: another deployment's own URL", () => {
    const policy = { allowedDomains: [], reservedHosts: [], reservedDomains: ['apps.example.com'] };
    expect(hostRefusal(claim('x', '', 'https://shop.team-b.apps.example.com/'), [], policy)).toEqual({
      reason: 'HostReserved',
      message:
        "custom_url host shop.team-b.apps.example.com is under apps.example.com, where this installation names every deployment's own URL",
    });
    expect(hostRefusal(claim('x', '', 'https://shop.example.com/'), [], policy)).toBeUndefined();
  });

  it('reads the host as the Ingress does', () => {
    expect(parseCustomUrl('https://API.example.com/app')).toEqual({ host: 'api.example.com', path: '/app' });
    expect(parseCustomUrl('https://10.0.0.1/')).toBeUndefined();
  });
});

describe('customHostLimitRefusal', () => {
  const at = (name: string, host: string | undefined, created: string, recorded?: string) => ({
    metadata: { name, uid: name, creationTimestamp: created },
    spec: { sourceConfig: host ? { customUrl: `https://${host}/` } : {} },
    ...(recorded ? { status: { customHostClaim: { host: recorded, claimedAt: created } } } : {}),
  });
  const held = [
    at('a', 'a.example.com', '2026-12-03T10:00:00Z', 'a.example.com'),
    at('b', 'b.example.com', '2026-12-03T10:01:00Z', 'b.example.com'),
  ];

  it('refuses a host more than the organization may hold, saying how many it holds', () => {
    const next = at('c', 'c.example.com', '2026-12-03T10:02:00Z');
    expect(customHostLimitRefusal(next, () => held, 2)).toEqual({
      reason: 'CustomHostLimit',
      message: 'the organization already holds 2 custom URL hosts, the most this installation allows one organization (2): free one first',
    });
    expect(customHostLimitRefusal(next, () => held, 3)).toBeUndefined();
    expect(customHostLimitRefusal(next, () => held, undefined)).toBeUndefined();
  });

  it('never refuses a claim already recorded, a host the organization holds already, or a deployment without one', () => {
    expect(customHostLimitRefusal(held[0]!, () => held, 1)).toBeUndefined();
    expect(customHostLimitRefusal(at('d', 'a.example.com', '2026-12-03T10:03:00Z'), () => held, 2)).toBeUndefined();
    expect(customHostLimitRefusal(at('e', undefined, '2026-12-03T10:03:00Z'), () => held, 0)).toBeUndefined();
  });

  it('counts claims not recorded yet of earlier deployments, so a burst stops at the cap, but not those Stalled', () => {
    const burst = ['p', 'q', 'r'].map((name, i) => at(name, `${name}.example.com`, `2026-12-03T10:0${i}:00Z`));
    const passed = burst.filter((deployment) => !customHostLimitRefusal(deployment, () => burst, 2));
    expect(passed.map((deployment) => deployment.metadata.name)).toEqual(['p', 'q']);
    const refused = { ...burst[0]!, status: { conditions: [{ type: 'Stalled', status: 'True' }] } };
    expect(customHostLimitRefusal(burst[2]!, () => [refused, burst[1]!], 2)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { routeServiceNames } from '../../../api/child-names.ts';
import { decideRouteTargets, routeServiceSettleMs } from './route-targets.ts';

const owner = { name: 'shop', namespace: 'ns', uid: 'uid-1' };
const route = routeServiceNames(owner.uid);
const own = { stable: 'shop', canary: 'shop-canary' };
const now = new Date('2026-12-03T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('decideRouteTargets', () => {
  it('routes a new deployment, one already moved, and one routed to the activator to its route Services', () => {
    expect(decideRouteTargets(owner, { routed: [], now })).toEqual({ routeTo: route });
    expect(decideRouteTargets(owner, { routed: [route.stable, route.canary], now })).toEqual({ routeTo: route });
    expect(decideRouteTargets(owner, { routed: ['interceptor-proxy'], now })).toEqual({ routeTo: route });
  });

  it('keeps routes on the application Service until the route Service has stood long enough, then moves them', () => {
    expect(decideRouteTargets(owner, { routed: ['shop'], now })).toEqual({ routeTo: own, recheckMs: routeServiceSettleMs });
    expect(decideRouteTargets(owner, { routed: ['shop'], routeServiceCreated: ago(4_000), now })).toEqual({
      routeTo: own,
      recheckMs: routeServiceSettleMs - 4_000,
    });
    expect(decideRouteTargets(owner, { routed: ['shop'], routeServiceCreated: ago(routeServiceSettleMs), now })).toEqual({
      routeTo: route,
    });
  });

  it("keeps a canary in flight on its own Service until it is over, so its step's figures stay one series", () => {
    expect(decideRouteTargets(owner, { routed: ['shop', 'shop-canary'], routeServiceCreated: ago(60_000), now })).toEqual({
      routeTo: own,
    });
  });
});

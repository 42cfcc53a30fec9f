import { describe, expect, it } from 'vitest';
import { pathCheckDecision } from './path-check.ts';

describe('pathCheckDecision', () => {
  it('follows on and off as given', () => {
    expect(pathCheckDecision('on', false, ['cilium.io']).on).toBe(true);
    expect(pathCheckDecision('off', true, []).on).toBe(false);
  });

  it('checks under auto only where the organization policy has a NetworkPolicy', () => {
    expect(pathCheckDecision('auto', true, ['apps', 'networking.k8s.io'])).toEqual({ on: true });
    expect(pathCheckDecision('auto', false, [])).toEqual({ on: false });
  });

  it('does not check under auto where another API can admit what NetworkPolicy denies, and says which', () => {
    const decision = pathCheckDecision('auto', true, ['apps', 'cilium.io', 'policy.networking.k8s.io']);
    expect(decision.on).toBe(false);
    expect(decision.why).toContain('serves CiliumNetworkPolicy, AdminNetworkPolicy,');
  });
});

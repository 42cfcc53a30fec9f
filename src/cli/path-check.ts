// Whether Berth checks each app's NetworkPolicies against the relays its requests take
// (--network-policy-check, src/api/network-path.ts). Where NetworkPolicies are not enforced, every
// "blocked" would be a false alarm, and where another API can admit what NetworkPolicy denies, so
// would some: `auto` checks only where the organization policy asks for a NetworkPolicy (so the
// installation says they are enforced) and the cluster serves none of those APIs.
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest, type Logger } from '../runtime/index.ts';
import type { Options } from './options.ts';

/** API groups whose policies can allow traffic a NetworkPolicy denies, and what they are called. */
const overridingGroups: Readonly<Record<string, string>> = {
  'policy.networking.k8s.io': 'AdminNetworkPolicy',
  'cilium.io': 'CiliumNetworkPolicy',
  'crd.projectcalico.org': "Calico's NetworkPolicy",
  'crd.antrea.io': "Antrea's NetworkPolicy",
};

export interface PathCheckDecision {
  on: boolean;
  /** Why `auto` turned it off, where the reason is worth a log line. */
  why?: string;
}

/** The decision, from the flag, the organization policy and the API groups the cluster serves. Pure. */
export function pathCheckDecision(
  mode: Options['networkPolicyCheck'],
  hasNetworkPolicy: boolean,
  groups: readonly string[],
): PathCheckDecision {
  if (mode !== 'auto') return { on: mode === 'on' };
  if (!hasNetworkPolicy) return { on: false };
  const overriding = groups.flatMap((group) => (overridingGroups[group] ? [overridingGroups[group]] : []));
  if (overriding.length === 0) return { on: true };
  return {
    on: false,
    why: `the cluster serves ${overriding.join(', ')}, which can admit what a NetworkPolicy denies: apps' paths are not checked (--network-policy-check on checks them anyway)`,
  };
}

/** The decision for this cluster: asks for its API groups only under `auto`. */
export async function networkPolicyCheckFor(kubeConfig: KubeConfig, options: Options, logger: Logger): Promise<boolean> {
  const mode = options.networkPolicyCheck;
  const hasNetworkPolicy = !!options.organizationPolicy?.networkPolicy;
  const groups =
    mode === 'auto' && hasNetworkPolicy
      ? (await kubeRequest<{ groups: { name: string }[] }>(kubeConfig, { method: 'GET', path: '/apis' })).groups.map((g) => g.name)
      : [];
  const decision = pathCheckDecision(mode, hasNetworkPolicy, groups);
  if (decision.why) logger.info(decision.why);
  return decision.on;
}

// Step 1's judgement of a customUrl's host: the installation's rules, then the organization's proof of
// ownership where the installation asks for one (src/api/host-ownership.ts), then earlier claims and
// the organization's cap. An unproven claim is refused before any other claim is looked at, so its
// refusal tells nothing of other tenants. The proof is asked once per claim: a claim recorded in the
// status stands while the customUrl keeps its host, and a pass at rest asks nothing of DNS. Nor does a
// pass wait on DNS past a moment: a tenant's zone may be slow on purpose (domains/ownership-verdicts.ts);
// the verdict wakes the Deployment when it comes.
import {
  customHostIndex,
  customHostLimitRefusal,
  customHostOf,
  hostClaimRefusal,
  hostPolicyRefusal,
  labels,
  ownershipRecordName,
  type Deployment,
} from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import type { Pass } from '../pass.ts';
import type { Problem } from '../problem.ts';

export async function hostClaimProblem(pass: Pass, deployment: DeepReadonly<Deployment>): Promise<Problem | undefined> {
  const host = customHostOf(deployment);
  if (!host) return undefined;
  const { informers, options } = pass;
  const namespace = deployment.metadata.namespace ?? '';
  return (
    hostPolicyRefusal(host, options.hostPolicy) ??
    (await ownershipProblem(pass, deployment, host)) ??
    hostClaimRefusal(deployment, informers.deployments.byIndex(customHostIndex, host), host) ??
    customHostLimitRefusal(deployment, () => informers.deployments.list(namespace), options.maxCustomHosts)
  );
}

async function ownershipProblem(pass: Pass, deployment: DeepReadonly<Deployment>, host: string): Promise<Problem | undefined> {
  const verdicts = pass.hostVerdicts;
  if (!verdicts || deployment.status?.customHostClaim?.host === host) return undefined;
  const namespace = pass.informers.namespaces?.get('', deployment.metadata.namespace ?? '');
  const organizationId = namespace?.metadata?.labels?.[labels.organizationId];
  if (!organizationId)
    return {
      reason: 'HostOwnershipUnproven',
      message: `custom_url host ${host} needs an organization to prove it owns it, and namespace ${deployment.metadata.namespace} is no organization's (label ${labels.organizationId}).`,
    };
  const key = { namespace: deployment.metadata.namespace ?? '', name: deployment.metadata.name ?? '' };
  const question = { host, organizationId, namespaceAnnotations: namespace?.metadata?.annotations };
  const verdict = await verdicts.judge(question, () => pass.wake?.(key));
  if (!verdict)
    return {
      reason: 'HostOwnershipUnproven',
      message: `Berth is looking up ${ownershipRecordName(host)}, the proof that the organization owns ${host}; its DNS is slow to answer.`,
      awaited: true,
    };
  return verdict.proven ? undefined : { reason: 'HostOwnershipUnproven', message: `${verdict.message}. Berth looks again each minute.` };
}

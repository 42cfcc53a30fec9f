// Whether the relays an app's requests go through can reach its pods: its activator (a dev_zero app that
// scales to zero) or the installation's proxy namespace (a routed app), against the NetworkPolicies of
// the app's namespace as the caches hold them (src/api/network-path.ts decides). Only a sure "blocked"
// is reported; a relay on the host (the embedded node's Gateway) is never evaluated, since a node always
// reaches its own pods.
import type { V1Deployment } from '@kubernetes/client-node';
import {
  ingressPath,
  namespaceNameOnly,
  pathBlockedMessage,
  type AppPods,
  type NetworkPolicyObject,
  type Relay,
  type Deployment,
} from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import type { DeploymentInformers } from '../informers.ts';
import type { DeploymentControllerOptions } from '../options.ts';
import { externalRoutes, scaleToZeroWith } from '../render/workloads.ts';

/** The relays an app's requests take here, where the path check is on: pure. */
export function relaysFor(options: DeploymentControllerOptions, deployment: DeepReadonly<Deployment>): Omit<Relay, 'namespaceLabels'>[] {
  if (!options.networkPolicyCheck) return [];
  const { name = '', namespace = '', uid = '' } = deployment.metadata;
  const routes = externalRoutes({ name, namespace, uid }, deployment.spec, options);
  if (scaleToZeroWith(options, deployment.spec, routes) === 'activated' && options.activator)
    return [{ role: 'activator', namespace: options.activator.proxy.namespace }];
  return options.proxyNamespace && routes.length > 0 ? [{ role: 'proxy', namespace: options.proxyNamespace }] : [];
}

/** Every namespace a relay of this installation runs in. */
export function relayNamespacesOf(options: DeploymentControllerOptions): string[] {
  return [options.activator?.proxy.namespace, options.proxyNamespace].filter((name): name is string => Boolean(name));
}

/** Why the app's requests cannot reach its pods, when a relay surely cannot; undefined otherwise. */
export function pathBlocked(
  informers: Pick<DeploymentInformers, 'networkPolicies' | 'namespaces'>,
  options: DeploymentControllerOptions,
  deployment: DeepReadonly<Deployment>,
  application: DeepReadonly<V1Deployment> | undefined,
): { message: string } | undefined {
  const { networkPolicies, namespaces } = informers;
  const labels = application?.spec?.template?.metadata?.labels;
  if (!networkPolicies || !labels) return undefined;
  const namespace = deployment.metadata.namespace ?? '';
  const policies = networkPolicies.list(namespace).filter((p) => p.metadata?.namespace === namespace) as NetworkPolicyObject[];
  const app: AppPods = { namespace, labels, port: { number: options.applicationPort, name: 'http', protocol: 'TCP' } };
  for (const { role, namespace: relayNamespace } of relaysFor(options, deployment)) {
    const cached = namespaces?.get('', relayNamespace)?.metadata?.labels;
    const relay: Relay = {
      role,
      namespace: relayNamespace,
      namespaceLabels: cached ? { labels: cached, complete: true } : namespaceNameOnly(relayNamespace),
    };
    const verdict = ingressPath(policies, app, relay);
    if (verdict.kind === 'blocked') return { message: pathBlockedMessage(verdict.policies, relay, app) };
  }
  return undefined;
}

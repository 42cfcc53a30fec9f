// The build namespace (--build-namespace): where every organization's build Jobs run, apart from the
// organizations' apps (src/workloads/build-jobs.ts). No team is granted anything in it. Its pods take
// no connection from anywhere (one build never reaches another's pod, an app never reaches a build) and
// reach out to anything but the networks the installation blocks (--build-blocked-cidrs: link-local
// addresses, the cloud's metadata service, by default), and cluster DNS. The namespace is made
// when it does not exist (the chart makes it, with Berth's rights in it); its policy is Berth's to keep.
import type { KubeConfig } from '@kubernetes/client-node';
import { fieldManager } from '../../../api/index.ts';
import { applyUnlessCurrent, isKubeApiError, kubeRequest, type KubeObject, type Logger } from '../../../runtime/index.ts';
import { withAppliedHash } from '../../../runtime/applied-hash.ts';
import { clusterDnsEgress } from '../../../api/cluster-dns.ts';

const managed = { 'app.kubernetes.io/managed-by': 'berth' };

export function renderBuildNamespace(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    // Builds take privileges (BuildKit's RUN steps); the level says so instead of leaving it to a default.
    metadata: { name, labels: { ...managed, 'pod-security.kubernetes.io/enforce': 'privileged' } },
  };
}

/** What builds may not reach unless the installation says otherwise: link-local addresses, where a
 * cloud's metadata service answers. */
export const defaultBuildBlockedCidrs = ['169.254.0.0/16', 'fe80::/10'];

/** Every address of one family but the blocked networks of that family. */
function allBut(cidr: string, blocked: readonly string[]) {
  const except = blocked.filter((network) => network.includes(':') === cidr.includes(':'));
  return { to: [{ ipBlock: { cidr, ...(except.length > 0 ? { except } : {}) } }] };
}

export function renderBuildNetworkPolicy(namespace: string, blocked: readonly string[] = defaultBuildBlockedCidrs): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'berth-builds', namespace, labels: managed },
    spec: {
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      // Cluster DNS whatever is blocked (it may answer from a blocked pod network).
      egress: [allBut('0.0.0.0/0', blocked), allBut('::/0', blocked), clusterDnsEgress],
    },
  } as KubeObject;
}

/** Makes the namespace if it is missing, then its NetworkPolicy if it is not as rendered: the leader does
 * it at the start of each term, and a start that finds both in place writes nothing. */
export async function prepareBuildNamespace(
  kc: KubeConfig,
  name: string,
  logger: Logger,
  blocked: readonly string[] = defaultBuildBlockedCidrs,
): Promise<void> {
  try {
    await kubeRequest(kc, { method: 'GET', path: `/api/v1/namespaces/${name}` });
  } catch (error) {
    if (!isKubeApiError(error, 404)) throw error;
    await kubeRequest(kc, { method: 'POST', path: '/api/v1/namespaces', body: renderBuildNamespace(name) }).catch((failure) => {
      if (!isKubeApiError(failure, 409)) throw failure;
    });
    logger.info({ namespace: name }, 'made the build namespace');
  }
  await applyUnlessCurrent(kc, withAppliedHash(renderBuildNetworkPolicy(name, blocked)), fieldManager);
}

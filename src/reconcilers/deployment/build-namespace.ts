// The build namespace (--build-namespace): where every organization's build Jobs run, apart from the
// organizations' apps (src/workloads/build-jobs.ts). No team is granted anything in it. Its pods take
// no connection from anywhere (one build never reaches another's pod, an app never reaches a build) and
// reach out to anything but link-local addresses (the cloud's metadata service). The namespace is made
// when it does not exist (the chart makes it, with Berth's rights in it); its policy is Berth's to keep.
import type { KubeConfig } from '@kubernetes/client-node';
import { fieldManager } from '../../api/index.ts';
import { applyObject, isKubeApiError, kubeRequest, type KubeObject, type Logger } from '../../runtime/index.ts';
import { appliedHashOf, withAppliedHash } from '../../runtime/applied-hash.ts';

const managed = { 'app.kubernetes.io/managed-by': 'berth' };

export function renderBuildNamespace(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    // Builds take privileges (BuildKit's RUN steps); the level says so instead of leaving it to a default.
    metadata: { name, labels: { ...managed, 'pod-security.kubernetes.io/enforce': 'privileged' } },
  };
}

export function renderBuildNetworkPolicy(namespace: string): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'berth-builds', namespace, labels: managed },
    spec: {
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [
        { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.0.0/16'] } }] },
        { to: [{ ipBlock: { cidr: '::/0', except: ['fe80::/10'] } }] },
      ],
    },
  } as KubeObject;
}

/** Makes the namespace if it is missing, then its NetworkPolicy if it is not as rendered: the leader does
 * it at the start of each term, and a start that finds both in place writes nothing. */
export async function prepareBuildNamespace(kc: KubeConfig, name: string, logger: Logger): Promise<void> {
  try {
    await kubeRequest(kc, { method: 'GET', path: `/api/v1/namespaces/${name}` });
  } catch (error) {
    if (!isKubeApiError(error, 404)) throw error;
    await kubeRequest(kc, { method: 'POST', path: '/api/v1/namespaces', body: renderBuildNamespace(name) }).catch((failure) => {
      if (!isKubeApiError(failure, 409)) throw failure;
    });
    logger.info({ namespace: name }, 'made the build namespace');
  }
  const policy = withAppliedHash(renderBuildNetworkPolicy(name));
  const stored = await kubeRequest<KubeObject>(kc, {
    method: 'GET',
    path: `/apis/networking.k8s.io/v1/namespaces/${name}/networkpolicies/${policy.metadata?.name}`,
  }).catch((error: unknown) => {
    if (isKubeApiError(error, 404)) return undefined;
    throw error;
  });
  if (appliedHashOf(stored) !== appliedHashOf(policy)) await applyObject(kc, policy, fieldManager);
}

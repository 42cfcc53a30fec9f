// Whether a Deployment scales to zero when idle here (tier.ts decides from its tier, the installation's
// activator and the Deployment's URL), and the one object that is not a Deployment's own: the
// ReferenceGrant in the activator's namespace that lets a namespace's HTTPRoutes lead there. It is kept
// while some Deployment of the namespace scales to zero, and removed with the last one. Read from the
// caches; written only when they differ from what is rendered.
import type { Deployment } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import { upToDate, withAppliedHash } from './compare.ts';
import { childKinds, type DeploymentInformers } from './informers.ts';
import type { DeploymentControllerOptions } from './options.ts';
import { externalRoutes, scaleToZeroWith } from './render/workloads.ts';
import { activatorGrantName, renderActivatorGrant } from './render/scale-to-zero.ts';
import type { ScaleToZero } from './tier.ts';
import type { DeploymentWriter } from './writer.ts';

export function scaleToZeroOf(options: DeploymentControllerOptions, deployment: DeepReadonly<Deployment>): ScaleToZero | undefined {
  const { name = '', namespace = '', uid = '' } = deployment.metadata;
  return scaleToZeroWith(options, deployment.spec, externalRoutes({ name, namespace, uid }, deployment.spec, options));
}

/** Keeps the namespace's grant while one of its Deployments (not being deleted) scales to zero. */
export async function keepActivatorGrant(
  deps: { informers: DeploymentInformers; writer: DeploymentWriter; options: DeploymentControllerOptions },
  namespace: string,
): Promise<void> {
  const { informers, writer, options } = deps;
  if (!options.activator || !informers.activatorGrants) return;
  const proxy = options.activator.proxy;
  const wanted = informers.deployments
    .list(namespace)
    .some((d) => d.metadata.namespace === namespace && !d.metadata.deletionTimestamp && scaleToZeroOf(options, d) === 'activated');
  const current = informers.activatorGrants.get(proxy.namespace, activatorGrantName(namespace));
  if (wanted) {
    const grant = withAppliedHash(renderActivatorGrant(namespace, proxy));
    if (!current || !upToDate(current, grant)) await writer.apply(grant);
  } else if (current && !current.metadata?.deletionTimestamp) {
    await writer.delete(childKinds.referenceGrant, proxy.namespace, activatorGrantName(namespace));
  }
}

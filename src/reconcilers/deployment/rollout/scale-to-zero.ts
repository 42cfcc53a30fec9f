// Whether a Deployment scales to zero when idle here (tier.ts decides from its tier, the installation's
// activator and the Deployment's URL), and the one object that is not a Deployment's own: the
// ReferenceGrant in the activator's namespace that lets a namespace's HTTPRoutes lead there. A pass of an
// app that scales to zero makes sure the grant is there; a pass of one that does not, and its finalizer,
// remove the grant when no other app of the namespace holds it. The holders are found through their
// InterceptorRoutes (or the HTTPScaledObjects an earlier Berth wrote, until pruned), so a pass never
// looks through the namespace's Deployments. Read from the caches; written only when they differ from
// what is rendered.
import type { Deployment } from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { upToDate, withAppliedHash } from '../../../runtime/applied-hash.ts';
import { childKinds, type DeploymentInformers } from '../informers.ts';
import type { DeploymentControllerOptions } from '../options.ts';
import type { DeploymentReconcilerDependencies } from '../pass.ts';
import type { OwnerDeployment } from '../render/common.ts';
import { externalRoutes, scaleToZeroWith } from '../render/workloads.ts';
import { activatorGrantName, renderActivatorGrant } from '../render/scale-to-zero.ts';
import type { ScaleToZero } from '../render/tier.ts';

export function scaleToZeroOf(options: DeploymentControllerOptions, deployment: DeepReadonly<Deployment>): ScaleToZero | undefined {
  const { name = '', namespace = '', uid = '' } = deployment.metadata;
  return scaleToZeroWith(options, deployment.spec, externalRoutes({ name, namespace, uid }, deployment.spec, options));
}

/** Puts the namespace's grant in place (or back) for an app that scales to zero. */
export async function ensureActivatorGrant(deps: DeploymentReconcilerDependencies, namespace: string): Promise<void> {
  const { informers, writer, options } = deps;
  if (!options.activator || !informers.activatorGrants) return;
  const grant = withAppliedHash(renderActivatorGrant(namespace, options.activator.proxy));
  const current = informers.activatorGrants.get(options.activator.proxy.namespace, activatorGrantName(namespace));
  if (!current || !upToDate(current, grant)) await writer.apply(grant);
}

/** Removes the namespace's grant when `owner` no longer scales to zero (or goes) and no other app holds it. */
export async function releaseActivatorGrant(deps: DeploymentReconcilerDependencies, owner: OwnerDeployment): Promise<void> {
  const { informers, writer, options } = deps;
  if (!options.activator || !informers.activatorGrants) return;
  const proxy = options.activator.proxy;
  const current = informers.activatorGrants.get(proxy.namespace, activatorGrantName(owner.namespace));
  if (!current || current.metadata?.deletionTimestamp) return;
  if (grantHolders(informers, owner.namespace).some((holder) => holder.metadata.uid !== owner.uid)) return;
  await writer.delete(childKinds.referenceGrant, proxy.namespace, activatorGrantName(owner.namespace));
}

/**
 * The Deployments of the namespace that hold its grant: those with an InterceptorRoute (or a not yet
 * pruned HTTPScaledObject) of their own that are not being deleted. One whose app stopped scaling to
 * zero holds it until its pass removes that object, and then releases the grant itself if it was the last.
 */
export function grantHolders(informers: DeploymentInformers, namespace: string): DeepReadonly<Deployment>[] {
  const routings = [informers.interceptorRoutes, informers.httpScaledObjects].flatMap((cache) => cache?.list(namespace) ?? []);
  return routings.flatMap((routing) => {
    const owner = routing.metadata?.ownerReferences?.find((reference) => reference.controller);
    const deployment = owner ? informers.deployments.get(namespace, owner.name) : undefined;
    return deployment && deployment.metadata.uid === owner?.uid && !deployment.metadata.deletionTimestamp ? [deployment] : [];
  });
}

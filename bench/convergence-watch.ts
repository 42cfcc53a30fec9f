// Watches one namespace and tells when every Deployment has converged: its status names a latest
// Revision that exists, its application Deployment exists, and status.observedGeneration equals
// metadata.generation. The same watcher judges Berth and the floor client, so both pay for it alike.
import type { KubeConfig, V1Deployment } from '@kubernetes/client-node';
import type { Deployment, Revision } from '../src/api/index.ts';
import { createInformer, type DeepReadonly, type Informer } from '../src/runtime/index.ts';
import { childNames } from '../src/api/child-names.ts';
import { appsDeploymentResource, deploymentResource, revisionResource } from './fixtures.ts';

export interface ConvergenceWatch {
  readonly deployments: Informer<Deployment>;
  readonly revisions: Informer<Revision>;
  convergedCount(): number;
  /** Resolves once `count` Deployments have converged; rejects after timeoutMs. */
  waitForConverged(count: number, timeoutMs: number): Promise<void>;
  /** Resolves with the time a Revision of `deployment` not in `known` is first seen. */
  nextRevision(deployment: string, known: ReadonlySet<string>, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

export function isConverged(
  deployment: DeepReadonly<Deployment>,
  revisionExists: (name: string) => boolean,
  applicationExists: boolean,
): boolean {
  const status = deployment.status;
  if (!status?.latestRevisionName) return false;
  return status.observedGeneration === deployment.metadata.generation && revisionExists(status.latestRevisionName) && applicationExists;
}

export async function watchConvergence(kc: KubeConfig, namespace: string): Promise<ConvergenceWatch> {
  const options = { namespaces: [namespace], labelIndexes: ['berth.dev/deployment'] };
  const deployments = createInformer<Deployment>(kc, deploymentResource, options);
  const revisions = createInformer<Revision>(kc, revisionResource, options);
  const applications = createInformer<V1Deployment>(kc, appsDeploymentResource, { namespaces: [namespace] });
  const converged = new Set<string>();
  const waiters = new Set<() => void>();

  const check = (name: string) => {
    const deployment = deployments.get(namespace, name);
    const ok =
      deployment !== undefined &&
      isConverged(
        deployment,
        (revision) => revisions.get(namespace, revision) !== undefined,
        applications.get(namespace, childNames(name).application) !== undefined,
      );
    if (ok) converged.add(name);
    else converged.delete(name);
    for (const waiter of waiters) waiter();
  };
  deployments.onAdd((d) => check(d.metadata.name ?? ''));
  deployments.onUpdate((d) => check(d.metadata.name ?? ''));
  revisions.onAdd((r) => {
    check(r.spec.deploymentName);
    for (const waiter of waiters) waiter();
  });
  applications.onAdd((a) => {
    const owner = a.metadata?.ownerReferences?.[0]?.name;
    if (owner) check(owner);
  });
  for (const informer of [deployments, revisions, applications]) informer.start();
  await Promise.all([deployments, revisions, applications].map((informer) => informer.waitForSync()));

  const waitUntil = (done: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const waiter = () => {
        if (!done()) return;
        waiters.delete(waiter);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      waiters.add(waiter);
      waiter();
    });

  return {
    deployments,
    revisions,
    convergedCount: () => converged.size,
    waitForConverged: (count, timeoutMs) =>
      waitUntil(() => converged.size >= count, timeoutMs, `${count} converged Deployments (have ${converged.size})`),
    async nextRevision(deployment, known, timeoutMs) {
      let seenAt = 0;
      await waitUntil(
        () => {
          if (seenAt) return true;
          const fresh = revisions.byIndex('berth.dev/deployment', deployment).some((r) => !known.has(r.metadata.name ?? ''));
          if (fresh) seenAt = performance.now();
          return fresh;
        },
        timeoutMs,
        `a new Revision of ${deployment}`,
      );
      return seenAt;
    },
    async stop() {
      await Promise.all([deployments, revisions, applications].map((informer) => informer.stop()));
    },
  };
}

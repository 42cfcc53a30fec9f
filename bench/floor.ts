// The floor: a plain client that makes, for each Deployment, the same API writes Berth makes to converge
// it (the same rendered manifests, from Berth's pure renderers), one Deployment after the other in each
// of `concurrency` lanes, with no cache, no queue and no decisions. Its time is what the API server
// allows; Berth's convergence time is reported against it.
import type { KubeConfig } from '@kubernetes/client-node';
import { fieldManager, type Deployment, type Revision, type TracingProject } from '../src/api/index.ts';
import { withAppliedHash } from '../src/runtime/applied-hash.ts';
import { revisionDigest } from '../src/reconcilers/deployment/revisions/digest.ts';
import { defaultDeploymentControllerOptions } from '../src/reconcilers/deployment/options.ts';
import { renderRevision } from '../src/reconcilers/deployment/render/revision.ts';
import type { DeploymentSpecInput } from '../src/reconcilers/deployment/render/spec.ts';
import { renderTracingProject } from '../src/reconcilers/deployment/render/tracing-project.ts';
import { renderWorkloads } from '../src/reconcilers/deployment/render/workloads.ts';
import { cleanupFinalizer } from '../src/reconcilers/deployment/finalize.ts';
import { nextDeploymentStatus, nextRevisionStatus } from '../src/reconcilers/deployment/status/next-status.ts';
import { nextTracingProjectStatus } from '../src/reconcilers/tracing-project/status.ts';
import { applyObject, writeStatus, kubeRequest } from '../src/runtime/index.ts';
import { benchDeployment } from './fixtures.ts';
import { inPool } from './pool.ts';

/**
 * Every write Berth makes for one new, not yet ready Deployment, in the order it makes them, under
 * Berth's own field manager: the objects are left exactly as Berth leaves them, so a Berth started over
 * them (the memory scenario) finds them its own, as after a restart (it caches the fields it owns).
 */
export async function floorConverge(kc: KubeConfig, namespace: string, name: string): Promise<number> {
  let writes = 0;
  const counted = <T>(request: Promise<T>) => {
    writes++;
    return request;
  };
  const manifest = benchDeployment(namespace, name);
  const created = await counted(
    kubeRequest<Deployment>(kc, { method: 'POST', path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments`, body: manifest }),
  );
  const owner = { name, namespace, uid: created.metadata.uid! };
  const generation = created.metadata.generation ?? 1;
  const now = new Date();
  await counted(
    kubeRequest(kc, {
      method: 'PATCH',
      path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${name}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: [cleanupFinalizer], resourceVersion: created.metadata.resourceVersion } },
    }),
  );
  const project = await counted(applyObject(kc, withAppliedHash(renderTracingProject(owner)), fieldManager));
  const spec = created.spec as DeploymentSpecInput & Deployment['spec'];
  const digest = revisionDigest(spec.sourceRevisionConfig, []);
  const revisionManifest = renderRevision({
    owner,
    generation,
    source: spec.source,
    sourceRevisionConfig: { ...spec.sourceRevisionConfig },
    digest,
  });
  const revision = await counted(
    kubeRequest<Revision>(kc, {
      method: 'POST',
      path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/revisions`,
      body: revisionManifest,
    }),
  );
  await counted(
    kubeRequest(kc, {
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/events`,
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${name}.`, namespace },
        involvedObject: { apiVersion: created.apiVersion, kind: created.kind, name, namespace, uid: owner.uid },
        reason: 'RevisionCreated',
        message: `Created Revision ${revision.metadata.name}.`,
        type: 'Normal',
        source: { component: fieldManager },
        firstTimestamp: now.toISOString(),
        lastTimestamp: now.toISOString(),
        count: 1,
      },
    }),
  );
  const image = spec.sourceRevisionConfig.imageUri ?? '';
  for (const workload of renderWorkloads({
    owner,
    spec,
    serving: { name: revision.metadata.name!, image },
    settings: defaultDeploymentControllerOptions,
  })) {
    await counted(applyObject(kc, withAppliedHash(workload), fieldManager));
  }
  await counted(
    writeStatus<Revision>(
      kc,
      unguarded(revision),
      nextRevisionStatus(undefined, { phase: 'DEPLOYING', message: `Rolling out ${image}.`, generation: 1 }, now),
      fieldManager,
    ),
  );
  await counted(
    writeStatus<Deployment>(
      kc,
      unguarded(created),
      nextDeploymentStatus(
        undefined,
        {
          phase: 'UNKNOWN',
          verdict: { state: 'progressing', reason: 'Deploying', message: 'Rolling out.' },
          generation,
          latest: { name: revision.metadata.name!, uid: revision.metadata.uid! },
        },
        now,
      ),
      fieldManager,
    ),
  );
  await counted(
    writeStatus<TracingProject>(
      kc,
      unguarded(project as TracingProject),
      nextTracingProjectStatus(undefined, (project as TracingProject).metadata.generation ?? 1, now),
      fieldManager,
    ),
  );
  return writes;
}

/** Converges every name with `concurrency` lanes; returns the writes made. */
export async function runFloor(kc: KubeConfig, namespace: string, names: readonly string[], concurrency: number): Promise<number> {
  let writes = 0;
  await inPool(names, concurrency, async (name) => {
    const made = await floorConverge(kc, namespace, name);
    writes += made;
  });
  return writes;
}

/** The object without the resourceVersion that would guard its status write: the floor writes each status
 * once, as the object stands, with no cache that could lag it (a controller's writes are guarded). */
function unguarded<T extends { metadata?: object }>(object: T): T {
  return { ...object, metadata: { ...object.metadata, resourceVersion: undefined } };
}

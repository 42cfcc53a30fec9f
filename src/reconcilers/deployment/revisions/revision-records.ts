// A Deployment's Revisions as a pass sees them: read from the cache, each with the facts the choices
// read (name, uid, digest, generation, age), and the latest and active ones its status names.
import { isBuiltSource, labels, type Deployment, type Revision } from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import type { DeploymentInformers } from '../informers.ts';
import type { ServingRevision } from '../render/application.ts';
import type { OwnerDeployment } from '../render/common.ts';
import type { RevisionSummary } from './revisions.ts';

export type CachedRevision = DeepReadonly<Revision>;

export interface RevisionRecord extends RevisionSummary {
  object: CachedRevision;
}

export interface RevisionHistory {
  revisions: RevisionRecord[];
  previousActive?: RevisionRecord | undefined;
  previousLatest?: RevisionRecord | undefined;
}

export function summarize(revision: CachedRevision): RevisionRecord {
  return {
    name: revision.metadata.name ?? '',
    uid: revision.metadata.uid ?? '',
    digest: revision.spec.digest,
    generation: Number(revision.metadata.labels?.[labels.deploymentGeneration] ?? 0) || 0,
    creationTimestamp: String(revision.metadata.creationTimestamp ?? ''),
    object: revision,
  };
}

/** What a revision's pods run: this image, and the revision's own Secret when it has one. */
export function servingOf(revision: RevisionRecord, image: string): ServingRevision {
  const { secretSnapshot, secretNames } = revision.object.spec;
  return { name: revision.name, image, ...(secretSnapshot ? { secrets: { snapshot: secretSnapshot, names: secretNames ?? [] } } : {}) };
}

/** The image a revision runs: recorded once built, or named by its config for image sources. */
export function imageOf(revision: CachedRevision): string | undefined {
  if (revision.status?.imageUri) return revision.status.imageUri;
  return isBuiltSource(revision.spec.source) ? undefined : revision.spec.sourceRevisionConfig.imageUri;
}

/** The Deployment's revisions, and the latest and active ones its status names. */
export function revisionHistory(
  informers: DeploymentInformers,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
): RevisionHistory {
  const revisions = informers.revisions
    .byIndex('owner', owner.uid)
    .filter((r) => r.metadata.namespace === owner.namespace)
    .map(summarize);
  const previousActive = revisions.find((r) => r.name === deployment.status?.activeRevisionName);
  const previousLatest = revisions.find((r) => r.name === deployment.status?.latestRevisionName);
  return { revisions, previousActive, previousLatest };
}

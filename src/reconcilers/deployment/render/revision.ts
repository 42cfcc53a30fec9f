// A Revision: the immutable snapshot of a Deployment's revision config, named and labelled by its digest.
import { apiVersion, labels } from '../../../api/group.ts';
import { deploymentLabelValue, revisionName } from '../../../api/child-names.ts';
import type { Revision, RevisionSpec, SourceRevisionConfig } from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { type OwnerDeployment, ownerReference } from './common.ts';

export interface RevisionInput {
  owner: OwnerDeployment;
  /** The Deployment's metadata.generation now: orders revisions (names come from the digest, so they cannot). */
  generation: number;
  source: RevisionSpec['source'];
  sourceRevisionConfig: DeepReadonly<SourceRevisionConfig>;
  digest: string;
  repoCommitSha?: string;
  /** The Deployment's trackedPackages when the revision is made: kept with it, not part of its digest. */
  trackedPackages?: readonly string[];
  /** The names of the Deployment's secrets when the revision is made (never their values). */
  secretNames?: readonly string[];
}

/** A ref that is already a full commit id is the commit; a branch or tag is resolved by the build. */
export function commitShaOf(repoRef: unknown): string | undefined {
  return typeof repoRef === 'string' && /^[0-9a-f]{40}$/.test(repoRef) ? repoRef : undefined;
}

export function renderRevision(input: RevisionInput): Revision {
  const { owner } = input;
  const sha = input.repoCommitSha ?? commitShaOf(input.sourceRevisionConfig.repoRef);
  return {
    apiVersion,
    kind: 'Revision',
    metadata: {
      name: revisionName(owner.name, input.digest),
      namespace: owner.namespace,
      labels: {
        [labels.deployment]: deploymentLabelValue(owner.name),
        [labels.revisionDigest]: input.digest.slice(0, 63),
        [labels.deploymentGeneration]: String(input.generation),
      },
      ownerReferences: [ownerReference(owner)],
    },
    spec: {
      deploymentName: owner.name,
      source: input.source,
      sourceRevisionConfig: {
        ...structuredClone(input.sourceRevisionConfig as SourceRevisionConfig),
        ...(sha ? { repoCommitSha: sha } : {}),
      },
      digest: input.digest,
      ...(input.trackedPackages?.length ? { trackedPackages: [...input.trackedPackages] } : {}),
      ...(input.secretNames?.length ? { secretNames: [...input.secretNames].sort() } : {}),
    },
  };
}

// A Revision: the immutable snapshot of a Deployment's revision config, named and labelled by its digest,
// and the immutable Secret that holds its secret values.
import type { V1Secret } from '@kubernetes/client-node';
import { apiVersion, labels } from '../../../api/group.ts';
import { deploymentLabelValue, revisionName, revisionSecretsName } from '../../../api/child-names.ts';
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
  /** The Secret renderRevisionSecrets made for it, which its pods read. */
  secretSnapshot?: string;
}

/** A ref that is already a full commit id is the commit; a branch or tag is resolved by the build. */
export function commitShaOf(repoRef: unknown): string | undefined {
  return typeof repoRef === 'string' && /^[0-9a-f]{40}$/.test(repoRef) ? repoRef : undefined;
}

/** A revision's digest as its labels hold it: cut to the 63 characters a label value may hold. */
export function digestLabelValue(digest: string): string {
  return digest.slice(0, 63);
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
        [labels.revisionDigest]: digestLabelValue(input.digest),
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
      ...(input.secretSnapshot ? { secretSnapshot: input.secretSnapshot } : {}),
    },
  };
}

/**
 * The values of a revision's secrets (environment variable to base64 value) as they are when it is made,
 * in an immutable Secret its pods read: a later change to the Deployment's Secrets makes a new revision
 * and never reaches this one's pods. Owned by the Deployment, made before the Revision (which names it),
 * deleted when the Revision is pruned. Without the `berth.dev/secret` label: no cache holds it.
 */
export function renderRevisionSecrets(owner: OwnerDeployment, digest: string, values: Readonly<Record<string, string>>): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: revisionSecretsName(revisionName(owner.name, digest)),
      namespace: owner.namespace,
      labels: { [labels.deployment]: deploymentLabelValue(owner.name), [labels.revisionDigest]: digestLabelValue(digest) },
      ownerReferences: [ownerReference(owner)],
    },
    type: 'Opaque',
    immutable: true,
    data: { ...values },
  };
}

// The immutable Secret a new revision's pods read its secret values from (render/revision.ts), written
// before the Revision that names it. One an earlier Deployment of the same name left behind (the garbage
// collector had not come yet) is replaced; one the API server refuses (too large, over a quota) is a
// Problem the Deployment reports, never a crash loop.
import { labels } from '../../../api/group.ts';
import { isKubeApiError, type DeepReadonly } from '../../../runtime/index.ts';
import type { V1Secret } from '@kubernetes/client-node';
import { childKinds } from '../informers.ts';
import type { Pass } from '../pass.ts';
import type { Problem } from '../problem.ts';
import type { OwnerDeployment } from '../render/common.ts';
import { digestLabelValue, renderRevisionSecrets } from '../render/revision.ts';

/** Writes the revision's Secret, or finds it written; answers its name. */
export async function writeRevisionSecrets(
  pass: Pass,
  owner: OwnerDeployment,
  digest: string,
  values: Readonly<Record<string, string>>,
): Promise<{ name: string } | Problem> {
  const manifest = renderRevisionSecrets(owner, digest, values);
  const name = manifest.metadata!.name!;
  try {
    let stored = (await pass.writer.createOrGet(manifest)).object;
    if (forDigest(stored, digest) && !ownedBy(stored, owner)) {
      await pass.writer.delete(childKinds.secret, owner.namespace, name);
      stored = (await pass.writer.createOrGet(manifest)).object;
    }
    if (forDigest(stored, digest) && ownedBy(stored, owner)) return { name };
    return { reason: 'RevisionNameConflict', message: `Secret ${name} exists and was not made for this revision.` };
  } catch (error) {
    if (!isKubeApiError(error, 422) && !isKubeApiError(error, 403)) throw error;
    return { reason: 'RevisionSecretsRefused', message: `Cannot keep the revision's secret values in Secret ${name}: ${error.message}` };
  }
}

function forDigest(secret: DeepReadonly<V1Secret>, digest: string): boolean {
  return secret.metadata?.labels?.[labels.revisionDigest] === digestLabelValue(digest);
}

function ownedBy(secret: DeepReadonly<V1Secret>, owner: OwnerDeployment): boolean {
  return secret.metadata?.ownerReferences?.some((reference) => reference.uid === owner.uid) === true;
}

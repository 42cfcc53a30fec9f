// A Revision goes with its own Secret (render/revision.ts), which no cache holds: the Secret first, so
// none is left behind once the Revision that names it is gone.
import { revisionKind } from '../../../api/index.ts';
import { childKinds } from '../informers.ts';
import type { DeploymentWriter } from '../writer.ts';
import type { CachedRevision } from './revision-records.ts';

export async function deleteRevision(writer: Pick<DeploymentWriter, 'delete'>, revision: CachedRevision): Promise<void> {
  const namespace = revision.metadata.namespace ?? '';
  const snapshot = revision.spec.secretSnapshot;
  if (snapshot) await writer.delete(childKinds.secret, namespace, snapshot);
  await writer.delete(revisionKind, namespace, revision.metadata.name ?? '');
}

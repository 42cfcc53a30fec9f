// A revision whose build would read what an earlier revision's build read (the same sources pinned by
// content, the same install and build commands, configuration file and build images) runs that
// revision's image instead of building again: a change of secrets or of the revision's other settings
// deploys in seconds, as a Heroku release does. Sources that can move (a branch rather than a commit)
// have no key: they are built each time. Pure.
import { createHash } from 'node:crypto';
import type { BuildImages, BuildSources } from '../render/build-job.ts';

/** On a build Job: the key of what it builds, recorded on its revision once it succeeds. */
export const buildKeyAnnotation = 'berth.dev/build-key';

export interface BuildInputs {
  sources: BuildSources;
  /** The repository's ref is a commit (an archive always is what it is). */
  pinned: boolean;
  installCommand?: string | null | undefined;
  buildCommand?: string | null | undefined;
  graphConfigPath?: string | null | undefined;
  images: BuildImages;
}

/** What the image would be built from, as one digest; undefined where the sources can move. */
export function buildKey(inputs: BuildInputs): string | undefined {
  const { sources } = inputs;
  if (sources.kind === 'repository' && !inputs.pinned) return undefined;
  const read = sources.kind === 'archive' ? { archive: sources.manifestUrl } : { repository: sources.repoUrl, commit: sources.repoRef };
  const canonical = JSON.stringify([
    read,
    inputs.installCommand ?? '',
    inputs.buildCommand ?? '',
    inputs.graphConfigPath ?? '',
    Object.entries(inputs.images).sort(([a], [b]) => a.localeCompare(b)),
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/** A revision as reuse reads it (revision-records.ts's summary). */
interface BuiltRevision {
  name: string;
  creationTimestamp: string;
  object: { readonly status?: { readonly buildKey?: string | undefined; readonly imageUri?: string | undefined } | undefined };
}

/** The newest other revision whose image was built from `key` (its status records both), and that image. */
export function reusableBuild(
  revisions: readonly BuiltRevision[],
  key: string,
  target: string,
): { revision: string; image: string } | undefined {
  const found = revisions
    .filter((r) => r.name !== target && r.object.status?.buildKey === key && r.object.status.imageUri)
    .sort((a, b) => b.creationTimestamp.localeCompare(a.creationTimestamp))[0];
  return found ? { revision: found.name, image: found.object.status!.imageUri! } : undefined;
}

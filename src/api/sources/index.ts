// The source kinds a Deployment may name, registered once: adding a source is one module and one line here.
import { codehost } from './codehost.ts';
import { externalDocker } from './external-docker.ts';
import { internalDocker } from './internal-docker.ts';
import { internalSource } from './internal-source.ts';
import type { AwaitedInput, SourceKind, SpecMemberPath } from './kind.ts';

export type { AwaitedInput, SourceKind, SpecMemberPath } from './kind.ts';

const kinds = [codehost, externalDocker, internalDocker, internalSource] as const;

export type SourceName = (typeof kinds)[number]['name'];

const [firstKind, ...otherKinds] = kinds;

/** The names, in registration order: the enum of `spec.source` (a tuple of at least one, as z.enum wants). */
export const sourceNames: readonly [SourceName, ...SourceName[]] = [firstKind.name, ...otherKinds.map((kind) => kind.name)];

const byName = new Map<string, SourceKind>(kinds.map((kind) => [kind.name, kind]));

/** The kind a name registers; undefined for a name no kind has (the schema refuses those first). */
export function sourceKind(name: string): SourceKind | undefined {
  return byName.get(name);
}

/** The kinds for which `has` holds. */
export function sourcesWhere(has: (kind: SourceKind) => boolean): SourceName[] {
  return kinds.filter((kind) => has(kind)).map((kind) => kind.name);
}

/** Whether revisions of this source are built by a Job (rather than take the image they are given). */
export function isBuiltSource(name: string): boolean {
  const image = sourceKind(name)?.image;
  return image === 'built-from-repository' || image === 'built-from-archive';
}

/** Why a member is refused for the kinds that do not list it, where the refusal needs a reason. */
const refusalReasons: Partial<Record<SpecMemberPath, string>> = {
  'sourceRevisionConfig.graphConfigPath': 'an image carries its own configuration',
  'sourceRevisionConfig.imageUri': 'the build makes the image',
};

/** Each member some kind lists, with the kinds that may set it, in first-listed order. */
export function sourceOnlyMembers(): { path: SpecMemberPath; sources: SourceName[]; why?: string }[] {
  const paths = [...new Set(kinds.flatMap((kind) => kind.members as readonly SpecMemberPath[]))];
  return paths.map((path) => ({
    path,
    sources: sourcesWhere((kind) => kind.members.includes(path)),
    ...(refusalReasons[path] ? { why: refusalReasons[path] } : {}),
  }));
}

/** "an internal_docker deployment", "a codehost deployment". */
export function aSourceDeployment(name: string): string {
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name} deployment`;
}

type SpecGroups = {
  readonly sourceConfig?: Readonly<Record<string, unknown>> | null;
  readonly sourceRevisionConfig?: Readonly<Record<string, unknown>> | null;
};

/** A member's value in a spec, by its path. */
export function specMember(spec: SpecGroups, path: SpecMemberPath): unknown {
  const [group, member] = path.split('.') as [keyof SpecGroups, string];
  return spec[group]?.[member];
}

/** What a Deployment of this spec still waits for before its first Revision, if anything. */
export function awaitedInputOf(spec: SpecGroups & { readonly source: string }): AwaitedInput | undefined {
  const awaits = sourceKind(spec.source)?.awaits;
  return awaits && !specMember(spec, awaits.member) ? awaits : undefined;
}

/** The refusal of a route that only some kinds offer, for a Deployment of another kind. */
export function offerRefusal(source: string, offer: keyof SourceKind['offers'], what: string): string | undefined {
  if (sourceKind(source)?.offers[offer]) return undefined;
  const offering = sourcesWhere((kind) => kind.offers[offer] === true);
  return `${what} are only available for ${offering.join(' and ')} deployments; this deployment's source is ${source}.`;
}

// What an informer keeps of each object. Every cache drops metadata.managedFields, which no reader
// uses and which is about half of an object's JSON. The caches of the objects Berth applies keep less
// still: the fields Berth's own field manager owns (what it rendered, all that its comparison reads),
// plus the few paths its readers need that other managers write (status, the replicas an autoscaler
// sets). The managedFields entries of that manager say which fields those are (fieldsV1, as
// structured-merge-diff writes it: `f:<field>`, `k:<list item keys>`, `v:<set value>`, `i:<index>`,
// `.` for the node itself). Pure.
import type { KubeObject } from './types.ts';

/** A set of field paths as a trie, the `fieldsV1` format of managedFields. */
export interface FieldSet {
  [member: string]: FieldSet;
}

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsType?: string;
  fieldsV1?: FieldSet;
}

export type CacheTransform = (object: KubeObject) => KubeObject;

/**
 * The object without metadata.managedFields (the object itself is changed: it is fresh from the wire).
 * The metadata is rebuilt rather than `delete`d from: a deleted property turns a V8 object into a hash
 * table, which made every cached metadata several times its size.
 */
export function stripManagedFields(object: KubeObject): KubeObject {
  if (object.metadata?.managedFields) {
    const { managedFields: _managedFields, ...metadata } = object.metadata;
    object.metadata = metadata;
  }
  return object;
}

/** The union of the fields `manager` owns in the object's main resource (not in its status subresource). */
export function fieldsOwnedBy(object: KubeObject, manager: string): FieldSet | undefined {
  const entries = (object.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  let owned: FieldSet | undefined;
  for (const entry of entries) {
    if (entry.manager !== manager || entry.subresource || !entry.fieldsV1) continue;
    owned = mergeFieldSets(owned ?? {}, entry.fieldsV1);
  }
  return owned;
}

export function mergeFieldSets(a: FieldSet, b: FieldSet): FieldSet {
  const merged: FieldSet = { ...a };
  for (const [member, children] of Object.entries(b))
    merged[member] = member in merged ? mergeFieldSets(merged[member]!, children) : children;
  return merged;
}

/** The parts of `value` that the field set names. A node the set names as a whole (no members below it) is kept whole. */
export function projectFields(value: unknown, fields: FieldSet): unknown {
  const members = Object.keys(fields).filter((member) => member !== '.');
  if (members.length === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    // Each member is parsed once per list, not once per item.
    const matchers = members.map((member) => ({ matches: itemMatcher(member), fields: fields[member]! }));
    const kept: unknown[] = [];
    value.forEach((item, index) => {
      const matcher = matchers.find(({ matches }) => matches(item, index));
      if (matcher) kept.push(projectFields(item, matcher.fields));
    });
    return kept;
  }
  const projected: Record<string, unknown> = {};
  for (const member of members) {
    if (!member.startsWith('f:')) continue;
    const name = member.slice(2);
    if (Object.hasOwn(value, name)) projected[name] = projectFields((value as Record<string, unknown>)[name], fields[member]!);
  }
  return projected;
}

/** Which list items a member names: `i:<index>`, `v:<value>`, `k:<key fields>`; any other names none. */
function itemMatcher(member: string): (item: unknown, index: number) => boolean {
  if (member.startsWith('i:')) {
    const position = Number(member.slice(2));
    return (_item, index) => index === position;
  }
  if (member.startsWith('v:')) {
    const expected = parseMember(member);
    return (item) => sameJson(expected, item);
  }
  if (member.startsWith('k:')) {
    const keys = parseMember(member);
    if (keys === null || typeof keys !== 'object') return () => false;
    const entries = Object.entries(keys as Record<string, unknown>);
    return (item) =>
      item !== null &&
      typeof item === 'object' &&
      entries.every(([key, expected]) => sameJson(expected, (item as Record<string, unknown>)[key]));
  }
  return () => false;
}

function parseMember(member: string): unknown {
  try {
    return JSON.parse(member.slice(2));
  } catch {
    // A member that is not JSON names no item, like any member itemMatcher does not know.
    return undefined;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

/** A dotted path (`spec.replicas`) read from `source` and written into `target` when present. */
function copyPath(source: Record<string, unknown>, target: Record<string, unknown>, path: readonly string[]): void {
  let from: unknown = source;
  for (const step of path) {
    if (from === null || typeof from !== 'object') return;
    from = (from as Record<string, unknown>)[step];
  }
  if (from === undefined) return;
  let into = target;
  for (const step of path.slice(0, -1)) {
    const next = into[step];
    into = (next !== null && typeof next === 'object' ? next : (into[step] = {})) as Record<string, unknown>;
  }
  into[path.at(-1)!] = from;
}

/**
 * The cache view of an object Berth applies: identity and metadata (without managedFields), the fields
 * `manager` owns, and the `alsoKeep` paths. An object with no managedFields at all (an API server that
 * does not track them) is kept whole, so nothing is hidden from the comparison.
 */
export function ownedFieldsView(manager: string, alsoKeep: readonly string[] = []): CacheTransform {
  const paths = alsoKeep.map((path) => path.split('.'));
  return (object) => {
    if (!object.metadata?.managedFields) return object;
    // The metadata is kept whole (below), so its owned fields are not projected only to be dropped.
    const { 'f:metadata': _ownedMetadata, ...owned } = fieldsOwnedBy(object, manager) ?? {};
    const ownedBody = (Object.keys(owned).length > 0 ? projectFields(object, owned) : {}) as Record<string, unknown>;
    const view: Record<string, unknown> = {
      ...ownedBody,
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: stripManagedFields(object).metadata,
    };
    for (const path of paths) copyPath(object as Record<string, unknown>, view, path);
    return view as KubeObject;
  };
}

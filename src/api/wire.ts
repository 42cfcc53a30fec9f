// The HTTP interface spells fields in snake_case, the CRDs in camelCase (Kubernetes API conventions).
// Both come from the same zod schema: these functions walk it, rename the keys of declared objects and
// leave everything else alone, so free-form maps (labels, annotations, volume members, env valueFrom,
// securityContext, resources) keep their keys, and the shapes the interface already spells in
// camelCase (Container, VolumeMount, Volume, EnvVar) are marked with keepKeys.
import { z } from 'zod';
import { partsOf, unwrap, withParts, type Schema as AnySchema, type SchemaParts } from './schema-parts.ts';

export { unwrap };

const keepKeysMarks = new WeakSet<AnySchema>();

/** Marks an object schema whose keys are spelled the same on the wire (the interface spells them camelCase). */
export function keepKeys<T extends AnySchema>(schema: T): T {
  keepKeysMarks.add(schema);
  return schema;
}

/**
 * The object types whose keys the wire keeps, by name: the modules that mark a schema with keepKeys
 * register its output type here (declaration merging), so that Wire<T> knows them without importing them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface KeptKeyShapes {}

/** Whether T is one of the kept shapes (each way assignable: structurally the same type). */
type IsKept<T> = true extends {
  [P in keyof KeptKeyShapes]: [T] extends [KeptKeyShapes[P]] ? ([KeptKeyShapes[P]] extends [T] ? true : false) : false;
}[keyof KeptKeyShapes]
  ? true
  : false;

/** snakeCase at the type level. */
export type SnakeKey<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeKey<Tail>}`
  : S;

/** What toWire makes of a value of type T: the keys of declared objects in snake_case, kept shapes (and
 * free-form maps' string keys) as they are, at every depth. */
export type Wire<T> = T extends readonly (infer E)[]
  ? Wire<E>[]
  : IsKept<T> extends true
    ? T
    : T extends object
      ? { [K in keyof T as K extends string ? SnakeKey<K> : K]: Wire<T[K]> }
      : T;

export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Direction = 'toWire' | 'fromWire';

/** For one object schema and one direction: incoming key -> [outgoing key, member schema]. */
type KeyMap = Map<string, [string, AnySchema]>;
const keyMaps = { toWire: new WeakMap<AnySchema, KeyMap>(), fromWire: new WeakMap<AnySchema, KeyMap>() };

function keyMap(object: AnySchema, shape: Record<string, AnySchema>, direction: Direction): KeyMap {
  let map = keyMaps[direction].get(object);
  if (!map) {
    const keep = keepKeysMarks.has(object);
    map = new Map(
      Object.entries(shape).map(([key, member]) => {
        const wire = keep ? key : snakeCase(key);
        return direction === 'toWire' ? [key, [wire, member]] : [wire, [key, member]];
      }),
    );
    keyMaps[direction].set(object, map);
  }
  return map;
}

function convert(schema: AnySchema, value: unknown, direction: Direction): unknown {
  if (value === null || value === undefined) return value;
  const inner = unwrap(schema);
  const parts = partsOf(inner);
  switch (parts.kind) {
    case 'object': {
      if (!isPlainObject(value)) return value;
      const keys = keyMap(inner, parts.shape, direction);
      const out: Record<string, unknown> = {};
      for (const [incoming, member] of Object.entries(value)) {
        const declared = keys.get(incoming);
        // Undeclared keys are not ours to rename; validation decides what to do with them.
        if (declared === undefined) out[incoming] = member;
        else out[declared[0]] = convert(declared[1], member, direction);
      }
      return out;
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => convert(parts.element, item, direction)) : value;
    case 'record': {
      if (!isPlainObject(value)) return value;
      return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, convert(parts.valueType, member, direction)]));
    }
    default:
      return value;
  }
}

/**
 * A field's path in a value of `schema`, as the API server names it (camelCase keys, numeric indexes),
 * spelled as the HTTP interface spells it: keys renamed where the schema renames them, kept where it
 * keeps them (free-form maps, keepKeys objects). Undefined when the schema does not declare the first key.
 */
export function wirePathOf(schema: AnySchema, path: readonly (string | number)[]): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  let current: AnySchema | undefined = schema;
  for (const part of path) {
    const parts: SchemaParts | undefined = current ? partsOf(unwrap(current)) : undefined;
    if (typeof part === 'number') {
      out.push(part);
      current = parts?.kind === 'array' ? parts.element : undefined;
    } else if (parts?.kind === 'object') {
      const declared = keyMap(unwrap(current!), parts.shape, 'toWire').get(part);
      if (!declared && out.length === 0) return undefined;
      out.push(declared ? declared[0] : snakeCase(part));
      current = declared?.[1];
    } else if (parts?.kind === 'record') {
      out.push(part);
      current = parts.valueType;
    } else {
      if (out.length === 0) return undefined;
      out.push(current ? part : snakeCase(part));
      current = undefined;
    }
  }
  return out;
}

/** camelCase value (as stored in a CR) -> snake_case value (as the HTTP interface speaks it). */
export function toWire(schema: AnySchema, value: unknown): unknown {
  return convert(schema, value, 'toWire');
}

/** snake_case value (as the HTTP interface speaks it) -> camelCase value (as stored in a CR). */
export function fromWire(schema: AnySchema, value: unknown): unknown {
  return convert(schema, value, 'fromWire');
}

const wireSchemas = new WeakMap<AnySchema, AnySchema>();

function copyMetadata(from: AnySchema, to: AnySchema): void {
  const meta = z.globalRegistry.get(from);
  if (!meta) return;
  // CEL rules and list markers speak of camelCase fields: they belong to the CRD, not to the wire.
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith('x-kubernetes-') && key !== 'id'));
  z.globalRegistry.add(to, kept);
}

/**
 * The snake_case twin of a schema: the same types, checks, defaults and descriptions with the keys the
 * HTTP interface uses. The facade validates requests with it and the OpenAPI document is generated from it.
 */
export function wireSchema<T extends AnySchema>(schema: T): z.ZodType<Wire<z.output<T>>> {
  return wireSchemaOf(schema) as z.ZodType<Wire<z.output<T>>>;
}

/** The wire twin of an object schema, as the object schema it is (members renamed): one to extend or omit from. */
export function wireObjectSchema(schema: z.ZodObject): z.ZodObject {
  const wire = wireSchemaOf(schema);
  if (!(wire instanceof z.ZodObject)) throw new Error('the wire twin of an object schema is an object schema');
  return wire;
}

function wireSchemaOf(schema: AnySchema): AnySchema {
  const cached = wireSchemas.get(schema);
  if (cached) return cached;
  const parts = partsOf(schema);
  let next: AnySchema;
  if (parts.kind === 'object') {
    const keep = keepKeysMarks.has(schema);
    const shape = Object.fromEntries(
      Object.entries(parts.shape).map(([key, member]) => [keep ? key : snakeCase(key), wireSchemaOf(member)]),
    );
    next = withParts(schema, { shape });
    if (keep) keepKeysMarks.add(next);
  } else if (parts.kind === 'wrapper') {
    next = withParts(schema, { innerType: wireSchemaOf(parts.inner) });
  } else if (parts.kind === 'array') {
    next = withParts(schema, { element: wireSchemaOf(parts.element) });
  } else if (parts.kind === 'record') {
    next = withParts(schema, { valueType: wireSchemaOf(parts.valueType) });
  } else if (Object.keys(z.globalRegistry.get(schema) ?? {}).some((key) => key.startsWith('x-kubernetes-'))) {
    next = withParts(schema, {});
  } else {
    next = schema;
  }
  if (next !== schema) copyMetadata(schema, next);
  wireSchemas.set(schema, next);
  return next;
}

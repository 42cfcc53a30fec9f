// The HTTP interface spells fields in snake_case, the CRDs in camelCase (Kubernetes API conventions).
// Both come from the same zod schema: these functions walk it, rename the keys of declared objects and
// leave everything else alone, so free-form maps (labels, annotations, volume members, env valueFrom,
// securityContext, resources) keep their keys, and the shapes the interface already spells in
// camelCase (Container, VolumeMount, Volume, EnvVar) are marked with keepKeys.
import { z } from 'zod';

type AnySchema = z.core.$ZodType;

const keepKeysMarks = new WeakSet<AnySchema>();

/** Marks an object schema whose keys are spelled the same on the wire (the interface spells them camelCase). */
export function keepKeys<T extends AnySchema>(schema: T): T {
  keepKeysMarks.add(schema);
  return schema;
}

export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

type Def = {
  type: string;
  innerType?: AnySchema;
  element?: AnySchema;
  valueType?: AnySchema;
  in?: AnySchema;
  out?: AnySchema;
  shape?: Record<string, AnySchema>;
  getter?: () => AnySchema;
};

function defOf(schema: AnySchema): Def {
  return schema._zod.def as unknown as Def;
}

const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The schema under optional/nullable/default/... wrappers: the one that says what the value is. */
export function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (wrappers.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else if (def.type === 'lazy' && def.getter) current = def.getter();
    else return current;
  }
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
  const def = defOf(inner);
  switch (def.type) {
    case 'object': {
      if (!isPlainObject(value) || !def.shape) return value;
      const keys = keyMap(inner, def.shape, direction);
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
      return Array.isArray(value) && def.element ? value.map((item) => convert(def.element!, item, direction)) : value;
    case 'record': {
      if (!isPlainObject(value) || !def.valueType) return value;
      return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, convert(def.valueType!, member, direction)]));
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
    const def: Def | undefined = current ? defOf(unwrap(current)) : undefined;
    if (typeof part === 'number') {
      out.push(part);
      current = def?.type === 'array' ? def.element : undefined;
    } else if (def?.type === 'object' && def.shape) {
      const declared = keyMap(unwrap(current!), def.shape, 'toWire').get(part);
      if (!declared && out.length === 0) return undefined;
      out.push(declared ? declared[0] : snakeCase(part));
      current = declared?.[1];
    } else if (def?.type === 'record') {
      out.push(part);
      current = def.valueType;
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
export function wireSchema<T extends AnySchema>(schema: T): z.ZodType<z.output<T>> {
  return wireSchemaOf(schema) as z.ZodType<z.output<T>>;
}

/** A copy of the schema with some members of its definition replaced (checks and options are kept). */
function cloneWith(schema: AnySchema, changes: Partial<Def>): AnySchema {
  const def = { ...(schema._zod.def as object), ...changes } as unknown as z.core.$ZodType['_zod']['def'];
  return z.core.clone(schema, def);
}

function wireSchemaOf(schema: AnySchema): AnySchema {
  const cached = wireSchemas.get(schema);
  if (cached) return cached;
  const def = defOf(schema);
  let next: AnySchema;
  if (def.type === 'object' && def.shape) {
    const keep = keepKeysMarks.has(schema);
    const shape = Object.fromEntries(Object.entries(def.shape).map(([key, member]) => [keep ? key : snakeCase(key), wireSchemaOf(member)]));
    next = cloneWith(schema, { shape });
    if (keep) keepKeysMarks.add(next);
  } else if (wrappers.has(def.type) && def.innerType) {
    next = cloneWith(schema, { innerType: wireSchemaOf(def.innerType) });
  } else if (def.type === 'array' && def.element) {
    next = cloneWith(schema, { element: wireSchemaOf(def.element) });
  } else if (def.type === 'record' && def.valueType) {
    next = cloneWith(schema, { valueType: wireSchemaOf(def.valueType) });
  } else if (Object.keys(z.globalRegistry.get(schema) ?? {}).some((key) => key.startsWith('x-kubernetes-'))) {
    next = cloneWith(schema, {});
  } else {
    next = schema;
  }
  if (next !== schema) copyMetadata(schema, next);
  wireSchemas.set(schema, next);
  return next;
}

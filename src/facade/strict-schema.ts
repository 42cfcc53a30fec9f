// Request bodies are strict: a member the interface does not declare is an error (422
// extra_forbidden), at any depth, rather than something silently dropped. The API's schemas strip
// unknown keys (the API server prunes them the same way); these helpers derive strict twins.
import { z } from 'zod';

type AnySchema = z.core.$ZodType;
type Def = {
  type: string;
  innerType?: AnySchema;
  element?: AnySchema;
  shape?: Record<string, AnySchema>;
};

const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly']);
const strictTwins = new WeakMap<AnySchema, AnySchema>();

function defOf(schema: AnySchema): Def {
  return schema._zod.def as unknown as Def;
}

function cloneWith(schema: AnySchema, changes: Record<string, unknown>): AnySchema {
  return z.core.clone(schema, { ...(schema._zod.def as object), ...changes } as unknown as AnySchema['_zod']['def'], { parent: true });
}

/** The same schema with every declared object closed to undeclared keys; free-form maps stay open. */
export function strictDeep<T extends AnySchema>(schema: T): T {
  const cached = strictTwins.get(schema);
  if (cached) return cached as T;
  const def = defOf(schema);
  let next: AnySchema = schema;
  if (def.type === 'object' && def.shape) {
    const shape = Object.fromEntries(Object.entries(def.shape).map(([key, member]) => [key, strictDeep(member)]));
    next = cloneWith(schema, { shape, catchall: z.never() });
  } else if (wrappers.has(def.type) && def.innerType) {
    next = cloneWith(schema, { innerType: strictDeep(def.innerType) });
  } else if (def.type === 'array' && def.element) {
    next = cloneWith(schema, { element: strictDeep(def.element) });
  }
  strictTwins.set(schema, next);
  return next as T;
}

/** The object under optional/default wrappers. */
function objectShape(schema: AnySchema): Record<string, AnySchema> {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.type === 'object' && def.shape) return def.shape;
    if (wrappers.has(def.type) && def.innerType) current = def.innerType;
    else throw new Error(`not an object schema: ${def.type}`);
  }
}

/**
 * A PATCH form of an object: every member may be absent or null (both mean "leave as it is"), and
 * defaults are dropped so an absent member never overwrites a stored value. `deeper` names members
 * that are objects and get the same treatment.
 */
export function patchForm(schema: AnySchema, deeper: string[] = []): z.ZodObject {
  const shape = objectShape(schema);
  const members = Object.fromEntries(
    Object.entries(shape).map(([key, member]) => {
      const value = deeper.includes(key) ? patchForm(member) : withoutDefault(member);
      const description = describedAs(member);
      const nullable = z.optional(z.nullable(value as z.ZodType));
      return [key, description ? nullable.describe(description) : nullable];
    }),
  );
  return z.strictObject(members);
}

function withoutDefault(schema: AnySchema): AnySchema {
  const def = defOf(schema);
  if ((def.type === 'default' || def.type === 'prefault' || def.type === 'optional') && def.innerType) return withoutDefault(def.innerType);
  return schema;
}

function describedAs(schema: AnySchema): string | undefined {
  let current: AnySchema | undefined = schema;
  while (current) {
    const description = z.globalRegistry.get(current)?.description;
    if (description) return description;
    current = defOf(current).innerType;
  }
  return undefined;
}

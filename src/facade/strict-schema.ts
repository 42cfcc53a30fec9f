// Request bodies are strict: a member the interface does not declare is an error (422
// extra_forbidden), at any depth, rather than something silently dropped. The API's schemas strip
// unknown keys (the API server prunes them the same way); these helpers derive strict twins.
import { z } from 'zod';
import { partsOf, withParts, type Schema as AnySchema } from '../api/schema-parts.ts';

const strictTwins = new WeakMap<AnySchema, AnySchema>();

/** The same schema with every declared object closed to undeclared keys; free-form maps stay open. */
export function strictDeep<T extends AnySchema>(schema: T): T {
  const cached = strictTwins.get(schema);
  if (cached) return cached as T;
  const parts = partsOf(schema);
  let next: AnySchema = schema;
  if (parts.kind === 'object') {
    const shape = Object.fromEntries(Object.entries(parts.shape).map(([key, member]) => [key, strictDeep(member)]));
    next = withParts(schema, { shape, catchall: z.never() }, true);
  } else if (parts.kind === 'wrapper') {
    next = withParts(schema, { innerType: strictDeep(parts.inner) }, true);
  } else if (parts.kind === 'array') {
    next = withParts(schema, { element: strictDeep(parts.element) }, true);
  }
  strictTwins.set(schema, next);
  return next as T;
}

/** The object under optional/default wrappers. */
function objectShape(schema: AnySchema): Record<string, AnySchema> {
  let current = schema;
  for (;;) {
    const parts = partsOf(current);
    if (parts.kind === 'object') return parts.shape;
    if (parts.kind === 'wrapper') current = parts.inner;
    else throw new Error(`not an object schema: ${current.type}`);
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
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional)
    return withoutDefault(schema.unwrap() as AnySchema);
  return schema;
}

function describedAs(schema: AnySchema): string | undefined {
  let current: AnySchema | undefined = schema;
  while (current) {
    const description = z.globalRegistry.get(current)?.description;
    if (description) return description;
    const parts = partsOf(current);
    current = parts.kind === 'wrapper' ? parts.inner : undefined;
  }
  return undefined;
}

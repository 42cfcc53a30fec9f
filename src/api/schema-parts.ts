// What a zod schema is made of, read through zod's public classes (instanceof, and the members each
// class declares: shape, element, valueType, unwrap(), in, def, clone()), for the walks that derive the
// API's wire and strict twins from its schemas.
import { z } from 'zod';

export type Schema = z.ZodType;

type Wrapper = z.ZodOptional | z.ZodNullable | z.ZodDefault | z.ZodPrefault | z.ZodNonOptional | z.ZodReadonly | z.ZodCatch;

const wrapperClasses = [z.ZodOptional, z.ZodNullable, z.ZodDefault, z.ZodPrefault, z.ZodNonOptional, z.ZodReadonly, z.ZodCatch];

function isWrapper(schema: Schema): schema is Wrapper {
  return wrapperClasses.some((wrapper) => schema instanceof wrapper);
}

/** The parts a walk descends into; `other` for a leaf (a string, an enum, a free-form value). */
export type SchemaParts =
  | { kind: 'object'; shape: Record<string, Schema> }
  | { kind: 'array'; element: Schema }
  | { kind: 'record'; valueType: Schema }
  | { kind: 'wrapper'; inner: Schema }
  | { kind: 'other' };

export function partsOf(schema: Schema): SchemaParts {
  if (schema instanceof z.ZodObject) return { kind: 'object', shape: schema.shape as Record<string, Schema> };
  if (schema instanceof z.ZodArray) return { kind: 'array', element: schema.element as Schema };
  if (schema instanceof z.ZodRecord) return { kind: 'record', valueType: schema.valueType as Schema };
  if (isWrapper(schema)) return { kind: 'wrapper', inner: schema.unwrap() as Schema };
  return { kind: 'other' };
}

/** The schema that says what a value is: under wrappers, a pipe's input, a lazy schema's target. */
export function unwrap(schema: Schema): Schema {
  let current = schema;
  for (;;) {
    if (isWrapper(current)) current = current.unwrap() as Schema;
    else if (current instanceof z.ZodPipe) current = current.in as Schema;
    else if (current instanceof z.ZodLazy) current = current.unwrap() as Schema;
    else return current;
  }
}

/**
 * A copy of the schema whose parts are replaced (an object's `shape` and `catchall`, a wrapper's
 * `innerType`, an array's `element`, a record's `valueType`); its checks and options are kept. With
 * `inherit`, the copy reads its metadata (a description) from the original.
 */
export function withParts<T extends Schema>(schema: T, changes: Record<string, unknown>, inherit = false): T {
  return schema.clone({ ...schema.def, ...changes } as T['def'], inherit ? { parent: true } : undefined) as T;
}

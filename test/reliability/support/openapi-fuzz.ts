// Requests generated from an OpenAPI 3.1 document with fast-check, and a validator for the JSON Schema
// subset the document uses, so every answer can be held against what the document promises.
// Generation mixes values that follow the schema (to reach the handlers) with values that break it in
// one place or entirely (to reach the validation paths).
import fc from 'fast-check';

export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, JsonSchema> };
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  bodySchema?: JsonSchema;
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
  /** Declared `security: []`: served without an API key (the registry's token endpoint). */
  public: boolean;
}

export interface FuzzRequest {
  /** "METHOD /path/template": the key of the operation in operationsByLabel(). */
  operation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const methods = new Set(['get', 'post', 'put', 'patch', 'delete']);

export function resolve(document: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema {
  let current = schema ?? {};
  while (typeof current.$ref === 'string') {
    const [, , section, name] = current.$ref.split('/');
    current = (document.components as Record<string, Record<string, JsonSchema>>)[section!]![name!]!;
  }
  return current;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = ((item.parameters as JsonSchema[] | undefined) ?? []).map((p) => resolve(document, p) as unknown as Parameter);
    for (const [method, raw] of Object.entries(item)) {
      if (!methods.has(method)) continue;
      const op = raw as {
        parameters?: JsonSchema[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
        responses: Operation['responses'];
        security?: unknown[];
      };
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: [...shared, ...(op.parameters ?? []).map((p) => resolve(document, p) as unknown as Parameter)],
        ...(op.requestBody?.content?.['application/json']?.schema ? { bodySchema: op.requestBody.content['application/json'].schema } : {}),
        responses: op.responses,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return operations;
}

const sampleStrings = [
  '',
  ' ',
  'a',
  'ÿ',
  '\u0000',
  '../../etc/passwd',
  '%00',
  "'; drop table x; --",
  '{"$ne":null}',
  '<script>',
  'x'.repeat(300),
  '🙂',
  'null',
  '-1',
  '1e309',
];

/** Values that follow `schema` (with depth bounded), drawing strings from patterns the document uses. */
export function conforming(document: OpenApiDocument, schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(document, schema);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.anyOf ?? s.oneOf))
    return fc.oneof(...((s.anyOf ?? s.oneOf) as JsonSchema[]).map((option) => conforming(document, option, depth)));
  if (Array.isArray(s.type)) return fc.oneof(...(s.type as string[]).map((type) => conforming(document, { ...s, type }, depth)));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(Number(s.minimum ?? -1e6), -1e9), max: Math.min(Number(s.maximum ?? 1e6), 1e9) });
    case 'number':
      return fc.double({
        min: Math.max(Number(s.minimum ?? -1e6), -1e9),
        max: Math.min(Number(s.maximum ?? 1e6), 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return stringFor(s);
    case 'array':
      return depth > 3
        ? fc.constant([])
        : fc.array(conforming(document, s.items as JsonSchema, depth + 1), { maxLength: Math.min(Number(s.maxItems ?? 3), 3) });
    case 'object':
    case undefined: {
      const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
      if (depth > 3 || Object.keys(properties).length === 0)
        return fc.dictionary(fc.constantFrom('a', 'b', 'app', 'tier'), fc.constantFrom('x', 'y', '1'), { maxKeys: 2 });
      const required = (s.required ?? []) as string[];
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, member] of Object.entries(properties)) record[key] = conforming(document, member, depth + 1);
      return fc.record(record, { requiredKeys: required.filter((key) => key in record) });
    }
    default:
      return fc.jsonValue();
  }
}

function stringFor(s: JsonSchema): fc.Arbitrary<string> {
  const max = Math.min(Number(s.maxLength ?? 40), 40);
  const min = Number(s.minLength ?? 0);
  const plain = fc.string({ minLength: min, maxLength: Math.max(min, max) });
  if (s.format === 'uuid') return fc.uuid();
  const pattern = String(s.pattern ?? '');
  if (pattern.includes('https?'))
    return fc.webUrl({ validSchemes: ['https', 'http'] }).filter((u) => u.length <= Number(s.maxLength ?? 2048));
  if (pattern.startsWith('^[-._a-zA-Z0-9]')) return fc.stringMatching(/^[-._a-zA-Z0-9]{1,30}$/);
  if (pattern.includes('[a-z0-9]([-a-z0-9]*[a-z0-9])?')) return fc.stringMatching(/^[a-z]([-a-z0-9]{0,20}[a-z0-9])?$/);
  if (pattern)
    return fc.oneof(
      fc.stringMatching(new RegExp(pattern)).filter((v) => v.length >= min && v.length <= Number(s.maxLength ?? 1e6)),
      plain,
    );
  return plain;
}

/** A value that follows the schema except in one place, or anything at all. */
export function breaking(document: OpenApiDocument, schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const s = resolve(document, schema);
  const members = Object.keys((s.properties ?? {}) as object);
  const oneMemberBroken =
    members.length === 0
      ? fc.jsonValue()
      : fc
          .tuple(
            conforming(document, s),
            fc.constantFrom(...members, '__unknown_member'),
            fc.oneof(fc.jsonValue(), fc.constantFrom(...sampleStrings), fc.constant(undefined)),
          )
          .map(([value, key, bad]) => {
            const copy = { ...(value as Record<string, unknown>) };
            if (bad === undefined) delete copy[key];
            else copy[key] = bad;
            return copy;
          });
  return fc.oneof(oneMemberBroken, fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...sampleStrings));
}

export interface KnownIds {
  [parameter: string]: string[];
}

export function operationLabel(operation: Operation): string {
  return `${operation.method} ${operation.path}`;
}

/** One request for one operation of the document, valid, subtly broken or garbage. */
export function requestArbitrary(
  document: OpenApiDocument,
  operations: Operation[],
  baseUrl: string,
  keys: { valid: string[]; other: string[]; tenants: string[] },
  known: KnownIds,
): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((operation) => {
    const pathParams = operation.parameters.filter((p) => p.in === 'path');
    const queryParams = operation.parameters.filter((p) => p.in === 'query');
    const idFor = (name: string) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...(known[name]?.length ? known[name]! : ['00000000-0000-0000-0000-000000000000'])) },
        fc.uuid(),
        fc.constantFrom(...sampleStrings.filter(Boolean)),
      );
    const body = operation.bodySchema
      ? fc.oneof(
          { weight: 3, arbitrary: conforming(document, operation.bodySchema).map((v) => JSON.stringify(v)) },
          { weight: 3, arbitrary: breaking(document, operation.bodySchema).map((v) => JSON.stringify(v) ?? '') },
          fc.constantFrom('', '{', '{"a":', 'null', '[]', '{"name": "x", "name": "y"}', '\u0000', '{"__proto__": {"polluted": true}}'),
        )
      : operation.method === 'GET'
        ? fc.constant(undefined)
        : fc.option(fc.constantFrom('{}', 'x'), { nil: undefined });
    return fc
      .record({
        pathValues: fc.tuple(...pathParams.map((p) => idFor(p.name))),
        query: fc.tuple(
          ...queryParams.map((p) =>
            fc.option(fc.oneof(conforming(document, p.schema).map(String), fc.constantFrom('-1', 'abc', '1.5', '1e3', '', '101')), {
              nil: undefined,
            }),
          ),
        ),
        key: fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom(...keys.valid) },
          fc.constantFrom(...keys.other, '', 'x'.repeat(500)),
          fc.constant(undefined),
        ),
        tenant: fc.oneof(
          { weight: 6, arbitrary: fc.constant(undefined) },
          { weight: 2, arbitrary: fc.constantFrom(...keys.tenants) },
          fc.uuid(),
          fc.constantFrom('not-a-uuid', ''),
        ),
        contentType: fc.oneof(
          { weight: 8, arbitrary: fc.constant('application/json') },
          fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
        ),
        body,
      })
      .map(({ pathValues, query, key, tenant, contentType, body: payload }) => {
        let path = operation.path;
        pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, encodeURIComponent(pathValues[i] as string))));
        const search = new URLSearchParams();
        queryParams.forEach((p, i) => query[i] !== undefined && search.set(p.name, query[i] as string));
        const headers: Record<string, string> = {};
        if (key !== undefined) headers['x-api-key'] = key;
        if (tenant !== undefined) headers['x-tenant-id'] = tenant;
        if (payload !== undefined) headers['content-type'] = contentType;
        const qs = search.toString();
        return {
          operation: operationLabel(operation),
          method: operation.method,
          url: `${baseUrl}${path}${qs ? `?${qs}` : ''}`,
          headers,
          ...(payload !== undefined ? { body: payload } : {}),
        };
      });
  });
}

/** Where `value` departs from `schema` (JSON Schema subset of the document), or [] when it conforms. */
export function schemaErrors(document: OpenApiDocument, schema: JsonSchema | undefined, value: unknown, at = '$'): string[] {
  const s = resolve(document, schema);
  if (Array.isArray(s.anyOf ?? s.oneOf)) {
    const options = (s.anyOf ?? s.oneOf) as JsonSchema[];
    return options.some((option) => schemaErrors(document, option, value, at).length === 0)
      ? []
      : [`${at}: matches none of ${options.length} alternatives`];
  }
  if (Array.isArray(s.type)) {
    return (s.type as string[]).some((type) => schemaErrors(document, { ...s, type }, value, at).length === 0)
      ? []
      : [`${at}: not ${(s.type as string[]).join('|')}`];
  }
  if (Array.isArray(s.enum) && !(s.enum as unknown[]).includes(value)) return [`${at}: ${JSON.stringify(value)} not in enum`];
  const type = s.type as string | undefined;
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  switch (type) {
    case 'null':
      return value === null ? [] : [`${at}: not null`];
    case 'boolean':
      return kind === 'boolean' ? [] : [`${at}: not boolean`];
    case 'integer':
    case 'number': {
      if (kind !== 'number' || (type === 'integer' && !Number.isInteger(value))) return [`${at}: not ${type}`];
      const n = value as number;
      if (s.minimum !== undefined && n < Number(s.minimum)) return [`${at}: below minimum`];
      if (s.maximum !== undefined && n > Number(s.maximum)) return [`${at}: above maximum`];
      return [];
    }
    case 'string': {
      if (kind !== 'string') return [`${at}: not string`];
      const text = value as string;
      if (s.maxLength !== undefined && text.length > Number(s.maxLength)) return [`${at}: longer than maxLength`];
      if (s.minLength !== undefined && text.length < Number(s.minLength)) return [`${at}: shorter than minLength`];
      if (s.pattern !== undefined && !new RegExp(String(s.pattern)).test(text)) return [`${at}: does not match ${s.pattern}`];
      return [];
    }
    case 'array': {
      if (kind !== 'array') return [`${at}: not array`];
      return (value as unknown[]).flatMap((item, i) => schemaErrors(document, s.items as JsonSchema, item, `${at}[${i}]`));
    }
    case 'object': {
      if (kind !== 'object') return [`${at}: not object`];
      const object = value as Record<string, unknown>;
      const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
      const errors: string[] = [];
      for (const key of (s.required ?? []) as string[]) if (!(key in object)) errors.push(`${at}.${key}: required`);
      for (const [key, member] of Object.entries(object)) {
        if (key in properties) errors.push(...schemaErrors(document, properties[key], member, `${at}.${key}`));
        else if (s.additionalProperties === false) errors.push(`${at}.${key}: not allowed`);
        else if (typeof s.additionalProperties === 'object')
          errors.push(...schemaErrors(document, s.additionalProperties as JsonSchema, member, `${at}.${key}`));
      }
      return errors;
    }
    default:
      return [];
  }
}

// Turns a zod schema into a Kubernetes structural OpenAPI v3 schema (what a CRD version accepts):
// zod's own OpenAPI 3.0 output, then the few changes the API server insists on. Anything a structural
// schema cannot say ($ref, anyOf, oneOf...) is an error here, at generation time, not at install time.
import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

// Formats the API server validates; any other format would be dropped by it with a warning.
const kubernetesFormats = new Set(['date-time', 'date', 'uuid', 'int32', 'int64', 'byte', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr']);
const notStructural = ['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'const', 'if', 'then', 'else', 'prefixItems'];

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toStructural(node: JsonSchema, path: string): JsonSchema {
  const found = notStructural.find((key) => key in node);
  if (found) throw new Error(`${path}: ${found} has no place in a structural schema`);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'id') continue;
    if (key === 'format' && !kubernetesFormats.has(String(value))) continue;
    // zod bounds every integer by the safe-integer range; the API server's int64 already does.
    if ((key === 'maximum' && value === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)) continue;
    if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, member]) => [name, toStructural(member as JsonSchema, `${path}.${name}`)]),
      );
    } else if (key === 'items' && isRecord(value)) {
      out.items = toStructural(value, `${path}[]`);
    } else if (key === 'additionalProperties') {
      if (isRecord(value) && Object.keys(value).length > 0) out.additionalProperties = toStructural(value, `${path}.*`);
      // A map of anything is a free-form object: the API server keeps whatever it holds.
      else if (isRecord(value)) out['x-kubernetes-preserve-unknown-fields'] = true;
      // additionalProperties: false is zod's "strict object"; the API server prunes unknown fields anyway.
    } else {
      out[key] = value;
    }
  }
  if (out.type === 'object' && !out.properties && !out.additionalProperties) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (out.type === undefined) throw new Error(`${path}: every node of a structural schema needs a type`);
  return inReadingOrder(out);
}

// What a reader of the YAML looks for first; the rest keeps zod's order.
const leadingKeys = ['type', 'description', 'format', 'enum', 'default'];

function inReadingOrder(node: JsonSchema): JsonSchema {
  const first = leadingKeys.filter((key) => key in node);
  const rest = Object.keys(node).filter((key) => !leadingKeys.includes(key));
  return Object.fromEntries([...first, ...rest].map((key) => [key, node[key]]));
}

/** The structural OpenAPI v3 schema of a zod schema, with its descriptions, defaults, enums and CEL rules. */
export function structuralSchema(schema: z.core.$ZodType): JsonSchema {
  const openapi = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  return toStructural(openapi, 'root');
}

// zod -> Kubernetes structural schema: what the API server insists on, checked on small schemas.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { structuralSchema } from './structural-schema.ts';

describe('structuralSchema', () => {
  it('keeps types, descriptions, enums, defaults, bounds and CEL rules', () => {
    const schema = z
      .object({
        mode: z.enum(['a', 'b']).default('a').describe('Mode.'),
        count: z.number().int().min(0).optional().describe('Count.'),
        ratio: z.number().max(1).describe('Ratio.'),
        name: z
          .string()
          .min(1)
          .max(10)
          .regex(/^[a-z]+$/)
          .describe('Name.'),
        at: z.string().describe('When.').meta({ format: 'date-time' }),
      })
      .describe('Thing.')
      .meta({ 'x-kubernetes-validations': [{ rule: 'self.ratio >= 0.0', message: 'ratio must not be negative' }] });
    expect(structuralSchema(schema)).toEqual({
      type: 'object',
      description: 'Thing.',
      properties: {
        mode: { type: 'string', description: 'Mode.', enum: ['a', 'b'], default: 'a' },
        count: { type: 'integer', description: 'Count.', minimum: 0 },
        ratio: { type: 'number', description: 'Ratio.', maximum: 1 },
        name: { type: 'string', description: 'Name.', minLength: 1, maxLength: 10, pattern: '^[a-z]+$' },
        at: { type: 'string', description: 'When.', format: 'date-time' },
      },
      required: ['ratio', 'name', 'at'],
      'x-kubernetes-validations': [{ rule: 'self.ratio >= 0.0', message: 'ratio must not be negative' }],
    });
  });

  it('turns free-form maps into objects that keep unknown fields, and typed maps into additionalProperties', () => {
    const schema = z.object({
      free: z.record(z.string(), z.unknown()).describe('Anything.'),
      labels: z.record(z.string(), z.string()).describe('Labels.'),
      strict: z.strictObject({ a: z.string().describe('A.') }).describe('Strict.'),
    });
    const out = structuralSchema(schema) as { properties: Record<string, unknown> };
    expect(out.properties.free).toEqual({ type: 'object', description: 'Anything.', 'x-kubernetes-preserve-unknown-fields': true });
    expect(out.properties.labels).toEqual({ type: 'object', description: 'Labels.', additionalProperties: { type: 'string' } });
    // A strict object's additionalProperties: false is not structural; the API server prunes anyway.
    expect(out.properties.strict).not.toHaveProperty('additionalProperties');
  });

  it('says nullable where a value may be null', () => {
    const out = structuralSchema(z.object({ v: z.string().nullable().describe('V.') })) as { properties: Record<string, unknown> };
    expect(out.properties.v).toEqual({ type: 'string', description: 'V.', nullable: true });
  });

  it('refuses what a structural schema cannot say', () => {
    expect(() => structuralSchema(z.object({ v: z.union([z.string(), z.number()]) }))).toThrow(/root\.v: anyOf/);
    expect(() => structuralSchema(z.object({ v: z.any() }))).toThrow(/root\.v: every node of a structural schema needs a type/);
  });
});

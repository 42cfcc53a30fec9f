// The strict JSON parser: pure.
import { describe, expect, it } from 'vitest';
import type { HttpError } from './errors.ts';
import { parseStrictJson } from './server.ts';

function refusal(text: string): HttpError {
  try {
    parseStrictJson(text);
  } catch (error) {
    return error as HttpError;
  }
  throw new Error(`accepted ${text}`);
}

describe('parseStrictJson', () => {
  it('parses JSON', () => {
    expect(parseStrictJson('{"a": [1, {"b": null}]}')).toEqual({ a: [1, { b: null }] });
  });

  it('answers a syntax error with 422 json_invalid and where it is', () => {
    const error = refusal('{"a": ');
    expect(error.statusCode).toBe(422);
    expect(error.detail).toEqual([expect.objectContaining({ loc: ['body', 6], type: 'json_invalid' })]);
    expect(refusal('{a: 1}').detail).toEqual([expect.objectContaining({ loc: ['body', 1], type: 'json_invalid' })]);
  });

  it('refuses prototype poisoning at any depth', () => {
    expect(refusal('{"a": {"__proto__": {"x": 1}}}').detail).toEqual([expect.objectContaining({ loc: ['body', 'a', '__proto__'] })]);
    expect(refusal('[{"constructor": {"prototype": {}}}]').statusCode).toBe(422);
    expect(parseStrictJson('{"constructor": "a plain member"}')).toEqual({ constructor: 'a plain member' });
  });
});

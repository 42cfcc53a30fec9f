import { describe, expect, it } from 'vitest';
import { includes } from './tls.ts';

describe('includes', () => {
  it('holds when every wanted field has the same value, whatever else the API server added', () => {
    expect(includes({ a: 1, b: { c: [{ d: 'x', e: 2 }] }, extra: true }, { a: 1, b: { c: [{ d: 'x' }] } })).toBe(true);
  });
  it('fails on a changed value, a missing field, or a list of another length', () => {
    expect(includes({ a: 2 }, { a: 1 })).toBe(false);
    expect(includes({}, { a: { b: 1 } })).toBe(false);
    expect(includes({ a: [1, 2] }, { a: [1] })).toBe(false);
    expect(includes(undefined, { a: 1 })).toBe(false);
  });
});

import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from './apply.ts';

const asSent = (value: unknown) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

describe('sameJson', () => {
  it.each([
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
    [[1, undefined], [1, null], true],
    [{ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] }, false],
    [{ a: 1 }, { a: 1, b: 0 }, false],
    [{ a: {} }, { a: [] }, false],
    [undefined, {}, false],
  ])('%j and %j: %s', (a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
  });

  it('answers as comparing the JSON that would be sent does', () => {
    const value = fc.letrec((tie) => ({
      any: fc.oneof({ depthSize: 'small' }, fc.constantFrom(undefined, null, 0, 1, 'a', true), tie('array'), tie('object')),
      array: fc.array(tie('any'), { maxLength: 3 }),
      object: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('any'), { maxKeys: 3 }),
    }));
    fc.assert(
      fc.property(value.object, value.object, (a, b) => sameJson(a, b) === isDeepStrictEqual(asSent(a), asSent(b))),
      { numRuns: 5000 },
    );
  });
});

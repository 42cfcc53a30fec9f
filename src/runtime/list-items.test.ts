import { describe, expect, it } from 'vitest';
import { ListItemReader } from './list-items.ts';

/** Reads `text` cut into chunks at `cuts` (byte offsets); answers the items in order and the rest. */
function read(text: string, cuts: number[] = []): { items: unknown[]; rest: Record<string, unknown> } {
  const bytes = Buffer.from(text, 'utf8');
  const items: unknown[] = [];
  const reader = new ListItemReader((item) => items.push(item));
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    reader.push(bytes.subarray(from, cut));
    from = cut;
  }
  return { items, rest: reader.end() };
}

const tricky = {
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ' },
  items: [
    {
      metadata: { name: 'a', annotations: { items: '[{"items":[]}]', quote: 'a \\" } ] { [ \\\\', unicode: 'zürich 東京 🚢' } },
      data: { items: '' },
    },
    { metadata: { name: 'b' }, data: {}, list: [[1, 2], [], [{ items: [3] }]] },
    {},
  ],
};

describe('ListItemReader', () => {
  it('hands over each item parsed on its own and answers the rest with no items', () => {
    const { items, rest } = read(JSON.stringify(tricky));
    expect(items).toEqual(tricky.items);
    expect(rest).toEqual({ ...tricky, items: [] });
  });

  it('reads the same whatever the chunks, even cut inside a multi-byte character or an escape', () => {
    const text = JSON.stringify(tricky);
    const length = Buffer.byteLength(text);
    for (let cut = 1; cut < length; cut++) expect(read(text, [cut])).toEqual({ items: tricky.items, rest: { ...tricky, items: [] } });
    const everyByte = Array.from({ length: length - 1 }, (_, i) => i + 1);
    expect(read(text, everyByte).items).toEqual(tricky.items);
  });

  it('reads indented JSON, members after the items, and a list with no items at all', () => {
    const after = { items: [{ a: 1 }], metadata: { continue: '' } };
    expect(read(JSON.stringify(after, null, 2))).toEqual({ items: [{ a: 1 }], rest: { items: [], metadata: { continue: '' } } });
    expect(read('{"kind":"List","items":[]}')).toEqual({ items: [], rest: { kind: 'List', items: [] } });
    expect(read('{"kind":"List","metadata":{}}')).toEqual({ items: [], rest: { kind: 'List', metadata: {} } });
  });

  it('takes only the top-level items key, not a value or a nested key of that name', () => {
    const text = JSON.stringify({ kind: 'items', metadata: { items: [{ nested: true }] }, items: [{ top: true }] });
    const { items, rest } = read(text);
    expect(items).toEqual([{ top: true }]);
    expect(rest).toEqual({ kind: 'items', metadata: { items: [{ nested: true }] }, items: [] });
  });

  it('refuses items that are not objects, a body that is not JSON, and one that ends early', () => {
    expect(() => read('{"items":["a"]}')).toThrow(/not an object/);
    expect(() => read('{"items":[1]}')).toThrow(/not an object/);
    expect(() => read('{"items":[{"a":1}]}}')).toThrow(/not JSON/);
    expect(() => read('{"items":[{"a":1},{"b"')).toThrow(/ended/);
    expect(() => read('{"items":[{"a":tru}]}')).toThrow(SyntaxError);
  });
});

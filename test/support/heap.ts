// What this process's heap holds, read from a real heap snapshot: for tests of what a cache keeps.
import { getHeapSnapshot } from 'node:v8';

/**
 * How many flat strings in this process's heap hold exactly `value` (strings cannot be compared by
 * identity). A string `a + b` makes is counted once something flattens it: a comparison, a lookup.
 */
export async function copiesInHeap(value: string): Promise<number> {
  let text = '';
  for await (const chunk of getHeapSnapshot()) text += chunk;
  const snapshot = JSON.parse(text) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta;
  const [typeAt, nameAt] = [fields.indexOf('type'), fields.indexOf('name')];
  let copies = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    if (types[snapshot.nodes[i + typeAt]!] === 'string' && snapshot.strings[snapshot.nodes[i + nameAt]!] === value) copies++;
  }
  return copies;
}

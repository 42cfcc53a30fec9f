// The node suite's file needs (test/node/file-needs.ts) stay true to its files: a file renamed or added
// is listed, or deliberately waits for every part. No node: the table is plain data.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileNeeds, needsOf, runOrder } from '../test/node/file-needs.ts';

const nodeFiles = readdirSync(join(import.meta.dirname, '../test/node')).filter((file) => file.endsWith('.test.ts'));
/** Files that need every part, deliberately left out of the table. */
const needEverything = ['agent-server.test.ts', 'deploy-tool.test.ts'];

describe("the node suite's file needs", () => {
  it('list every file of the suite but those that need every part, and no file that is gone', () => {
    const listed = fileNeeds.map(([file]) => file);
    expect([...listed, ...needEverything].toSorted()).toEqual(nodeFiles.toSorted());
    for (const file of needEverything) expect(needsOf(`/repo/test/node/${file}`)).toBeUndefined();
  });

  it('order the files not listed first, then the listed as listed', () => {
    const order = (file: string) => runOrder(`/repo/test/node/${file}`);
    expect(order('serving.test.ts')).toBeLessThan(order('scale-to-zero.test.ts'));
    expect(order('agent-server.test.ts')).toBeLessThan(Math.min(...fileNeeds.map(([file]) => order(file))));
  });
});

// The closing table of CI: stage times from .ci/run's marks, node files and slowest tests from vitest's
// JSON reports.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../workbench/cache-dir.ts';
import { ciReport, stagesOf } from './ci-report.ts';

const dir = mkdtempSync(join(tmpdir(), 'berth-ci-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CI report', () => {
  it('times each stage until the next one starts', () => {
    expect(stagesOf('0\tnpm install (brings Node)\n60\tnode suite: pods on a node\n1500\tdone\n')).toEqual([
      { name: 'npm install', seconds: 60 },
      { name: 'node suite', seconds: 1440 },
    ]);
  });

  it('lists the stages, the node files by time and the ten slowest tests', () => {
    writeFileSync(join(dir, 'stages.tsv'), '0\tnpm test\n600\tnode suite: pods\n2400\tdone\n');
    const file = (name: string, seconds: number, tests: [string, number][]) => ({
      name: join(repoRoot, name),
      startTime: 1000,
      endTime: 1000 + seconds * 1000,
      status: 'passed',
      assertionResults: tests.map(([fullName, duration]) => ({ fullName, duration, status: 'passed' })),
    });
    writeFileSync(
      join(dir, 'node.json'),
      JSON.stringify({
        numPassedTests: 2,
        numFailedTests: 1,
        testResults: [file('test/node/a.test.ts', 90, [['a one', 80_000]]), file('test/node/b.test.ts', 700, [['b one', 650_000]])],
      }),
    );
    writeFileSync(join(dir, 'npm-test.json'), JSON.stringify({ numPassedTests: 1, testResults: [file('src/x.test.ts', 1, [['x', 5]])] }));
    const report = ciReport(dir);
    expect(report).toContain('npm test    10m00s');
    expect(report).toContain('node suite  30m00s');
    expect(report).toContain('total       40m00s');
    expect(report.indexOf('test/node/b.test.ts  11m40s')).toBeLessThan(report.indexOf('test/node/a.test.ts   1m30s'));
    expect(report.split('ten slowest tests\n')[1]!.split('\n')).toEqual([
      '  10m50s  test/node/b.test.ts: b one',
      '   1m20s  test/node/a.test.ts: a one',
      '   0m00s  src/x.test.ts: x',
      '',
      'tests: 3 passed, 1 failed',
    ]);
  });
});

// The closing table of CI (.ci/run): each stage's time, each node test file's time, and the ten slowest
// tests of every suite, read from the stage marks .ci/run writes (stages.tsv: seconds since its start,
// then the stage's line) and the suites' JSON reports (test/support/reporters.ts), all in one folder.
// Usage: node scripts/ci-report.ts DIR
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../workbench/cache-dir.ts';

interface TestReport {
  numPassedTests?: number;
  numFailedTests?: number;
  testResults: { name: string; startTime: number; endTime: number; status: string; assertionResults: TestResult[] }[];
}
interface TestResult {
  fullName: string;
  duration?: number | null;
  status: string;
}

export interface Stage {
  name: string;
  seconds: number;
}

/** 90 as ` 1m30s`: right-aligned up to 99 minutes. */
const minutes = (seconds: number) => `${Math.floor(seconds / 60)}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s`.padStart(6);

/** The stages from their start marks: each lasts until the next one starts; the last mark ends the run. */
export function stagesOf(marks: string): Stage[] {
  const starts = marks
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [at, ...text] = line.split('\t');
      return { at: Number(at), name: shortName(text.join('\t')) };
    });
  return starts.slice(0, -1).map((start, index) => ({ name: start.name, seconds: starts[index + 1]!.at - start.at }));
}

/** A stage's line up to its first colon or parenthesis: "node suite: berth dev on ..." is "node suite". */
function shortName(line: string): string {
  return line.split(/[:(]/)[0]!.trim();
}

/** Rows of two or three columns, padded, under a title. */
function table(title: string, rows: string[][]): string {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  const lines = rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  return [title, ...lines.map((line) => `  ${line}`)].join('\n');
}

function reports(dir: string): Map<string, TestReport> {
  const found = new Map<string, TestReport>();
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort())
    found.set(file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, file), 'utf8')) as TestReport);
  return found;
}

export function ciReport(dir: string): string {
  const marks = join(dir, 'stages.tsv');
  const stages = existsSync(marks) ? stagesOf(readFileSync(marks, 'utf8')) : [];
  const total = stages.reduce((sum, stage) => sum + stage.seconds, 0);
  const suites = reports(dir);
  const sections = [table('stages', [...stages.map((stage) => [stage.name, minutes(stage.seconds)]), ['total', minutes(total)]])];
  const node = suites.get('node');
  if (node) {
    const files = [...node.testResults].sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime));
    sections.push(
      table(
        'node suite files',
        files.map((file) => [relative(repoRoot, file.name), minutes((file.endTime - file.startTime) / 1000), file.status]),
      ),
    );
  }
  const tests = [...suites.values()].flatMap((report) =>
    report.testResults.flatMap((file) =>
      file.assertionResults.map((test) => ({ file: relative(repoRoot, file.name), name: test.fullName, ms: test.duration ?? 0 })),
    ),
  );
  const slowest = tests.sort((a, b) => b.ms - a.ms).slice(0, 10);
  sections.push(
    table(
      'ten slowest tests',
      slowest.map((test) => [minutes(test.ms / 1000), `${test.file}: ${test.name.slice(0, 100)}`]),
    ),
  );
  // Last, alone on its line: every suite's tests in the plain form any reader of a CI log takes.
  const count = (key: 'numPassedTests' | 'numFailedTests') => [...suites.values()].reduce((sum, report) => sum + (report[key] ?? 0), 0);
  sections.push(`tests: ${count('numPassedTests')} passed, ${count('numFailedTests')} failed`);
  return sections.join('\n\n');
}

if (import.meta.main) process.stdout.write(`${ciReport(process.argv[2] ?? '.')}\n`);

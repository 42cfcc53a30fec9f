// Copies the generated CRDs from crds/ into the Helm chart's templates (see chart-crds.ts for how).
//   node scripts/sync-chart-crds.ts           rewrite charts/berth/templates/crds/ from crds/
//   node scripts/sync-chart-crds.ts --check   change nothing; exit 1 and say what drifted
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chartCrdFileName, chartCrdsDir, compareChartCrds, renderChartCrd } from './chart-crds.ts';

const root = resolve(import.meta.dirname, '..');

export function expectedChartCrds(repoRoot: string = root): Map<string, string> {
  const sourceDir = join(repoRoot, 'crds');
  const files = readdirSync(sourceDir)
    .filter((file) => /\.ya?ml$/.test(file))
    .sort();
  return new Map(files.map((file) => [chartCrdFileName(file), renderChartCrd(file, readFileSync(join(sourceDir, file), 'utf8'))]));
}

export function currentChartCrds(repoRoot: string = root): Map<string, string> {
  const dir = join(repoRoot, chartCrdsDir);
  mkdirSync(dir, { recursive: true });
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort();
  return new Map(files.map((file) => [file, readFileSync(join(dir, file), 'utf8')]));
}

function main(): void {
  const expected = expectedChartCrds();
  const drift = compareChartCrds(expected, currentChartCrds());
  const drifted = [...drift.missing, ...drift.stale, ...drift.changed];
  if (process.argv.includes('--check')) {
    if (drifted.length === 0) return;
    console.error(
      `the chart's CRDs drifted from crds/ (missing: ${drift.missing.join(', ') || '-'}; stale: ${drift.stale.join(', ') || '-'}; changed: ${drift.changed.join(', ') || '-'}); run: node scripts/sync-chart-crds.ts`,
    );
    process.exit(1);
  }
  const dir = join(root, chartCrdsDir);
  for (const name of drift.stale) rmSync(join(dir, name));
  for (const [name, text] of expected) writeFileSync(join(dir, name), text);
  process.stdout.write(`${expected.size} CRDs in ${chartCrdsDir} (${drifted.length} updated)\n`);
}

if (import.meta.main) main();

// What each reliability test ran and found, written where the last run can be read back
// (.berth/reliability/<fault>.json, or BERTH_RELIABILITY_REPORT_DIR) and printed to stderr.
// RELIABILITY.md quotes these figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type Figures = Record<string, number | string | boolean>;

export const reportDir = resolve(process.env.BERTH_RELIABILITY_REPORT_DIR ?? join(import.meta.dirname, '../../../.berth/reliability'));

export function recordFigures(fault: string, figures: Figures): void {
  mkdirSync(reportDir, { recursive: true });
  const record = { fault, finishedAt: new Date().toISOString(), ...figures };
  writeFileSync(join(reportDir, `${fault}.json`), `${JSON.stringify(record, null, 2)}\n`);
  console.error(`[reliability] ${fault}: ${JSON.stringify(figures)}`);
}

/** A positive integer from the environment, or the default: the suite's sizes are configurable. */
export function sizeFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

// The reporters of every suite: vitest's default and, when BERTH_TEST_REPORT_DIR names a folder (.ci/run
// sets it), a JSON report per suite, which the closing table of CI reads (scripts/ci-report.ts).
import { join } from 'node:path';

type Reporter = string | [string, { outputFile: string }];

export function reporters(suite: string): Reporter[] {
  const dir = process.env.BERTH_TEST_REPORT_DIR;
  return dir ? ['default', ['json', { outputFile: join(dir, `${suite}.json`) }]] : ['default'];
}

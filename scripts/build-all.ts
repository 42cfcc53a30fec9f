// Builds every part the test suites use (workbench/builds.ts: two at a time, the control plane first and
// at normal priority, the rest below it) while the Debian packages they take are installed beside them:
// the build stage of CI (.ci/run), which runs the suites that need only the control plane and the
// packaging tools (and versitygw) while the rest builds. So those come first, then the node's builds in the order its
// parts need them (workbench/node/parts.ts), then Flux. Prints a line as each build ends, with its time;
// exits non-zero, with the build's log, when one fails.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Builds, type BuildName } from '../workbench/builds.ts';
import { repoRoot } from '../workbench/cache-dir.ts';
import { nodeParts } from '../workbench/node/parts.ts';

const run = promisify(execFile);
const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)}s`;
const logDir = mkdtempSync(join(tmpdir(), 'berth-builds-'));
const builds = new Builds({ logDir });
// versitygw right after the packaging tools: npm test's backup store suite runs it (a build of a minute).
const names: BuildName[] = [
  ...new Set<BuildName>(['controlplane', 'tools', 'versitygw', 'node', 'gateway', ...nodeParts.flatMap((part) => part.builds), 'flux']),
];

// Every Debian package first, in one apt-get (a no-op when .ci/run or an earlier run installed them):
// builds started side by side then never wait on apt, nor race for its locks.
await run('bash', [join(repoRoot, 'scripts/install-debian-packages.sh')], { maxBuffer: 64 << 20 });
console.error(`[${seconds()}] Debian packages installed`);

const outcomes = await Promise.allSettled([
  ...names.map(async (name) => {
    const bin = await builds.bin(name);
    const built = builds.list().find((build) => build.name === name);
    console.error(`[${seconds()}] ${name}: ${bin} (${built?.state === 'built' ? built.seconds : '?'}s)`);
  }),
]);
const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as Error] : []));
for (const failure of failures) {
  console.error(failure.message);
  const log = /see (\S+)$/.exec(failure.message)?.[1];
  if (log) console.error(readFileSync(log, 'utf8').split('\n').slice(-30).join('\n'));
}
console.error(`built ${names.length - failures.length} of ${names.length} in ${seconds()}`);
process.exit(failures.length > 0 ? 1 : 0);

// Where built binaries and images are cached, outside git: $BERTH_CACHE_DIR, else the user's cache
// directory. The build scripts compute the same path (scripts/build-*.sh).
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: the build scripts are under scripts/. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function berthCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BERTH_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'berth');
}

/** The build scripts, scripts/build-<name>.sh, each cached by content (scripts/lib/cached-build.sh). */
export type BuildName =
  | 'controlplane'
  | 'node'
  | 'gateway'
  | 'network-policy'
  | 'metrics-server'
  | 'cert-manager'
  | 'keda'
  | 'victoria-metrics'
  | 'http-add-on'
  | 'buildkit'
  | 'tools'
  | 'flux'
  | 'versitygw'
  | 'cnpg'
  | 'local-path'
  | 'barman-cloud';

/** Where a build script is. */
export function buildScript(name: BuildName): string {
  return join(repoRoot, `scripts/build-${name}.sh`);
}

/**
 * The bin directory of one of the build scripts (scripts/build-<name>.sh): built when it is not cached
 * yet (scripts/lib/cached-build.sh), printed on the script's last line. The build's progress goes to
 * this process's stderr.
 */
export function cachedBuild(name: BuildName): string {
  const out = execFileSync('bash', [buildScript(name)], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const bin = out.trim().split('\n').pop();
  if (!bin) throw new Error(`scripts/build-${name}.sh printed no bin directory`);
  return bin;
}

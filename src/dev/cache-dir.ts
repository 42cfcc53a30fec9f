// Where built binaries and images are cached, outside git: $BERTH_CACHE_DIR, else the user's cache
// directory. The build scripts compute the same path (scripts/build-*.sh).
import { homedir } from 'node:os';
import { join } from 'node:path';

export function berthCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BERTH_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'berth');
}

// Debian packages are installed one way (scripts/lib/debian-packages.sh): under one lock, so builds that
// start side by side on a fresh machine never race for apt's locks (two image builds once did, and one
// lost: "Could not get lock /var/lib/apt/lists/lock"). Here apt-get and dpkg-query are small scripts on
// PATH that record when they run, so the lock is seen to hold without touching the machine's packages.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const lib = join(root, 'scripts/lib/debian-packages.sh');
const dir = mkdtempSync(join(tmpdir(), 'berth-apt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A command on PATH: `body` as a bash script. */
function command(name: string, body: string): void {
  writeFileSync(join(dir, name), `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
}

describe('install_debian_packages', () => {
  it('runs one apt-get at a time, and a caller that waited installs only what is still missing', async () => {
    const journal = join(dir, 'journal');
    const installed = join(dir, 'installed');
    writeFileSync(installed, '');
    // Installed means listed in $installed; apt-get install takes a while, then lists its packages.
    command('dpkg-query', `grep -qx "\${@: -1}" ${installed} && echo -n 'install ok installed'`);
    command(
      'apt-get',
      `echo "start $1 $*" >> ${journal}; sleep 0.3; [[ $1 == install ]] && printf '%s\\n' "\${@:5}" >> ${installed}; echo "end $1" >> ${journal}`,
    );
    command('id', 'echo 0');
    const env = { ...process.env, PATH: `${dir}:${process.env.PATH}`, BERTH_APT_LOCK: join(dir, 'lock') };
    const install = (...packages: string[]) =>
      run('bash', ['-c', `source ${lib}; install_debian_packages "$@"`, 'install', ...packages], { env });
    await Promise.all([install('runc', 'git'), install('git', 'lua5.4'), install('runc')]);

    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    // Every start is followed by its own end before the next start: never two at once.
    lines.forEach((line, index) => expect(line.split(' ')[0], lines.join('\n')).toBe(index % 2 === 0 ? 'start' : 'end'));
    const installs = lines.filter((line) => line.startsWith('start install')).map((line) => line.split(' ').slice(6).join(' '));
    // Each package installed once, whoever asked for it first.
    expect(installs.flatMap((list) => list.split(' ')).sort()).toEqual(['git', 'lua5.4', 'runc']);
  });

  it('is the only place that runs apt-get', () => {
    const files = execFileSync('git', ['ls-files', '*.sh', '*.ts', '.ci/run', 'Dockerfile'], { cwd: root, encoding: 'utf8' }).split('\n');
    const callers = files.filter((file) => {
      if (!file || file === 'scripts/lib/debian-packages.sh' || file.endsWith('.test.ts')) return false;
      // Commands only: what a message says (a quoted string) is not a call.
      const code = readFileSync(join(root, file), 'utf8').replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '');
      return /apt-get\s+(install|update)/.test(code);
    });
    expect(callers).toEqual([]);
  });
});

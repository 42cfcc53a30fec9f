// A build ends with the Berth that asked for it: stopped, or with its Berth killed, the whole process
// group gets SIGTERM and the script's EXIT trap runs (where the image scripts undo their mounts).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuildProcess, stopBuildProcesses } from './build-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'berth-build-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script that records its child's pid, then its own clean-up, and sleeps in a child of its own. */
function sleepingBuild(name: string): { script: string; cleanedUp: string; childPid: () => number } {
  const cleanedUp = join(dir, `${name}.cleaned-up`);
  const pidFile = join(dir, `${name}.pid`);
  const script = join(dir, `${name}.sh`);
  writeFileSync(script, `trap 'echo done > ${cleanedUp}' EXIT\nsleep 300 & echo $! > ${pidFile}\nwait\n`);
  return { script, cleanedUp, childPid: () => Number(readFileSync(pidFile, 'utf8')) };
}

function cleanedUp(build: { cleanedUp: string }): boolean {
  return existsSync(build.cleanedUp) && readFileSync(build.cleanedUp, 'utf8') === 'done\n';
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
}

/** Whether a process runs (a zombie, ended but not yet reaped by its new parent, does not). */
function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

describe('build processes', () => {
  it('resolves with the stdout of a build that succeeds, and names the log of one that fails', async () => {
    expect(await runBuildProcess(['sh', '-c', 'echo built; echo /bin'])).toBe('built\n/bin\n');
    await expect(runBuildProcess(['sh', '-c', 'echo broken >&2; exit 3'])).rejects.toThrow(/exit code 3\):\nbroken/);
    const logFile = join(dir, 'failed.log');
    await expect(runBuildProcess(['sh', '-c', 'echo broken >&2; exit 3'], { logFile })).rejects.toThrow(`see ${logFile}`);
    expect(readFileSync(logFile, 'utf8')).toBe('broken\n');
  });

  it('stops a build, its children and all, after its clean-up', async () => {
    const build = sleepingBuild('stopped');
    const result = runBuildProcess(['bash', build.script], { lowPriority: true });
    await until(() => existsSync(join(dir, 'stopped.pid')));
    await stopBuildProcesses();
    await expect(result).rejects.toThrow(/\(stopped\)/);
    expect(readFileSync(build.cleanedUp, 'utf8')).toBe('done\n');
    // The group's SIGTERM reaches the child at once; it ends as soon as it is scheduled.
    await until(() => !alive(build.childPid()));
    expect(alive(build.childPid())).toBe(false);
  });

  it('ends a build whose Berth is killed with SIGKILL', async () => {
    const build = sleepingBuild('orphaned');
    const berth = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { runBuildProcess } from ${JSON.stringify(join(import.meta.dirname, 'build-process.ts'))};
runBuildProcess(['bash', ${JSON.stringify(build.script)}]).catch(() => {});`,
      ],
      { stdio: 'ignore' },
    );
    await until(() => existsSync(join(dir, 'orphaned.pid')));
    berth.kill('SIGKILL');
    // Nothing here waits for the build's end: its clean-up is done once the trap has written its line.
    await until(() => cleanedUp(build));
    expect(cleanedUp(build)).toBe(true);
    await until(() => !alive(build.childPid()));
    expect(alive(build.childPid())).toBe(false);
  });
});

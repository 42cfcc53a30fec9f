// `berth dev` with a real node, as a new user runs it: it starts the node, an image pushed to its
// registry and applied as a Berth Deployment answers HTTP from the host; killed with SIGKILL, it leaves
// pods behind that the next start cleans up before it comes back with the same app; stopped by its
// terminal closing (SIGHUP, its output read by nobody), it leaves the host exactly as it found it, as
// Ctrl-C does (the same stop: src/cli/process-lifecycle.test.ts). Runs after the shared-node suite: one node per
// machine.
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFlags, processEnvironment } from '../../src/cli/node-flags.ts';
import { berthCacheDir } from '../../workbench/cache-dir.ts';
import { controlPlaneBinaries } from '../../workbench/controlplane.ts';
import { pushExampleApp } from '../../workbench/node/example-app.ts';
import { registryAddress } from '../../workbench/node/network.ts';
import { cleanUpAfterDeadNode, nodeBinaries } from '../../workbench/node/node.ts';
import { eventually, GiveUp } from '../../workbench/support/poll.ts';
import { httpsGet } from '../node/support.ts';
import { hostSnapshot } from './host-snapshot.ts';

const run = promisify(execFile);
const main = join(import.meta.dirname, '../../workbench/main.ts');
const home = mkdtempSync(join(tmpdir(), 'berth-dev-node-'));
const dataDir = join(home, 'data');
const children: ChildProcessByStdio<null, Readable, Readable>[] = [];

afterAll(async () => {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  for (const child of running) child.kill('SIGINT');
  await Promise.all(running.map((child) => new Promise((r) => child.once('exit', r))));
  rmSync(home, { recursive: true, force: true, maxRetries: 3 });
});

function berthDev() {
  // A home with no kubeconfig, and the machine's cache of binaries and images.
  const env: NodeJS.ProcessEnv = { ...process.env, ...processEnvironment, HOME: home, BERTH_CACHE_DIR: berthCacheDir() };
  delete env.KUBECONFIG;
  delete env.KUBERNETES_SERVICE_HOST;
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      main,
      'dev',
      '--data-dir',
      dataDir,
      '--node',
      'required',
      '--facade-address',
      '127.0.0.1:0',
      '--probe-address',
      '127.0.0.1:0',
    ],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const output: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => output.push(line));
  createInterface({ input: child.stderr }).on('line', (line) => output.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** The first group of pattern in the output; fails at once, with the output, if berth dev exits first. */
  const printed = (pattern: RegExp, timeoutMs = 600_000): Promise<string> =>
    eventually(
      () => {
        const found = pattern.exec(output.join('\n'))?.[1];
        if (!found && child.exitCode !== null) throw new GiveUp(`berth dev exited with ${child.exitCode}`);
        return found;
      },
      timeoutMs,
      String(pattern),
    ).catch((error: Error) => {
      throw new Error(`no ${pattern} in berth dev's output (${error.message}):\n${output.slice(-20).join('\n')}`);
    });
  return { child, output, exited, printed };
}

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(join(controlPlaneBinaries(), 'kubectl'), ['--kubeconfig', join(dataDir, 'kubeconfig'), ...args], {
    encoding: 'utf8',
  });
  return stdout;
}

async function applyHello(image: string): Promise<void> {
  const manifest = readFileSync(join(import.meta.dirname, '../../examples/hello.yaml'), 'utf8').replace(
    /imageUri: .*/,
    `imageUri: ${image}`,
  );
  const child = execFile(join(controlPlaneBinaries(), 'kubectl'), [
    '--kubeconfig',
    join(dataDir, 'kubeconfig'),
    'apply',
    '--server-side',
    '-f',
    '-',
  ]);
  child.stdin?.end(manifest);
  await new Promise<void>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kubectl apply exited ${code}`)))),
  );
}

/** What answers at the url the Deployment's status gives, as the README's quick start asks it: over
 * TLS, trusting the apps CA that `berth dev` writes to its data dir (curl --cacert). */
async function helloAnswers(): Promise<string> {
  const url = (await kubectl('get', 'deployments.berth.dev', 'hello', '-o', 'jsonpath={.status.url}')).trim();
  if (!url.startsWith('https://')) throw new Error(`hello has no https:// url yet (${url || 'none'})`);
  return (await httpsGet(`${url}/`, readFileSync(join(dataDir, 'apps-ca.crt'), 'utf8'))).body;
}

describe('berth dev with a real node', () => {
  // A run that died before this one left its node behind: what any start does first, so that the
  // host is compared with itself as it was before any node.
  beforeAll(() => cleanUpAfterDeadNode(controlPlaneBinaries()));

  it('serves a pushed image applied as a Deployment, recovers from SIGKILL, and restores the host when its terminal closes', async () => {
    const before = await hostSnapshot();

    const first = berthDev();
    expect(await first.printed(/registry:\s+(\S+)/)).toBe(registryAddress);
    expect(readFileSync(join(dataDir, 'registry'), 'utf8').trim()).toBe(registryAddress);
    await first.printed(/API key:\s+(\S+)/);

    const image = await pushExampleApp(join(nodeBinaries(), 'crane'), registryAddress, 'dev-v1');
    await applyHello(image);
    expect(
      await eventually(async () => (await helloAnswers()) === 'berth-example dev-v1\n', 120_000, 'the app to answer through its Service'),
    ).toBe(true);
    await eventually(
      async () =>
        (await kubectl('get', 'deployments.berth.dev', 'hello', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')) ===
        'True',
      60_000,
      'the Berth Deployment Ready',
    );

    first.child.kill('SIGKILL');
    await first.exited;

    const second = berthDev();
    await second.printed(/(cleaning up after a node that did not stop)/);
    await second.printed(/API key:\s+(\S+)/);
    expect(
      await eventually(
        async () => (await helloAnswers()) === 'berth-example dev-v1\n',
        120_000,
        'the app to answer again after the restart',
      ),
    ).toBe(true);

    // The terminal window closes: SIGHUP, and nobody reads what it prints any more.
    second.child.stdout.destroy();
    second.child.stderr.destroy();
    second.child.kill('SIGHUP');
    expect(await second.exited).toBe(0);
    expect(await hostSnapshot()).toEqual(before);
  }, 900_000);
});

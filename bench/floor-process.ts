// The floor client in a process of its own, as Berth runs in its own: on a loaded machine each process
// gets its own share of the CPU, so a floor that shared the benchmark's process would be handicapped.
// Protocol: prints `ready` once loaded, starts on a line from stdin, prints `{"writes":n}` when done.
//   node bench/floor-process.ts <kubeconfig> <namespace> <count> <concurrency>
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';
import { deploymentNames } from './fixtures.ts';
import { runFloor } from './floor.ts';

export interface FloorRun {
  /** Resolves once the process is loaded and waiting. */
  ready: Promise<void>;
  /** Starts the writes; resolves with their count when all are done. */
  go(): Promise<number>;
}

export function spawnFloor(kubeconfigPath: string, namespace: string, count: number, concurrency: number): FloorRun {
  const child = spawn(process.execPath, [import.meta.filename, kubeconfigPath, namespace, String(count), String(concurrency)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.removeListener('exit', killOnExit);
      resolve(code);
    }),
  );
  const next = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      void exited.then((code) => reject(new Error(`the floor client exited with ${code}`)));
    });
  const ready = next().then((line) => {
    if (line !== 'ready') throw new Error(`the floor client said ${line}`);
  });
  return {
    ready,
    async go() {
      const result = next();
      child.stdin.write('go\n');
      const { writes } = JSON.parse(await result) as { writes: number };
      child.stdin.end();
      await exited;
      return writes;
    },
  };
}

/** Writes `count` Deployments with their Revisions and children through a floor process, start to end: for a benchmark that needs them written, not timed. */
export async function fillWithFloor(kubeconfigPath: string, namespace: string, count: number, concurrency: number): Promise<number> {
  const floor = spawnFloor(kubeconfigPath, namespace, count, concurrency);
  await floor.ready;
  return floor.go();
}

if (import.meta.main) {
  const [kubeconfigPath, namespace, count, concurrency] = process.argv.slice(2);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath!);
  const names = deploymentNames(Number(count));
  const input = createInterface({ input: process.stdin });
  process.stdout.write('ready\n');
  await new Promise((resolve) => input.once('line', resolve));
  const writes = await runFloor(kc, namespace!, names, Number(concurrency));
  process.stdout.write(`${JSON.stringify({ writes })}\n`);
  input.close();
}

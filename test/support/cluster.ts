// What a test file needs from the shared control plane: a client config and a namespace of its own.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, inject } from 'vitest';

export function testKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfigPath'));
  return kc;
}

/** Creates a namespace for this test file (deleted after it) and returns its name. */
/** The namespaces this test file made: deleted when it ends, with everything in them (pods included). */
const namespacesOfThisFile = new Set<string>();

// Registered when the file is collected: vitest ignores an afterAll registered inside another hook,
// which is where most files call useNamespace (beforeAll). Registered first, it runs last, after the
// file's own clean-up (Berth stopped, servers closed).
afterAll(async () => {
  // Files that made none may run with no cluster at all (the node-lifecycle suite).
  if (namespacesOfThisFile.size === 0) return;
  const core = testKubeConfig().makeApiClient(CoreV1Api);
  await Promise.all([...namespacesOfThisFile].map((name) => core.deleteNamespace({ name }).catch(() => {})));
  await Promise.all([...namespacesOfThisFile].map(releaseBerthFinalizers));
});

/** The kinds whose objects carry a finalizer of Berth's (finalize.ts, database-restore). */
const finalizedKinds = 'deployments.berth.dev,databaserestores.berth.dev';

/**
 * Clears the finalizers of the namespace's objects of Berth's kinds (Berth's are the only ones they
 * carry): the Berth that would honour them stopped with its file, so the namespace would stay
 * Terminating for good, and the controller-manager would list every kind in it again and again for
 * the rest of the run.
 */
async function releaseBerthFinalizers(namespace: string): Promise<void> {
  const listed = await kubectl(['get', finalizedKinds, '-n', namespace, '-o', 'name']);
  for (const object of listed.stdout.split('\n').filter(Boolean))
    await kubectl(['patch', '-n', namespace, object, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
}

export async function useNamespace(prefix = 'test', labels: Record<string, string> = {}): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const core = testKubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels } } });
  namespacesOfThisFile.add(name);
  return name;
}

/** Runs the kubectl built with the control plane against it. */
export async function kubectl(args: string[], input?: string): Promise<{ stdout: string; stderr: string; code: number }> {
  const bin = join(inject('controlPlaneBin'), 'kubectl');
  const run = promisify(execFile);
  const child = run(bin, ['--kubeconfig', inject('kubeconfigPath'), ...args], { encoding: 'utf8' });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  try {
    const { stdout, stderr } = await child;
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: typeof e.code === 'number' ? e.code : 1 };
  }
}

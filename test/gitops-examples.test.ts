// What a GitOps tool sees when it keeps examples/ in sync: Argo CD and Flux apply with server-side apply
// under their own field manager, again and again. The second apply must succeed without conflicts and
// change nothing, `kubectl diff` must find nothing to change, and no other field manager (Berth
// included, once it runs here) may own a field of a spec the tool applied: status and finalizers are
// Berth's, the spec is Git's. Berth runs between the two syncs and reconciles what the first one made.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';

/** Berth as it runs in a cluster, here limited to the test's namespace. */
interface BerthUnderTest {
  /** Resolves once Berth has observed the current generation of every Deployment in the namespace. */
  settled(namespace: string): Promise<void>;
  stop(): Promise<void>;
}

// The Deployment controllers only: the OAuthProvider and CodeHostIntegration examples name public
// hosts that this machine cannot reach, and their controllers write nothing but status either way.
async function startBerth(namespace: string): Promise<BerthUnderTest> {
  const manager = new Manager({
    kubeConfig: testKubeConfig(),
    healthPort: false,
    logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    processMetrics: false,
  });
  const { informers } = registerDeploymentControllers(manager, { namespaces: [namespace] });
  await manager.start();
  return {
    settled: async () => {
      await eventually(
        async () => {
          const deployments = informers.deployments.list(namespace);
          return deployments.length > 0 && deployments.every((d) => d.status?.observedGeneration === d.metadata.generation);
        },
        60_000,
        'Berth to observe every Deployment',
      );
    },
    stop: () => manager.stop(),
  };
}

const root = join(import.meta.dirname, '..');
const gitopsManager = 'kustomize-controller';

interface Stored {
  kind: string;
  metadata: {
    name: string;
    generation?: number;
    resourceVersion: string;
    managedFields?: { manager: string; subresource?: string; fieldsV1?: Record<string, unknown> }[];
  };
  spec?: unknown;
  data?: unknown;
}

function examples(): string {
  return readdirSync(join(root, 'examples'))
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => readFileSync(join(root, 'examples', file), 'utf8'))
    .join('\n---\n');
}

function names(manifests: string): string[] {
  return parseAllDocuments(manifests)
    .map((doc) => doc.toJSON() as { apiVersion?: string; kind?: string; metadata?: { name?: string } } | null)
    .filter((m) => m?.kind && m.metadata?.name)
    .map((m) => `${m!.kind!.toLowerCase()}${m!.apiVersion!.includes('/') ? `.${m!.apiVersion!.split('/')[0]}` : ''}/${m!.metadata!.name!}`);
}

async function read(namespace: string, objects: string[]): Promise<Map<string, Stored>> {
  const got = await kubectl(['get', '-n', namespace, '-o', 'json', '--show-managed-fields', ...objects]);
  expect(got.stderr).toBe('');
  const items = (JSON.parse(got.stdout) as { items?: Stored[] }).items ?? [JSON.parse(got.stdout) as Stored];
  return new Map(items.map((item) => [`${item.kind}/${item.metadata.name}`, item]));
}

describe('examples/ under a GitOps field manager', () => {
  it('re-applies with no conflict and no drift', async () => {
    const namespace = await useNamespace('gitops');
    const manifests = examples();
    const objects = names(manifests);
    expect(objects.some((o) => o.startsWith('deployment.berth.dev/'))).toBe(true);
    const apply = ['apply', '--server-side', '--field-manager', gitopsManager, '-n', namespace, '-f', '-'];

    const first = await kubectl(apply, manifests);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);

    const berth = await startBerth(namespace);
    try {
      await berth.settled(namespace);
      const before = await read(namespace, objects);

      // A second sync of the same Git revision: no --force-conflicts, so any field another manager took
      // over would fail it with a conflict.
      const second = await kubectl(apply, manifests);
      expect(second.stderr).toBe('');
      expect(second.code).toBe(0);
      await berth.settled(namespace);
      const after = await read(namespace, objects);

      for (const [key, stored] of before) {
        const again = after.get(key)!;
        expect({ key, spec: again.spec, data: again.data, generation: again.metadata.generation }).toEqual({
          key,
          spec: stored.spec,
          data: stored.data,
          generation: stored.metadata.generation,
        });
        const otherSpecOwners = (again.metadata.managedFields ?? []).filter(
          (entry) => entry.manager !== gitopsManager && entry.subresource === undefined && entry.fieldsV1?.['f:spec'] !== undefined,
        );
        expect({ key, otherSpecOwners }).toEqual({ key, otherSpecOwners: [] });
      }

      // What Argo CD's and Flux's diff would show: nothing (kubectl diff exits 0 only when there is none).
      const diff = await kubectl(['diff', '--server-side', '--field-manager', gitopsManager, '-n', namespace, '-f', '-'], manifests);
      expect(diff.stdout).toBe('');
      expect(diff.code).toBe(0);
    } finally {
      await berth.stop();
    }
  });
});

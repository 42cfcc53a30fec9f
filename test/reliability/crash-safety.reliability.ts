// Crash safety: while a fleet of Deployments is created, edited and deleted, the Berth process is
// killed with SIGKILL at random moments and started again. Afterwards every Deployment has converged
// on its latest spec, no revision config has two Revisions, and no child object outlived its owner.
// Sizes: BERTH_RELIABILITY_DEPLOYMENTS (default 300), BERTH_RELIABILITY_KILLS (default 10),
// BERTH_RELIABILITY_SEED (default: the clock; printed, so a failing run can be replayed),
// BERTH_RELIABILITY_CONVERGE_TIMEOUT_MS (default 480000).
import { describe, expect, inject, it } from 'vitest';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { converge, Fleet, newHistory, recordConfig, seededRandom } from './support/fleet.ts';
import { recordFigures, sizeFromEnv } from './support/figures.ts';

const count = sizeFromEnv('BERTH_RELIABILITY_DEPLOYMENTS', 300);
const kills = sizeFromEnv('BERTH_RELIABILITY_KILLS', 10);
const seed = sizeFromEnv('BERTH_RELIABILITY_SEED', Date.now() % 2 ** 31);
// Generous: on a shared 2-core machine a fleet of 300 can take minutes to settle after the last kill.
const convergeTimeoutMs = sizeFromEnv('BERTH_RELIABILITY_CONVERGE_TIMEOUT_MS', 480_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe(`crash safety: ${count} Deployments, ${kills} SIGKILLs (seed ${seed})`, () => {
  it(
    'converges every Deployment with one Revision per revision config and no orphans',
    async () => {
      const random = seededRandom(seed);
      const kc = testKubeConfig();
      const operatorNamespace = await useNamespace('berth-op');
      const namespace = await useNamespace('crash');
      const fleet = new Fleet(kc, namespace);
      const history = newHistory();
      const args = runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace], components: 'controller' });
      const names = Array.from({ length: count }, (_, i) => `app-${String(i).padStart(3, '0')}`);
      const pick = (fraction: number) => names.filter(() => random() < fraction);

      // The writer: creates, image edits (new revisions), an edit back to an earlier image (no new
      // revision), scale-only edits (no new revision) and deletes, spread over the kills.
      let writes = 0;
      let writing = true;
      const writer = (async () => {
        await inBatches(names, 20, async (name) => {
          const config = { imageUri: `registry.example.com/${name}:1` };
          recordConfig(history, name, config);
          await fleet.create(name, config);
          writes += 1;
        });
        const edited = pick(0.3);
        for (const round of [2, 3]) {
          await inBatches(
            edited.filter(() => random() < 0.7),
            10,
            async (name) => {
              const config = { imageUri: `registry.example.com/${name}:${round}` };
              recordConfig(history, name, config);
              await fleet.patchSpec(name, { sourceRevisionConfig: config });
              writes += 1;
            },
          );
          await sleep(1500);
        }
        await inBatches(
          edited.filter(() => random() < 0.3),
          10,
          async (name) => {
            const config = { imageUri: `registry.example.com/${name}:1` };
            recordConfig(history, name, config);
            await fleet.patchSpec(name, { sourceRevisionConfig: config });
            writes += 1;
          },
        );
        await inBatches(pick(0.1), 10, async (name) => {
          await fleet.patchSpec(name, { sourceConfig: { resourceSpec: { maxScale: 3 } } });
          writes += 1;
        });
        await inBatches(pick(0.05), 10, async (name) => {
          history.deleted.add(name);
          await fleet.delete(name);
          writes += 1;
        });
        writing = false;
      })();

      // The kubelet stand-in keeps marking workloads available, so Deployments move through their
      // states while the controller dies.
      let chaos = true;
      const kubelet = (async () => {
        while (chaos) {
          await fleet.markWorkloadsAvailable().catch(() => undefined);
          await sleep(1000);
        }
      })();

      let berth: BerthProcess = spawnBerth(inject('kubeconfigPath'), args);
      let killed = 0;
      const pids: number[] = [berth.pid];
      while (killed < kills) {
        // A random moment: sometimes before the caches synced, sometimes mid-reconcile.
        await sleep(300 + Math.floor(random() * 4000));
        await berth.kill();
        killed += 1;
        berth = spawnBerth(inject('kubeconfigPath'), args);
        pids.push(berth.pid);
      }
      await writer;
      expect(writing).toBe(false);
      chaos = false;
      await kubelet;
      await waitReady(berth);

      const convergence = await converge(fleet, history, convergeTimeoutMs).catch((error: unknown) => {
        throw new Error(
          `${String(error)}\nlast lines of the Berth that should have converged them:\n${berth.rawOutput.slice(-20).join('\n')}`,
        );
      });
      // Garbage collection of deleted Deployments' children is the controller-manager's: give it time.
      let orphanCheck = await fleet.orphans();
      for (let i = 0; i < 60 && orphanCheck.orphans.length > 0; i += 1) {
        await sleep(1000);
        orphanCheck = await fleet.orphans();
      }
      const revisions = await fleet.duplicateRevisions(history);
      const distinctConfigs = [...history.configs.entries()]
        .filter(([name]) => !history.deleted.has(name))
        .reduce((sum, [, configs]) => sum + configs.size, 0);

      recordFigures('crash-safety', {
        seed,
        deployments: count,
        deleted: history.deleted.size,
        writes,
        faultsInjected: killed,
        processes: pids.length,
        objectsChecked: (await fleet.deployments()).length + orphanCheck.checked,
        revisions: revisions.total,
        distinctRevisionConfigsWritten: distinctConfigs,
        duplicates: revisions.duplicates.length,
        unexpectedRevisions: revisions.unexpected.length,
        orphans: orphanCheck.orphans.length,
        convergedMsAfterLastKill: convergence.ms,
      });
      expect(killed).toBe(kills);
      expect(revisions.duplicates).toEqual([]);
      expect(revisions.unexpected).toEqual([]);
      expect(orphanCheck.orphans).toEqual([]);
      // The last Berth is healthy and logged no crash of its own.
      expect(berth.child.exitCode).toBeNull();
    },
    convergeTimeoutMs + 300_000,
  );
});

// Concurrent writers: fifty PATCHes through the HTTP facade at once on one Deployment, each setting
// its own value of a resource field (some also a new image), while GitOps edits the same object with
// `kubectl apply --server-side`. No write may be lost: every field ends at a value one of its writers
// sent (a reverted field would be back at its initial value), the GitOps edits all survive, and there
// is exactly one Revision for the final revision config and none that nobody asked for.
import { describe, expect, inject, it } from 'vitest';
import { labels } from '../../src/api/index.ts';
import { ensureApiKey } from '../../src/facade/api-keys.ts';
import { runArgs, spawnBerth, waitReady } from '../support/berth-process.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { converge, Fleet, newHistory, recordConfig } from './support/fleet.ts';
import { recordFigures, sizeFromEnv } from './support/figures.ts';

const writers = sizeFromEnv('BERTH_RELIABILITY_PATCH_WRITERS', 50);
const gitopsEdits = sizeFromEnv('BERTH_RELIABILITY_GITOPS_EDITS', 5);
// Fields with no ordering rule between them (a limit without its request is valid alone).
const fields = [
  'redis_memory_mb',
  'db_storage_gi',
  'db_max_connections',
  'queue_cpu_limit',
  'queue_memory_limit_mb',
  'orchestrator_cpu_limit',
  'orchestrator_memory_limit_mb',
  'executor_cpu_limit',
  'executor_memory_limit_mb',
  'db_memory_limit_mb',
] as const;
const annotation = 'example.com/gitops-edit';

describe('concurrent writers', () => {
  it(`${writers} facade PATCHes and ${gitopsEdits} kubectl applies lose no update`, async () => {
    const kc = testKubeConfig();
    const organizationId = crypto.randomUUID();
    const operatorNamespace = await useNamespace('berth-op');
    const namespace = await useNamespace('writers', { [labels.organizationId]: organizationId });
    const { key } = await ensureApiKey(kc, operatorNamespace, [organizationId]);
    const berth = spawnBerth(inject('kubeconfigPath'), runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }));
    await waitReady(berth);
    const facade = `http://127.0.0.1:${await berth.facadePort()}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${facade}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined };
    };

    const name = 'contended';
    const history = newHistory();
    recordConfig(history, name, { imageUri: 'registry.example.com/contended:0' });
    const created = await call('POST', '/v2/deployments', {
      name,
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 2 } },
      source_revision_config: { image_uri: 'registry.example.com/contended:0' },
    });
    expect(created.status).toBe(201);
    const id = created.body!.id as string;

    // Writer i sets field i % 10 to a value only it sends; every tenth writer also moves the image.
    const plan = Array.from({ length: writers }, (_, i) => {
      const field = fields[i % fields.length]!;
      return {
        field,
        value: field.includes('cpu') ? (i + 1) / 10 : 1000 + i,
        image: i % 10 === 0 ? `registry.example.com/contended:${i + 1}` : undefined,
      };
    });
    const patches = plan.map(({ field, value, image }) =>
      call('PATCH', `/v2/deployments/${id}`, {
        source_config: { resource_spec: { [field]: value } },
        ...(image ? { source_revision_config: { image_uri: image } } : {}),
      }),
    );
    const applies = (async () => {
      const results: number[] = [];
      for (let edit = 1; edit <= gitopsEdits; edit += 1) {
        const manifest = {
          apiVersion: 'berth.dev/v1alpha1',
          kind: 'Deployment',
          metadata: { name, namespace, annotations: { [annotation]: String(edit) } },
          spec: { sourceConfig: { resourceSpec: { annotations: { [annotation]: String(edit) } } } },
        };
        const run = await kubectl(['apply', '--server-side', '--field-manager', 'gitops', '-f', '-'], JSON.stringify(manifest));
        if (run.code !== 0) throw new Error(`kubectl apply ${edit} failed: ${run.stderr}`);
        results.push(run.code);
      }
      return results;
    })();
    const answers = await Promise.all(patches);
    await applies;
    // Only an acknowledged write must show; a refused one (409: try again) must change nothing.
    const acknowledged = plan.filter((_, i) => answers[i]!.status === 200);
    const written = new Map<string, Set<number>>(
      fields.map((field) => [field, new Set(acknowledged.filter((w) => w.field === field).map((w) => w.value))]),
    );
    const images = new Set(acknowledged.flatMap((w) => (w.image ? [w.image] : [])));

    const statuses = answers.map((a) => a.status);
    const fleet = new Fleet(kc, namespace);
    const deployment = (await fleet.deployments()).find((d) => d.metadata.name === name)!;
    const resourceSpec = deployment.spec.sourceConfig?.resourceSpec as Record<string, unknown>;
    const camel = (field: string) => field.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const lost = fields.filter((field) => {
      const final = resourceSpec[camel(field)] as number | undefined;
      return written.get(field)!.size > 0 ? !written.get(field)!.has(final!) : final !== undefined;
    });
    for (const image of plan.flatMap((w) => (w.image ? [w.image] : []))) recordConfig(history, name, { imageUri: image });
    history.current.set(name, { imageUri: deployment.spec.sourceRevisionConfig?.imageUri ?? '' });

    await converge(fleet, history, 120_000);
    const revisions = await fleet.duplicateRevisions(history);
    const finalConfigRevisions = (await fleet.revisions()).filter(
      (r) => r.spec.sourceRevisionConfig?.imageUri === deployment.spec.sourceRevisionConfig?.imageUri,
    );
    recordFigures('concurrent-writers', {
      facadePatches: writers,
      gitopsApplies: gitopsEdits,
      patchesAcknowledged: acknowledged.length,
      patchesRefusedWithConflict: statuses.filter((status) => status === 409).length,
      fieldsChecked: fields.length + 2,
      lostUpdates: lost.length + (deployment.metadata.annotations?.[annotation] === String(gitopsEdits) ? 0 : 1),
      imagesWritten: images.size + 1,
      revisions: revisions.total,
      duplicates: revisions.duplicates.length,
    });
    expect(lost).toEqual([]);
    expect(deployment.metadata.annotations?.[annotation]).toBe(String(gitopsEdits));
    expect((resourceSpec.annotations as Record<string, string> | undefined)?.[annotation]).toBe(String(gitopsEdits));
    expect([...images, 'registry.example.com/contended:0']).toContain(deployment.spec.sourceRevisionConfig?.imageUri);
    expect(revisions.duplicates).toEqual([]);
    expect(revisions.unexpected).toEqual([]);
    expect(finalConfigRevisions).toHaveLength(1);
    expect(revisions.total).toBeLessThanOrEqual(images.size + 1);
    // Optimistic concurrency is the facade's to retry, not the client's: fifty writers on one object
    // must all be answered 200.
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  });
});

// The examples are documentation that the API server accepts: each applies with server-side apply, and
// what is stored is what the file says (plus the schema's defaults).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { eventually, kubectl, useNamespace } from './support/cluster.ts';

const dir = join(import.meta.dirname, '../examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();

// src/dev/install-crds.ts sends the CRDs through the client's typed serializer, which drops enum,
// default and every x-kubernetes-* key of the schema. Until it sends them as written, apply them
// here as kubectl does (same field manager; a no-op once the harness installs them faithfully).
async function applyGeneratedCrds(): Promise<void> {
  const applied = await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager', 'berth', '-f', join(import.meta.dirname, '../crds')]);
  if (applied.code !== 0) throw new Error(`applying crds/ failed: ${applied.stderr}`);
  // The API server swaps in a new schema shortly after the update: wait until a CEL rule answers.
  const probe = JSON.stringify({ apiVersion: 'berth.dev/v1alpha1', kind: 'Deployment', metadata: { name: 'probe', namespace: 'default' }, spec: { source: 'external_docker' } });
  await eventually(async () => (await kubectl(['create', '--dry-run=server', '-f', '-'], probe)).stderr.includes('imageUri'), 30_000, 'the CRDs to enforce their CEL rules');
}

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, unknown> };

beforeAll(applyGeneratedCrds);

describe('examples', () => {
  it('include the ones the docs promise', () => {
    expect(files).toEqual(
      expect.arrayContaining(['codehost-integration.yaml', 'deployment-codehost.yaml', 'deployment-external-docker.yaml', 'oauth-provider.yaml']),
    );
  });

  it.each(files)('%s applies with server-side apply and is stored as written', async (file) => {
    const namespace = await useNamespace('examples');
    const path = join(dir, file);
    const applied = await kubectl(['apply', '--server-side', '--field-manager', 'examples', '-n', namespace, '-f', path]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const manifests = parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => doc.toJSON() as Manifest);
    for (const manifest of manifests.filter((m) => m.apiVersion.startsWith('berth.dev/'))) {
      const got = await kubectl(['get', `${manifest.kind.toLowerCase()}s.berth.dev`, manifest.metadata.name, '-n', namespace, '-o', 'json']);
      expect(got.code).toBe(0);
      expect((JSON.parse(got.stdout) as Manifest).spec).toMatchObject(manifest.spec!);
    }
  });
});

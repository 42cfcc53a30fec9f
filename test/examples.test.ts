// The examples are documentation that the API server accepts: each applies with server-side apply, and
// what is stored is what the file says (plus the schema's defaults).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubectl, useNamespace } from './support/cluster.ts';

const dir = join(import.meta.dirname, '../examples');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, unknown> };

describe('examples', () => {
  it('include the ones the docs promise', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'codehost-integration.yaml',
        'deployment-codehost.yaml',
        'deployment-external-docker.yaml',
        'oauth-provider.yaml',
      ]),
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
      const got = await kubectl([
        'get',
        `${manifest.kind.toLowerCase()}s.berth.dev`,
        manifest.metadata.name,
        '-n',
        namespace,
        '-o',
        'json',
      ]);
      expect(got.code).toBe(0);
      expect((JSON.parse(got.stdout) as Manifest).spec).toMatchObject(manifest.spec!);
    }
  });
});

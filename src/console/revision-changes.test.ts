import { describe, expect, it } from 'vitest';
import type { Revision } from './api.ts';
import { revisionChanges } from './revision-changes.ts';

const revision = (config: Record<string, unknown>, secretNames: string[] = []) =>
  ({ source_revision_config: config, secret_names: secretNames }) as unknown as Revision;

describe('revisionChanges', () => {
  it("names each member of source_revision_config that changed, and the secrets' names added and removed", () => {
    expect(revisionChanges(revision({ image_uri: 'shop:1' }, ['A', 'B']), revision({ image_uri: 'shop:2' }, ['B', 'C']))).toEqual([
      'image_uri: shop:1 → shop:2',
      'secrets added: C',
      'secrets removed: A',
    ]);
  });

  it("says the secrets' values changed where nothing else did", () => {
    expect(revisionChanges(revision({ image_uri: 'shop:1' }, ['A']), revision({ image_uri: 'shop:1' }, ['A']))).toEqual([
      'secret values changed',
    ]);
  });

  it('says nothing of secrets for revisions made before their names were kept', () => {
    expect(revisionChanges(revision({ image_uri: 'shop:1' }), revision({ image_uri: 'shop:1' }))).toEqual([]);
    expect(revisionChanges(undefined, revision({}, ['A']))).toEqual(['first revision']);
  });
});

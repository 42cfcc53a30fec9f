import { describe, expect, it } from 'vitest';
import { buildKey, reusableBuild, type BuildInputs } from './build-reuse.ts';
import { summarize } from '../revisions/revision-records.ts';
import type { Revision } from '../../../api/index.ts';

const images = { git: 'git:1', tools: 'node:24', builder: 'buildkit:1', agentTools: 'python:3.11' };
const archive: BuildInputs = {
  sources: { kind: 'archive', manifestUrl: 'http://r/v2/o/d/sources/manifests/u1', blobsUrl: 'http://r/v2/o/d/sources/blobs' },
  pinned: true,
  images,
};
const repository = (repoRef: string, pinned: boolean): BuildInputs => ({
  sources: { kind: 'repository', repoUrl: 'https://github.com/acme/app', repoRef, credentialsSecretName: 'token' },
  pinned,
  installCommand: 'npm ci',
  images,
});

describe('buildKey', () => {
  it('is the same for the same inputs, whatever the order of the images or the credentials used', () => {
    const reordered = { ...archive, images: { agentTools: 'python:3.11', builder: 'buildkit:1', tools: 'node:24', git: 'git:1' } };
    expect(buildKey(reordered)).toBe(buildKey(archive));
    const commit = repository('3f9b2c1d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c', true);
    const sources = { ...commit.sources, credentialsSecretName: 'other' } as BuildInputs['sources'];
    expect(buildKey({ ...commit, sources })).toBe(buildKey(commit));
  });

  it('changes with the sources, a command, the configuration file or a build image', () => {
    const key = buildKey(archive);
    const others: BuildInputs[] = [
      { ...archive, sources: { ...archive.sources, manifestUrl: 'http://r/v2/o/d/sources/manifests/u2' } as BuildInputs['sources'] },
      { ...archive, installCommand: 'pip install .' },
      { ...archive, buildCommand: 'make' },
      { ...archive, graphConfigPath: 'agents/langgraph.json' },
      { ...archive, images: { ...images, agentServer: 'agent-server:2' } },
    ];
    for (const other of others) expect(buildKey(other)).not.toBe(key);
  });

  it('is none for a branch, whose head moves', () => {
    expect(buildKey(repository('main', false))).toBeUndefined();
  });
});

describe('reusableBuild', () => {
  const revision = (name: string, created: string, status: Revision['status']) =>
    summarize({
      apiVersion: 'berth.dev/v1alpha1',
      kind: 'Revision',
      metadata: { name, uid: name, creationTimestamp: created as unknown as Date },
      spec: { deploymentName: 'app', source: 'internal_source', sourceRevisionConfig: {}, digest: name },
      ...(status ? { status } : {}),
    } as Revision);

  it("takes the newest other revision built from the key, never the target's own or one without an image", () => {
    const revisions = [
      revision('a', '2026-12-01T10:00:00Z', { imageUri: 'r/app:a@sha256:1', buildKey: 'k' }),
      revision('b', '2026-12-01T11:00:00Z', { imageUri: 'r/app:b@sha256:2', buildKey: 'k' }),
      revision('c', '2026-12-01T12:00:00Z', { buildKey: 'k' }),
      revision('d', '2026-12-01T13:00:00Z', { imageUri: 'r/app:d@sha256:4', buildKey: 'other' }),
    ];
    expect(reusableBuild(revisions, 'k', 'e')).toEqual({ revision: 'b', image: 'r/app:b@sha256:2' });
    expect(reusableBuild(revisions, 'k', 'b')).toEqual({ revision: 'a', image: 'r/app:a@sha256:1' });
    expect(reusableBuild(revisions, 'none', 'e')).toBeUndefined();
  });
});

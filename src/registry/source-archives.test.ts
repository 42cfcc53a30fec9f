import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { archiveCheck, archiveConfig, archiveManifest, sourceArchivePath, sourceArchiveUrls, uploadIdOf } from './source-archives.ts';

const id = '0123456789abcdef0123456789abcdef';

describe('source archives', () => {
  it('name an upload by a path relative to its deployment, and read the id back only from such a path', () => {
    expect(sourceArchivePath(id)).toBe(`sources/${id}.tar.gz`);
    expect(uploadIdOf(sourceArchivePath(id))).toBe(id);
    for (const path of ['sources/../x.tar.gz', `other/${id}.tar.gz`, `sources/${id}.tgz`, `sources/${id.toUpperCase()}.tar.gz`])
      expect(uploadIdOf(path)).toBeUndefined();
  });

  it("live in the build registry's <namespace>/<deployment>/sources repository, under its path prefix", () => {
    expect(sourceArchiveUrls('10.243.0.1:5000', 'team-a', 'shop', id)).toEqual({
      manifestUrl: `http://10.243.0.1:5000/v2/team-a/shop/sources/manifests/${id}`,
      blobsUrl: 'http://10.243.0.1:5000/v2/team-a/shop/sources/blobs',
    });
    expect(sourceArchiveUrls('registry.local/builds/', 'team-a', 'shop', id).manifestUrl).toBe(
      `http://registry.local/v2/builds/team-a/shop/sources/manifests/${id}`,
    );
  });

  it('are one-layer OCI images: the layer the archive, the config its uncompressed digest', () => {
    const layer = `sha256:${'d'.repeat(64)}`;
    const manifest = archiveManifest({ digest: `sha256:${'c'.repeat(64)}`, size: 2 }, { digest: layer, size: 10 });
    expect(JSON.parse(manifest)).toMatchObject({
      schemaVersion: 2,
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layer, size: 10 }],
    });
    expect(JSON.parse(archiveConfig(`sha256:${'e'.repeat(64)}`)).rootfs).toEqual({
      type: 'layers',
      diff_ids: [`sha256:${'e'.repeat(64)}`],
    });
  });
});

describe('archiveCheck', () => {
  const limits = { bytes: 1024 * 1024, unpackedBytes: 16 * 1024 * 1024 };
  const check = async (archive: Buffer) => {
    const { stream, done } = archiveCheck(limits);
    const sink = new PassThrough().resume();
    await Promise.allSettled([pipeline(Readable.from([archive]), stream, sink)]);
    return done;
  };

  it('passes a whole gzip through, with its digests', async () => {
    const archive = gzipSync(Buffer.from('a small source tree'));
    await expect(check(archive)).resolves.toMatchObject({ layer: { size: archive.length, digest: expect.stringMatching(/^sha256:/) } });
  });

  it('refuses an archive that unpacks to more than its bound, and stops inflating it (a gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(limits.bytes);
    await expect(check(bomb)).rejects.toMatchObject({
      statusCode: 413,
      message: `The archive unpacks to more than ${limits.unpackedBytes} bytes.`,
    });
  });

  it('refuses what is not gzip, and what is larger than its bound', async () => {
    await expect(check(Buffer.from('plain text'))).rejects.toMatchObject({ statusCode: 400 });
    await expect(check(Buffer.alloc(limits.bytes + 1))).rejects.toMatchObject({ statusCode: 413 });
  });
});

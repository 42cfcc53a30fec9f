// Uploaded source archives (internal_source deployments), kept in the registry builds push to as one-layer
// OCI images: repository `<namespace>/<deployment>/sources`, tagged by upload id. The layer is the archive
// as uploaded (a gzipped tar); the config names its uncompressed digest, so any OCI tool reads it back.
// Storing streams the upload through to the registry (nothing on disk, nothing whole in memory), checks
// on the way that it is gzip and within the size limit, and commits only then: a refused upload leaves
// no manifest. The build Job's fetch step reads the manifest and the layer over the same HTTP API.
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { sourceArchivePathPattern } from '../api/index.ts';

/** Largest archive an upload may carry: what the reference's deploy tool says it sends at most. */
export const maxSourceArchiveBytes = 200 * 1024 * 1024;
/** Largest size an archive may unpack to: a gzip of zeros inflates a thousandfold (a 200 MiB upload to 200 GiB). */
export const maxSourceArchiveUnpackedBytes = 2 * 1024 * 1024 * 1024;

/** What an archive may weigh, as uploaded and unpacked. */
export interface ArchiveLimits {
  bytes: number;
  unpackedBytes: number;
}

const manifestType = 'application/vnd.oci.image.manifest.v1+json';
const configType = 'application/vnd.oci.image.config.v1+json';
const layerType = 'application/vnd.oci.image.layer.v1.tar+gzip';

export function sourceArchivePath(uploadId: string): string {
  return `sources/${uploadId}.tar.gz`;
}

/** The upload id an object path names, if it is one an upload URL answered. */
export function uploadIdOf(objectPath: string): string | undefined {
  return sourceArchivePathPattern.test(objectPath) ? objectPath.slice('sources/'.length, -'.tar.gz'.length) : undefined;
}

interface Location {
  /** `http://host[:port]`: the registry's API root. */
  base: string;
  repository: string;
  /** Berth's own credential for the repository, when the registry wants one. */
  headers: Record<string, string>;
}

/** `registry` is host[:port][/prefix], as builds push to it (`<registry>/<namespace>/<deployment>:<tag>`). */
function locate(registry: string, namespace: string, deployment: string): Location {
  const [host, ...prefix] = registry.replace(/\/+$/, '').split('/');
  return { base: `http://${host}`, repository: [...prefix, namespace, deployment, 'sources'].join('/'), headers: {} };
}

/** Where the build Job reads an archive: its manifest, and the blobs its layer digest is found among. */
export function sourceArchiveUrls(
  registry: string,
  namespace: string,
  deployment: string,
  uploadId: string,
): { manifestUrl: string; blobsUrl: string } {
  const { base, repository } = locate(registry, namespace, deployment);
  return { manifestUrl: `${base}/v2/${repository}/manifests/${uploadId}`, blobsUrl: `${base}/v2/${repository}/blobs` };
}

interface Descriptor {
  digest: string;
  size: number;
}

/** The manifest, compact, `layers` holding one descriptor that starts with its mediaType and digest (the fetch step reads it so). */
export function archiveManifest(config: Descriptor, layer: Descriptor): string {
  return JSON.stringify({
    schemaVersion: 2,
    mediaType: manifestType,
    config: { mediaType: configType, digest: config.digest, size: config.size },
    layers: [{ mediaType: layerType, digest: layer.digest, size: layer.size }],
    annotations: { 'org.opencontainers.image.title': 'sources.tar.gz' },
  });
}

export function archiveConfig(uncompressedDigest: string): string {
  return JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [uncompressedDigest] }, config: {} });
}

/** An upload the store refused: the HTTP status to answer and why. */
export class SourceArchiveError extends Error {
  readonly statusCode: 400 | 413 | 502;

  constructor(statusCode: 400 | 413 | 502, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}

export interface StoredArchive {
  digest: string;
  size: number;
}

export interface SourceArchiveStore {
  exists(namespace: string, deployment: string, uploadId: string): Promise<boolean>;
  store(namespace: string, deployment: string, uploadId: string, body: Readable): Promise<StoredArchive>;
}

const sha256 = (data: Buffer | string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** A bearer token for pull and push of one repository, which Berth signs for itself. */
export type RepositoryAuthorizer = (repository: string) => string;

export function registrySourceArchives(
  registry: string,
  limits: ArchiveLimits = { bytes: maxSourceArchiveBytes, unpackedBytes: maxSourceArchiveUnpackedBytes },
  authorize?: RepositoryAuthorizer,
): SourceArchiveStore {
  const where = (namespace: string, deployment: string): Target => {
    const at = locate(registry, namespace, deployment);
    return { registry, ...at, ...(authorize ? { headers: { Authorization: `Bearer ${authorize(at.repository)}` } } : {}) };
  };
  return {
    exists: (namespace, deployment, uploadId) => archiveExists(where(namespace, deployment), uploadId),
    async store(namespace, deployment, uploadId, body) {
      const at = where(namespace, deployment);
      const { layer, uncompressed } = await putArchive(at, body, limits);
      const config = await putBlob(at, archiveConfig(uncompressed));
      const manifest = { method: 'PUT', body: archiveManifest(config, layer), headers: { 'Content-Type': manifestType } };
      await call(at, `${at.base}/v2/${at.repository}/manifests/${uploadId}`, manifest, 201, 'manifest');
      return layer;
    },
  };
}

/** A repository of the registry, named in the errors as the registry is configured. */
interface Target extends Location {
  registry: string;
}

function unavailable(at: Target, what: string, detail: string): SourceArchiveError {
  return new SourceArchiveError(502, `The registry ${at.registry} did not take the archive (${what}: ${detail}).`);
}

async function call(
  at: Target,
  url: string,
  init: RequestInit & { duplex?: 'half'; headers?: Record<string, string> },
  expected: number,
  what: string,
): Promise<Response> {
  const response = await fetch(url, { ...init, headers: { ...init.headers, ...at.headers } }).catch((error: unknown) => {
    throw unavailable(at, what, (error as Error).message);
  });
  if (response.status !== expected) throw unavailable(at, what, `HTTP ${response.status}`);
  return response;
}

const nextLocation = (response: Response, base: string) => new URL(response.headers.get('location') ?? '', base).toString();
const withDigest = (location: string, digest: string) =>
  `${location}${location.includes('?') ? '&' : '?'}digest=${encodeURIComponent(digest)}`;

async function archiveExists(at: Target, uploadId: string): Promise<boolean> {
  const response = await fetch(`${at.base}/v2/${at.repository}/manifests/${uploadId}`, {
    method: 'HEAD',
    headers: { Accept: manifestType, ...at.headers },
  }).catch((error: unknown) => {
    throw unavailable(at, 'lookup', (error as Error).message);
  });
  if (response.status === 200) return true;
  if (response.status === 404) return false;
  throw unavailable(at, 'lookup', `HTTP ${response.status}`);
}

/** A blob in one request (small: the config). */
async function putBlob(at: Target, data: string): Promise<Descriptor> {
  const started = await call(at, `${at.base}/v2/${at.repository}/blobs/uploads/`, { method: 'POST' }, 202, 'start upload');
  const digest = sha256(data);
  const upload = { method: 'PUT', body: data, headers: { 'Content-Type': 'application/octet-stream' } };
  await call(at, withDigest(nextLocation(started, at.base), digest), upload, 201, 'config');
  return { digest, size: Buffer.byteLength(data) };
}

/** The archive, streamed as one chunk of a chunked upload, committed only once it checked out. */
async function putArchive(at: Target, body: Readable, limits: ArchiveLimits): Promise<{ layer: Descriptor; uncompressed: string }> {
  const started = await call(at, `${at.base}/v2/${at.repository}/blobs/uploads/`, { method: 'POST' }, 202, 'start upload');
  const session = nextLocation(started, at.base);
  const check = archiveCheck(limits);
  body.on('error', (error) => check.stream.destroy(error));
  body.pipe(check.stream);
  try {
    const sent = await fetch(session, {
      method: 'PATCH',
      body: check.stream,
      duplex: 'half',
      headers: { 'Content-Type': 'application/octet-stream', ...at.headers },
    } as RequestInit);
    const outcome = await check.done;
    if (sent.status !== 202) throw unavailable(at, 'archive', `HTTP ${sent.status}`);
    await call(at, withDigest(nextLocation(sent, at.base), outcome.layer.digest), { method: 'PUT' }, 201, 'commit');
    return outcome;
  } catch (error) {
    // Best effort: the failure thrown below is the one to report, and an upload never committed makes no blob.
    await fetch(session, { method: 'DELETE', headers: at.headers }).catch(() => undefined);
    throw check.failure() ?? (error instanceof SourceArchiveError ? error : unavailable(at, 'archive', (error as Error).message));
  }
}

/**
 * A pass-through that counts, hashes, and gunzips on the side: `done` resolves with the archive's
 * digest, size and uncompressed digest once all of it arrived and it was whole gzip, and rejects (the
 * stream with it) as soon as it is too large, unpacks to too much, or is not gzip.
 */
export function archiveCheck(limits: ArchiveLimits) {
  const compressed = createHash('sha256');
  const uncompressed = createHash('sha256');
  const gunzip = createGunzip();
  let size = 0;
  let unpacked = 0;
  let failure: SourceArchiveError | undefined;
  const { promise: done, ...settle } = Promise.withResolvers<{ layer: Descriptor; uncompressed: string }>();
  // Handled here so a failure before putArchive awaits `done` is no unhandled rejection; the awaiter still gets it.
  done.catch(() => undefined);
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limits.bytes) return callback(fail(new SourceArchiveError(413, `The archive is larger than ${limits.bytes} bytes.`)));
      if (failure) return callback(failure);
      compressed.update(chunk);
      gunzip.write(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      gunzip.end();
      callback();
    },
  });
  /** The first failure ends the check, the stream (if still running) and the inflation. */
  function fail(error: SourceArchiveError): SourceArchiveError {
    if (failure) return failure;
    failure = error;
    settle.reject(error);
    stream.destroy(error);
    gunzip.destroy();
    return error;
  }
  gunzip.on('data', (chunk: Buffer) => {
    unpacked += chunk.length;
    if (unpacked > limits.unpackedBytes)
      fail(new SourceArchiveError(413, `The archive unpacks to more than ${limits.unpackedBytes} bytes.`));
    else uncompressed.update(chunk);
  });
  gunzip.once('error', () => fail(new SourceArchiveError(400, 'The upload is not a gzip-compressed archive (a .tar.gz of the sources).')));
  gunzip.once('end', () =>
    settle.resolve({ layer: { digest: `sha256:${compressed.digest('hex')}`, size }, uncompressed: `sha256:${uncompressed.digest('hex')}` }),
  );
  stream.once('error', (error) => settle.reject(failure ?? error));
  return { stream, done, failure: () => failure };
}

// Source uploads for internal_source deployments, as the reference's deploy tool makes them: it asks
// POST /v2/deployments/{id}/upload-url for a URL and an object path, PUTs the gzipped tar there, then
// PATCHes the deployment with revision_source internal_source and source_tarball_path = object path.
// The URL is this API's own: a short-lived, single-use, size-limited PUT, authorized by the signed
// token in its path (no API key: the tool sends none there), that streams the archive to the registry
// builds push to (src/registry/source-archives.ts).
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { offerRefusal, timestamp } from '../../api/index.ts';
import { mintUploadToken, verifyUploadToken } from '../../registry/tokens.ts';
import { maxSourceArchiveBytes, SourceArchiveError, sourceArchivePath, uploadIdOf } from '../../registry/source-archives.ts';
import { badRequest, conflict, HttpError, invalidField, notFound } from '../errors.ts';
import type { FacadeDependencies } from '../ports.ts';
import { tenantOf, uuidPathParam } from '../request.ts';
import { selfHostedPrefix } from '../server.ts';
import { deploymentById } from './deployment-answers.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { uploadResponseSchema, uploadUrlResponseSchema } from '../wire-schemas.ts';

/** The headers the PUT must carry, as the response tells the client. */
const uploadHeaders = { 'Content-Type': 'application/gzip' };

const uploadRoutes = {
  uploadUrl: {
    method: 'POST',
    url: '/v2/deployments/:deployment_id/upload-url',
    summary: 'Issue a source upload URL',
    description:
      'A short-lived, single-use URL to PUT a source archive (.tar.gz) for this internal_source deployment, and the object_path to PATCH as ' +
      'source_revision_config.source_tarball_path (with revision_source internal_source) to build it. 400 for other sources.',
    success: { status: 200, description: 'The upload URL.', schema: uploadUrlResponseSchema },
  },
  upload: {
    method: 'PUT',
    url: '/v2/uploads/:upload_token',
    summary: 'Upload a source archive',
    description:
      'The upload_url of POST /v2/deployments/{deployment_id}/upload-url: the signed token in the path authorizes one archive (gzip, at most 200 MiB, unpacking to at most 2 GiB) ' +
      'for one deployment, once, until it expires. 403 for a token that is not valid, 409 once used, 413 too large, 400 not gzip.',
    body: { schema: { jsonSchema: { type: 'string', format: 'binary' } }, required: true, contentType: 'application/gzip' },
    success: { status: 200, description: 'The archive is stored.', schema: uploadResponseSchema },
    public: true,
  },
} satisfies Record<string, RouteSpec>;

/** The store's refusals (too large, not gzip, registry unreachable) as the client's error; anything else as it is. */
function asHttpError(error: unknown): unknown {
  return error instanceof SourceArchiveError ? new HttpError(error.statusCode, error.message) : error;
}

/**
 * The URL the client PUTs the archive to, under the prefix it called: the installation's public URL
 * when it has one (--public-url), else where this request reached the API (its Host header, which the
 * caller chose and which a proxy in between may have too). Pure.
 */
export function uploadUrl(request: Pick<FastifyRequest, 'url' | 'protocol' | 'host'>, token: string, publicUrl?: string): string {
  const prefix = request.url.startsWith(`${selfHostedPrefix}/`) ? selfHostedPrefix : '';
  const base = publicUrl ?? `${request.protocol}://${request.host}`;
  return `${base}${prefix}${uploadRoutes.upload.url.replace(':upload_token', token)}`;
}

/**
 * A source_tarball_path a create or PATCH names must be an archive uploaded for this deployment: else
 * the request is refused (422) and changes nothing, instead of a revision whose build cannot fetch it.
 */
export async function checkUploaded(
  deps: Pick<FacadeDependencies, 'uploads'>,
  namespace: string,
  deployment: string,
  objectPath: string | null | undefined,
): Promise<void> {
  if (objectPath == null) return;
  const loc = ['body', 'source_revision_config', 'source_tarball_path'];
  if (!deps.uploads) throw invalidField(loc, 'this installation takes no source uploads (berth run --push-registry)');
  const uploadId = uploadIdOf(objectPath);
  const uploaded =
    uploadId !== undefined &&
    (await deps.uploads.store.exists(namespace, deployment, uploadId).catch((error: unknown) => {
      throw asHttpError(error);
    }));
  if (!uploaded)
    throw invalidField(loc, `nothing was uploaded to ${objectPath} for this deployment: PUT the archive to the upload_url first`);
}

export function registerUploadRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  const uploads = deps.uploads;
  const nowSeconds = () => Math.floor((uploads?.now?.() ?? Date.now()) / 1000);

  serve<{ Params: { deployment_id: string } }>(app, uploadRoutes.uploadUrl, async (request) => {
    const tenant = tenantOf(request, deps.cache);
    const deployment = deploymentById(deps.cache, tenant.namespace, uuidPathParam(request, 'deployment_id'));
    const refused = offerRefusal(deployment.spec.source, 'uploadUrl', 'Upload URLs');
    if (refused) throw badRequest(refused);
    if (!uploads)
      throw badRequest(
        'This installation takes no source uploads (berth run --push-registry): build the image elsewhere and use an internal_docker deployment.',
      );
    const uploadId = randomBytes(16).toString('hex');
    const expiresAt = nowSeconds() + (uploads.ttlSeconds ?? 900);
    const token = mintUploadToken(uploads.key, {
      namespace: tenant.namespace,
      deployment: deployment.metadata.name ?? '',
      deploymentUid: deployment.metadata.uid ?? '',
      uploadId,
      expiresAt,
    });
    return {
      upload_url: uploadUrl(request, token, deps.publicUrl),
      object_path: sourceArchivePath(uploadId),
      upload_headers: uploadHeaders,
      expires_at: timestamp(new Date(expiresAt * 1000)),
    };
  });

  // The archive is read as a stream, not parsed: whatever its content type says.
  void app.register(async (scope) => {
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    serve<{ Params: { upload_token: string } }>(scope, uploadRoutes.upload, async (request) => {
      if (!uploads) throw notFound('This installation takes no source uploads.');
      const grant = verifyUploadToken(uploads.key, request.params.upload_token, nowSeconds());
      if (!grant)
        throw new HttpError(403, 'The upload URL is not valid or has expired: ask POST /v2/deployments/{id}/upload-url for a new one.');
      const deployment = deps.cache.deployments.get(grant.namespace, grant.deployment);
      if (deployment?.metadata.uid !== grant.deploymentUid) throw notFound('The deployment this upload URL was made for no longer exists.');
      const limit = uploads.maxBytes ?? maxSourceArchiveBytes;
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > limit) throw new HttpError(413, `The archive is larger than ${limit} bytes.`);
      const body = request.body as Readable | undefined;
      if (!body || typeof body.pipe !== 'function') throw badRequest('The upload has no body: PUT the archive (a .tar.gz of the sources).');
      try {
        if (await uploads.store.exists(grant.namespace, grant.deployment, grant.uploadId))
          throw conflict('This upload URL was used already: ask for a new one.');
        const stored = await uploads.store.store(grant.namespace, grant.deployment, grant.uploadId, body);
        return { object_path: sourceArchivePath(grant.uploadId), digest: stored.digest, size: stored.size };
      } catch (error) {
        throw asHttpError(error);
      } finally {
        // What a refused upload still sends is read and dropped, so the connection stays usable.
        if (!body.readableEnded) body.unpipe().resume();
      }
    });
  });
}

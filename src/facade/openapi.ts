// The OpenAPI 3.1 document of the facade, generated from the same zod schemas that validate requests
// and describe responses (JSON Schema 2020-12 is OpenAPI 3.1's schema dialect). Served at /openapi.json.
import { z } from 'zod';
import { logFilterSchema, logPageSchema } from './logs.ts';
import { pageQuerySchema } from './pagination.ts';
import { deploymentListQuerySchema } from './routes/deployments.ts';
import { logQuerySchema } from './routes/logs.ts';
import { selfHostedPrefix } from './server.ts';
import {
  deploymentCreateSchema,
  deploymentPatchSchema,
  deploymentResponseSchema,
  errorResponseSchema,
  listenerResponseSchema,
  pageSchema,
  providerCreateSchema,
  providerResponseSchema,
  providerUpdateSchema,
  repositoryResponseSchema,
  revisionResponseSchema,
} from './wire-schemas.ts';

type JsonObject = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject) => ({ content: { 'application/json': { schema } } });

const errors = {
  '400': { description: 'The request cannot be served as sent, e.g. the code host refused the integration\'s credentials.', ...json(ref('Error')) },
  '401': { description: 'Missing or invalid API key, or an organization the key cannot reach.', ...json(ref('Error')) },
  '404': { description: 'No such object in the organization.', ...json(ref('Error')) },
  '409': { description: 'The object already exists, or changed while it was being written; try again.', ...json(ref('Error')) },
  '413': { description: 'The body is larger than the server accepts.', ...json(ref('Error')) },
  '415': { description: 'The body is not application/json.', ...json(ref('Error')) },
  '422': { description: 'The request is not valid: one entry per invalid member.', ...json(ref('Error')) },
  '503': { description: 'The Kubernetes API server is busy; try again.', ...json(ref('Error')) },
};

function pathParam(name: string, description: string, uuid = true) {
  return { name, in: 'path', required: true, description, schema: uuid ? { type: 'string', format: 'uuid' } : { type: 'string' } };
}

const queryParams = (schema: z.ZodType) =>
  Object.entries((jsonSchema(schema, 'input').properties ?? {}) as Record<string, JsonObject>).map(([name, property]) => ({
    name,
    in: 'query',
    required: false,
    schema: property,
  }));
const pageParams = queryParams(pageQuerySchema);

function operation(summary: string, success: { status: string; description: string; schema?: JsonObject }, extra: JsonObject = {}) {
  const parameters = [{ $ref: '#/components/parameters/tenantId' }, ...((extra.parameters as unknown[] | undefined) ?? [])];
  return {
    summary,
    ...extra,
    parameters,
    responses: {
      [success.status]: { description: success.description, ...(success.schema ? json(success.schema) : {}) },
      ...errors,
    },
  };
}

export function openApiDocument(): JsonObject {
  const deploymentId = pathParam('deployment_id', 'ID of the deployment.');
  const providerId = pathParam('provider_id', 'The OAuth provider identifier.', false);
  const revisionId = pathParam('revision_id', 'ID of the revision.');
  const projectId = pathParam('project_id', 'ID of the deployment (the older API calls it a project).');
  const logPage = { status: '200', description: 'One page of log lines.', schema: ref('LogPage') };
  const logBody = { requestBody: { required: false, ...json(ref('LogFilter')) } };
  return {
    openapi: '3.1.0',
    info: { title: 'Berth', version: 'v2', description: 'Deployments, their revisions, OAuth providers and code-host repositories.' },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
      parameters: {
        tenantId: {
          name: 'X-Tenant-Id',
          in: 'header',
          required: false,
          description: 'Organization to act in, among those the API key reaches. Default: the key\'s first.',
          schema: { type: 'string', format: 'uuid' },
        },
      },
      schemas: {
        OAuthProviderCreate: jsonSchema(providerCreateSchema, 'input'),
        OAuthProviderUpdate: jsonSchema(providerUpdateSchema, 'input'),
        OAuthProvider: jsonSchema(providerResponseSchema, 'output'),
        DeploymentCreate: jsonSchema(deploymentCreateSchema, 'input'),
        DeploymentPatch: jsonSchema(deploymentPatchSchema, 'input'),
        Deployment: jsonSchema(deploymentResponseSchema, 'output'),
        Revision: jsonSchema(revisionResponseSchema, 'output'),
        Repository: jsonSchema(repositoryResponseSchema, 'output'),
        Listener: jsonSchema(listenerResponseSchema, 'output'),
        Error: jsonSchema(errorResponseSchema, 'output'),
        LogFilter: jsonSchema(logFilterSchema, 'input'),
        LogPage: jsonSchema(logPageSchema, 'output'),
      },
    },
    servers: [
      { url: '/', description: 'Berth' },
      { url: selfHostedPrefix, description: "The same routes under the reference control plane's self-hosted prefix." },
    ],
    security: [{ apiKey: [] }],
    paths: {
      '/v2/auth/providers': {
        post: operation('Create an OAuth provider', { status: '200', description: 'The provider (without its secret).', schema: ref('OAuthProvider') }, {
          requestBody: { required: true, ...json(ref('OAuthProviderCreate')) },
        }),
        get: operation('List OAuth providers', { status: '200', description: 'One page of providers.', schema: jsonSchema(pageSchema(providerResponseSchema), 'output') }, {
          parameters: pageParams,
        }),
      },
      '/v2/auth/providers/{provider_id}': {
        parameters: [providerId],
        get: operation('Read an OAuth provider', { status: '200', description: 'The provider.', schema: ref('OAuthProvider') }),
        patch: operation('Update an OAuth provider', { status: '200', description: 'The provider.', schema: ref('OAuthProvider') }, {
          requestBody: { required: true, ...json(ref('OAuthProviderUpdate')) },
        }),
        delete: operation('Delete an OAuth provider', { status: '204', description: 'Deleted.' }),
      },
      '/v1/integrations/codehost/{integration_id}/repos': {
        parameters: [pathParam('integration_id', 'ID of the code-host integration.')],
        get: operation('List repositories of a code-host integration', {
          status: '200',
          description: 'Every repository the integration reaches.',
          schema: { type: 'array', items: ref('Repository') },
        }),
      },
      '/v2/listeners': {
        get: operation('List listeners', { status: '200', description: "The organization's one listener: the cluster Berth runs in.", schema: jsonSchema(pageSchema(listenerResponseSchema), 'output') }, {
          parameters: pageParams,
        }),
      },
      '/v2/listeners/{listener_id}': {
        parameters: [pathParam('listener_id', 'ID of the listener.')],
        get: operation('Read a listener', { status: '200', description: 'The listener.', schema: ref('Listener') }),
      },
      '/v2/deployments/{deployment_id}/push-token': {
        parameters: [deploymentId],
        post: operation('Issue a push credential', {
          status: '200',
          description: "A short-lived credential that can push only this internal_docker deployment's repository in Berth's registry (docker login, then docker push). 400 for other sources.",
          schema: {
            type: 'object',
            required: ['registry_url', 'repository_url', 'username', 'token', 'expires_at'],
            properties: {
              registry_url: { type: 'string' },
              repository_url: { type: 'string' },
              username: { type: 'string' },
              token: { type: 'string' },
              expires_at: { type: 'string', format: 'date-time' },
            },
          },
        }),
      },
      '/v2/deployments/{deployment_id}/upload-url': {
        parameters: [deploymentId],
        post: operation('Issue a source upload URL', {
          status: '200',
          description:
            'A short-lived, single-use URL to PUT a source archive (.tar.gz) for this internal_source deployment, and the object_path to PATCH as ' +
            'source_revision_config.source_tarball_path (with revision_source internal_source) to build it. 400 for other sources.',
          schema: {
            type: 'object',
            required: ['upload_url', 'object_path', 'upload_headers', 'expires_at'],
            properties: {
              upload_url: { type: 'string' },
              object_path: { type: 'string' },
              upload_headers: { type: 'object', additionalProperties: { type: 'string' } },
              expires_at: { type: 'string', format: 'date-time' },
            },
          },
        }),
      },
      '/v2/uploads/{upload_token}': {
        put: {
          summary: 'Upload a source archive',
          description:
            'The upload_url of POST /v2/deployments/{deployment_id}/upload-url: the signed token in the path authorizes one archive (gzip, at most 200 MiB) ' +
            'for one deployment, once, until it expires. 403 for a token that is not valid, 409 once used, 413 too large, 400 not gzip.',
          security: [],
          parameters: [{ name: 'upload_token', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } },
          responses: {
            '200': {
              description: 'The archive is stored.',
              ...json({ type: 'object', required: ['object_path', 'digest', 'size'], properties: { object_path: { type: 'string' }, digest: { type: 'string' }, size: { type: 'integer' } } }),
            },
            ...errors,
          },
        },
      },
      '/v2/registry/token': {
        get: {
          summary: "The registry's token endpoint",
          description: "The realm of the registry's token authentication: Basic credentials from a push credential (or none, for pull) in, a bearer token for the granted scopes out. Called by docker and containerd, not by API clients.",
          security: [],
          parameters: [
            { name: 'service', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'scope', in: 'query', required: false, schema: { type: 'string' }, description: 'repository:<name>:pull,push; repeatable.' },
          ],
          responses: {
            '200': { description: 'A bearer token.', ...json({ type: 'object', required: ['token', 'expires_in'], properties: { token: { type: 'string' }, access_token: { type: 'string' }, expires_in: { type: 'integer' }, issued_at: { type: 'string' } } }) },
            ...errors,
          },
        },
      },
      '/v2/deployments': {
        post: operation('Create a deployment', { status: '201', description: 'The deployment.', schema: ref('Deployment') }, {
          requestBody: { required: true, ...json(ref('DeploymentCreate')) },
        }),
        get: operation('List deployments', { status: '200', description: 'One page of deployments.', schema: jsonSchema(pageSchema(deploymentResponseSchema), 'output') }, {
          parameters: queryParams(deploymentListQuerySchema),
        }),
      },
      '/v2/deployments/{deployment_id}': {
        parameters: [deploymentId],
        get: operation('Read a deployment', { status: '200', description: 'The deployment.', schema: ref('Deployment') }),
        patch: operation(
          'Patch a deployment',
          { status: '200', description: 'The deployment once the controller has observed the patch.', schema: ref('Deployment') },
          { requestBody: { required: true, ...json(ref('DeploymentPatch')) } },
        ),
        delete: operation('Delete a deployment', { status: '204', description: 'Deleted.' }),
      },
      '/v2/deployments/{deployment_id}/revisions': {
        parameters: [deploymentId],
        get: operation('List revisions of a deployment, newest first', {
          status: '200',
          description: 'One page of revisions.',
          schema: jsonSchema(pageSchema(revisionResponseSchema), 'output'),
        }, { parameters: pageParams }),
      },
      '/v2/deployments/{deployment_id}/revisions/{revision_id}': {
        parameters: [deploymentId, revisionId],
        get: operation('Read a revision', { status: '200', description: 'The revision.', schema: ref('Revision') }),
      },
      '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy': {
        parameters: [deploymentId, revisionId],
        post: operation('Serve this revision again (a rollback)', { status: '200', description: 'The deployment.', schema: ref('Deployment') }),
      },
      '/v2/deployments/{deployment_id}/revisions/{revision_id}/logs': {
        parameters: [deploymentId, revisionId],
        get: operation("Read a revision's deploy or build logs", logPage, { parameters: queryParams(logQuerySchema) }),
      },
      '/v1/projects/{project_id}/revisions/{revision_id}/build_logs': {
        parameters: [projectId, revisionId],
        post: operation("Read a revision's build logs (older form)", logPage, logBody),
      },
      '/v1/projects/{project_id}/revisions/{revision_id}/deploy_logs': {
        parameters: [projectId, revisionId],
        post: operation("Read a revision's deploy logs (older form)", logPage, logBody),
      },
      '/v1/projects/{project_id}/deploy_logs': {
        parameters: [projectId],
        post: operation("Read the deploy logs of every revision of a deployment (older form)", logPage, logBody),
      },
    },
  };
}

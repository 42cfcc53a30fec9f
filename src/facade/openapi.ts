// The OpenAPI 3.1 document of the facade, made from the declarations of the routes the app serves
// (route-spec.ts) and the zod schemas that validate their requests and describe their answers (JSON
// Schema 2020-12 is OpenAPI 3.1's schema dialect). Served at /openapi.json.
import { z } from 'zod';
import { logFilterSchema, logPageSchema } from './logs.ts';
import { pathParameters, type JsonObject, type RouteSpec, type SchemaSource } from './route-spec.ts';
import { selfHostedPrefix } from './server.ts';
import {
  deploymentCreateSchema,
  deploymentPatchSchema,
  deploymentResponseSchema,
  errorResponseSchema,
  listenerResponseSchema,
  providerCreateSchema,
  providerResponseSchema,
  providerUpdateSchema,
  repositoryResponseSchema,
  revisionResponseSchema,
  databaseBackupResponseSchema,
  databaseRestoreRequestSchema,
  databaseRestoreResponseSchema,
  redeploymentResponseSchema,
} from './wire-schemas.ts';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

/** The document's named schemas, which routes refer to by name. */
const components: Record<string, { schema: z.ZodType; io: 'input' | 'output' }> = {
  OAuthProviderCreate: { schema: providerCreateSchema, io: 'input' },
  OAuthProviderUpdate: { schema: providerUpdateSchema, io: 'input' },
  OAuthProvider: { schema: providerResponseSchema, io: 'output' },
  DeploymentCreate: { schema: deploymentCreateSchema, io: 'input' },
  DeploymentPatch: { schema: deploymentPatchSchema, io: 'input' },
  Deployment: { schema: deploymentResponseSchema, io: 'output' },
  Revision: { schema: revisionResponseSchema, io: 'output' },
  Redeployment: { schema: redeploymentResponseSchema, io: 'output' },
  DatabaseBackup: { schema: databaseBackupResponseSchema, io: 'output' },
  DatabaseRestore: { schema: databaseRestoreResponseSchema, io: 'output' },
  DatabaseRestoreRequest: { schema: databaseRestoreRequestSchema, io: 'input' },
  Repository: { schema: repositoryResponseSchema, io: 'output' },
  Listener: { schema: listenerResponseSchema, io: 'output' },
  Error: { schema: errorResponseSchema, io: 'output' },
  LogFilter: { schema: logFilterSchema, io: 'input' },
  LogPage: { schema: logPageSchema, io: 'output' },
};

function schemaOf(source: SchemaSource, io: 'input' | 'output'): JsonObject {
  if (typeof source === 'string') {
    if (!components[source]) throw new Error(`no schema component ${source}`);
    return { $ref: `#/components/schemas/${source}` };
  }
  return 'jsonSchema' in source ? source.jsonSchema : jsonSchema(source, io);
}

const content = (schema: JsonObject, type = 'application/json') => ({ content: { [type]: { schema } } });

const errorAnswer = content(schemaOf('Error', 'output'));
const errors = {
  '400': { description: "The request cannot be served as sent, e.g. the code host refused the integration's credentials.", ...errorAnswer },
  '401': { description: 'Missing or invalid API key, or an organization the key cannot reach.', ...errorAnswer },
  '404': { description: 'No such object in the organization.', ...errorAnswer },
  '409': { description: 'The object already exists, or changed while it was being written; try again.', ...errorAnswer },
  '413': { description: 'The body is larger than the server accepts.', ...errorAnswer },
  '415': { description: 'The body is not application/json.', ...errorAnswer },
  '422': { description: 'The request is not valid: one entry per invalid member.', ...errorAnswer },
  '429': { description: 'Too many open at once (watch streams of the organization); close one, or try again later.', ...errorAnswer },
  '503': { description: 'The Kubernetes API server is busy; try again.', ...errorAnswer },
};

/** `/v2/deployments/:deployment_id` as the document spells it: `/v2/deployments/{deployment_id}`. */
function documentPath(url: string): string {
  return url.replace(/:([a-z_]+)/g, '{$1}');
}

function parametersOf(spec: RouteSpec): JsonObject[] {
  const path = [...spec.url.matchAll(/:([a-z_]+)/g)].map(([, name]) => {
    const parameter = pathParameters[name!];
    if (!parameter) throw new Error(`path parameter ${name} of ${spec.url} is not described in pathParameters`);
    return {
      name,
      in: 'path',
      required: true,
      description: parameter.description,
      schema: parameter.uuid ? { type: 'string', format: 'uuid' } : { type: 'string' },
    };
  });
  const query = Object.entries((spec.query ? jsonSchema(spec.query, 'input').properties : {}) as Record<string, JsonObject>).map(
    ([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      schema,
    }),
  );
  return [...(spec.public ? [] : [{ $ref: '#/components/parameters/tenantId' }]), ...path, ...query];
}

function operationOf(spec: RouteSpec): JsonObject {
  const { success, body } = spec;
  return {
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.public ? { security: [] } : {}),
    parameters: parametersOf(spec),
    ...(body ? { requestBody: { required: body.required, ...content(schemaOf(body.schema, 'input'), body.contentType) } } : {}),
    responses: {
      [String(success.status)]: {
        description: success.description,
        ...(success.schema ? content(schemaOf(success.schema, 'output'), success.contentType) : {}),
      },
      ...errors,
    },
  };
}

export function openApiDocument(routes: readonly RouteSpec[]): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const spec of routes) {
    const item = (paths[documentPath(spec.url)] ??= {});
    const method = spec.method.toLowerCase();
    if (item[method]) throw new Error(`${spec.method} ${spec.url} is declared twice`);
    item[method] = operationOf(spec);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Berth', version: 'v2', description: 'Deployments, their revisions, OAuth providers and code-host repositories.' },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
      parameters: {
        tenantId: {
          name: 'X-Tenant-Id',
          in: 'header',
          required: false,
          description: "Organization to act in, among those the API key reaches. Default: the key's first.",
          schema: { type: 'string', format: 'uuid' },
        },
      },
      schemas: Object.fromEntries(Object.entries(components).map(([name, { schema, io }]) => [name, jsonSchema(schema, io)])),
    },
    servers: [
      { url: '/', description: 'Berth' },
      { url: selfHostedPrefix, description: "The same routes under the reference control plane's self-hosted prefix." },
    ],
    security: [{ apiKey: [] }],
    paths,
  };
}

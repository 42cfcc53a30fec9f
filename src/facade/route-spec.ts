// A route of the HTTP API, declared once: `serve` registers it with Fastify and carries its declaration
// along (the route's config), and the OpenAPI document is made from the declarations of the routes the
// app registered (openapi.ts). A route cannot be served without saying what it takes and answers.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { z } from 'zod';

export type JsonObject = Record<string, unknown>;

/** A schema in the document: one of its components by name (openapi.ts), a zod schema, or JSON Schema as it is. */
export type SchemaSource = string | z.ZodType | { jsonSchema: JsonObject };

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify's spelling, `:name` for a path parameter (each documented once, in pathParameters). */
  url: string;
  summary: string;
  description?: string;
  query?: z.ZodType;
  body?: { schema: SchemaSource; required: boolean; contentType?: string };
  success: { status: number; description: string; schema?: SchemaSource; contentType?: string };
  /** Reached without an API key: the request carries its own credential, or needs none. */
  public?: boolean;
}

/** Every path parameter of the API, said once. */
export const pathParameters: Record<string, { description: string; uuid: boolean }> = {
  deployment_id: { description: 'ID of the deployment.', uuid: true },
  revision_id: { description: 'ID of the revision.', uuid: true },
  backup_id: { description: 'ID of the database backup.', uuid: true },
  restore_id: { description: 'ID of the database restore.', uuid: true },
  project_id: { description: 'ID of the deployment (the older API calls it a project).', uuid: true },
  provider_id: { description: 'The OAuth provider identifier.', uuid: false },
  integration_id: { description: 'ID of the code-host integration.', uuid: true },
  listener_id: { description: 'ID of the listener.', uuid: true },
  upload_token: { description: 'The signed token of an upload URL.', uuid: false },
};

/** Registers the route with its declaration. */
export function serve<G extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  spec: RouteSpec,
  handler: (request: FastifyRequest<G>, reply: FastifyReply) => Promise<unknown>,
): void {
  app.route<G>({ method: spec.method, url: spec.url, handler: handler as never, config: { spec } as never });
}

/** The declaration a registered route carries, if it was served with one. */
export function specOf(config: unknown): RouteSpec | undefined {
  return (config as { spec?: RouteSpec } | undefined)?.spec;
}

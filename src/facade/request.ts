// The first steps of every route: who is asking, and is what they sent well-formed.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { problemsFromZod, unprocessable } from './errors.ts';
import type { FacadeCache } from './ports.ts';
import { resolveTenant, type Tenant } from './tenancy.ts';

export function tenantOf(request: FastifyRequest, cache: FacadeCache): Tenant {
  return resolveTenant({
    apiKey: request.headers['x-api-key'],
    tenantId: request.headers['x-tenant-id'],
    keys: cache.apiKeys.list(),
    namespaces: cache.namespaces.list(),
  });
}

/** Parses one part of the request ('body', 'query' or 'path'); a mismatch is a 422 naming each member. */
export function parseRequestPart<S extends z.ZodType>(where: 'body' | 'query' | 'path', schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw unprocessable(problemsFromZod(where, result.error));
  return result.data;
}

/** An id as the API hands them out: a metadata.uid, any case. */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id in a query: a UUID in any case, lowercased as uuidPathParam lowercases one in a path. */
export const uuidSchema = z
  .string()
  .regex(uuidPattern, 'Input should be a valid UUID')
  .transform((id) => id.toLowerCase());

/** A path parameter that must be a UUID (ids are metadata.uid values). */
export function uuidPathParam(request: FastifyRequest, name: string): string {
  const value = (request.params as Record<string, string | undefined>)[name] ?? '';
  if (!uuidPattern.test(value)) {
    throw unprocessable([{ loc: ['path', name], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
  }
  return value.toLowerCase();
}

/** Objects of a list in a stable order: oldest first, then by name. */
export function byCreation<T extends { metadata?: { creationTimestamp?: unknown; name?: string } }>(a: T, b: T): number {
  const time = (o: T) =>
    String(
      o.metadata?.creationTimestamp instanceof Date ? o.metadata.creationTimestamp.toISOString() : (o.metadata?.creationTimestamp ?? ''),
    );
  return time(a).localeCompare(time(b)) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

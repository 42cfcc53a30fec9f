// Status changes as they happen: GET /v2/deployments/watch, server-sent events from the caches the other
// routes read. `ready` once subscribed (list now, then apply what follows), `deployment` (as GET answers
// it), `deployment_deleted` ({"id"}), `revision` (as the revisions route answers it). A comment every
// 20 s keeps proxies from closing it; it ends after 10 minutes (the client reconnects, and its key is
// checked again) and when the server stops. A reader too slow to take what comes is cut off: it lists
// again on reconnecting.
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deployment, Revision } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { tooManyRequests, unavailable } from '../errors.ts';
import type { FacadeDependencies } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidSchema } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { deploymentAnswers, deploymentById, revisionAnswer } from './deployment-answers.ts';

const watchQuerySchema = z.object({
  deployment_id: uuidSchema.optional().describe('Only this deployment and its revisions.'),
});

const watchRoute = {
  method: 'GET',
  url: '/v2/deployments/watch',
  summary: "Watch the organization's deployments and revisions",
  description:
    'Server-sent events: `ready` once subscribed (list now, then apply what follows), `deployment` (a deployment, as GET answers it), `deployment_deleted` ({"id"}), `revision` (a revision, as the revisions route answers it). A comment every 20 s; the stream ends after 10 minutes or when the server stops: reconnect, then list again. Send the API key as a header (EventSource cannot: read it with fetch).',
  query: watchQuerySchema,
  success: {
    status: 200,
    description: 'A stream of events.',
    contentType: 'text/event-stream',
    schema: { jsonSchema: { type: 'string' } },
  },
} satisfies RouteSpec;

export const watchLimits = {
  streams: 256,
  streamsPerOrganization: 16,
  lifetimeMs: 10 * 60_000,
  heartbeatMs: 20_000,
  backlogBytes: 1 << 20,
};

type Owned = { metadata: { namespace?: string; uid?: string; ownerReferences?: readonly { uid: string; controller?: boolean }[] } };
const controllerOf = (object: Owned) => object.metadata.ownerReferences?.find((reference) => reference.controller)?.uid ?? '';

/** Each app's open streams (its end, with its organization), across the root and the self-hosted prefix. */
const openStreams = new WeakMap<FacadeDependencies, Map<() => void, string>>();

export function registerWatchRoutes(app: FastifyInstance, deps: FacadeDependencies, limits = watchLimits): void {
  const { cache } = deps;
  const revisionResponse = revisionAnswer(cache);
  const { respond } = deploymentAnswers(deps);
  const open = openStreams.get(deps) ?? new Map<() => void, string>();
  openStreams.set(deps, open);
  // Fastify's close waits for every response to end: the streams end first.
  app.addHook('preClose', async () => {
    for (const end of [...open.keys()]) end();
  });
  serve(app, watchRoute, async (request, reply) => {
    const tenant = tenantOf(request, cache);
    const { deployment_id: only } = parseRequestPart('query', watchQuerySchema, request.query);
    if (only) deploymentById(cache, tenant.namespace, only);
    const changes = cache.changes;
    if (!changes) throw unavailable('Watching is not available here: list instead.');
    const ofOrganization = [...open.values()].filter((organization) => organization === tenant.organizationId).length;
    if (open.size >= limits.streams || ofOrganization >= limits.streamsPerOrganization)
      throw tooManyRequests('Too many open watches: close one, or list instead.');

    const stream = new PassThrough();
    const send = (event: string, data: unknown) => {
      stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (stream.writableLength > limits.backlogBytes) end();
    };
    const mine = (object: Owned, deploymentId: string) =>
      object.metadata.namespace === tenant.namespace && (!only || deploymentId === only);
    const onDeployment = (deployment: DeepReadonly<Deployment>) => {
      if (mine(deployment, deployment.metadata.uid ?? '')) send('deployment', respond(deployment, tenant));
    };
    const onRevision = (revision: DeepReadonly<Revision>) => {
      const owner = controllerOf(revision);
      if (mine(revision, owner)) send('revision', revisionResponse(revision, owner));
    };
    const stops = [
      changes.deployments.onAdd(onDeployment),
      changes.deployments.onUpdate(onDeployment),
      changes.deployments.onDelete((deployment) => {
        if (mine(deployment, deployment.metadata.uid ?? '')) send('deployment_deleted', { id: deployment.metadata.uid });
      }),
      changes.revisions.onAdd(onRevision),
      changes.revisions.onUpdate(onRevision),
    ];
    const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), limits.heartbeatMs);
    const lifetime = setTimeout(() => end(), limits.lifetimeMs);
    function end() {
      if (!open.delete(end)) return;
      for (const stop of stops) stop();
      clearInterval(heartbeat);
      clearTimeout(lifetime);
      stream.end();
    }
    open.set(end, tenant.organizationId);
    reply.raw.on('close', end);
    send('ready', {});
    return reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-accel-buffering', 'no')
      .send(stream);
  });
}

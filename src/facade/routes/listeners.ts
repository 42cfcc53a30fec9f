// GET /v2/listeners[/{listener_id}]: the cluster Berth runs in is the one listener of an installation,
// seen by each organization as the namespace its deployments run in (the listener's id is that
// namespace's uid, so it is stable and names nothing of another organization). A deployment's
// source_config.listener_id and listener_config.k8s_namespace are checked against it.
import type { V1Namespace } from '@kubernetes/client-node';
import { timestampText } from '../../api/index.ts';
import type { FastifyInstance } from 'fastify';
import { notFound, unprocessable, type ValidationProblem } from '../errors.ts';
import { paginate, pageQuerySchema } from '../pagination.ts';
import type { FacadeCache, FacadeDependencies } from '../ports.ts';
import { parseRequestPart, tenantOf, uuidPathParam } from '../request.ts';
import type { Tenant } from '../tenancy.ts';
import type { DeepReadonly } from '../../runtime/types.ts';
import { serve, type RouteSpec } from '../route-spec.ts';
import { listenerResponseSchema, pageSchema, type ListenerResponse } from '../wire-schemas.ts';

/** The organization's namespace, from the cache tenancy reads too. */
function namespaceOf(cache: FacadeCache, tenant: Tenant): DeepReadonly<V1Namespace> | undefined {
  return cache.namespaces.list().find((namespace) => namespace.metadata?.name === tenant.namespace);
}

function listenerOf(cache: FacadeCache, tenant: Tenant): ListenerResponse | undefined {
  const namespace = namespaceOf(cache, tenant);
  if (!namespace?.metadata?.uid) return undefined;
  // Second precision, as every other timestamp the API answers.
  const created = timestampText(namespace.metadata.creationTimestamp) ?? timestampText(new Date(0))!;
  return {
    id: namespace.metadata.uid,
    tenant_id: tenant.organizationId,
    compute_type: 'k8s',
    compute_config: { k8s_namespaces: [tenant.namespace] },
    created_at: created,
    updated_at: created,
  };
}

interface ListenerChoice {
  listener_id?: string | null;
  listener_config?: { k8s_namespace?: string | null } | null;
}

/** 422 when a deployment names a listener or a namespace other than the organization's own.
 * `wireSourceConfig` is a parsed body's source_config, in the wire's spelling. */
export function checkListenerChoice(cache: FacadeCache, tenant: Tenant, wireSourceConfig: unknown): void {
  const sourceConfig = wireSourceConfig as ListenerChoice | null | undefined;
  const problems: ValidationProblem[] = [];
  const listenerId = sourceConfig?.listener_id;
  // The listener is looked up only for a body that names one: most creates and PATCHes do not.
  const listener = listenerId ? listenerOf(cache, tenant) : undefined;
  if (listenerId && listenerId.toLowerCase() !== listener?.id) {
    problems.push({
      loc: ['body', 'source_config', 'listener_id'],
      msg: `Unknown listener ${listenerId}: this organization's one listener is ${listener?.id ?? 'not known yet'} (GET /v2/listeners).`,
      type: 'value_error',
    });
  }
  const namespace = sourceConfig?.listener_config?.k8s_namespace;
  if (namespace && namespace !== tenant.namespace) {
    problems.push({
      loc: ['body', 'source_config', 'listener_config', 'k8s_namespace'],
      msg: `This organization's deployments run in namespace ${tenant.namespace}.`,
      type: 'value_error',
    });
  }
  if (problems.length > 0) throw unprocessable(problems);
}

const listenerRoutes = {
  list: {
    method: 'GET',
    url: '/v2/listeners',
    summary: 'List listeners',
    query: pageQuerySchema,
    success: {
      status: 200,
      description: "The organization's one listener: the cluster Berth runs in.",
      schema: pageSchema(listenerResponseSchema),
    },
  },
  read: {
    method: 'GET',
    url: '/v2/listeners/:listener_id',
    summary: 'Read a listener',
    success: { status: 200, description: 'The listener.', schema: 'Listener' },
  },
} satisfies Record<string, RouteSpec>;

export function registerListenerRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  serve(app, listenerRoutes.list, async (request) => {
    const tenant = tenantOf(request, deps.cache);
    const query = parseRequestPart('query', pageQuerySchema, request.query);
    const listener = listenerOf(deps.cache, tenant);
    return paginate(listener ? [listener] : [], query, (item) => item);
  });

  serve<{ Params: { listener_id: string } }>(app, listenerRoutes.read, async (request) => {
    const tenant = tenantOf(request, deps.cache);
    const id = uuidPathParam(request, 'listener_id');
    const listener = listenerOf(deps.cache, tenant);
    if (listener?.id !== id) throw notFound(`Listener ID ${id} not found.`);
    return listener;
  });
}

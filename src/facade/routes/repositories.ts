// GET /v1/integrations/codehost/{integration_id}/repos: the repositories an integration reaches, as a
// bare array. The integration is found by metadata.uid among the organization's CodeHostIntegrations;
// a code host's refusal becomes a 4xx that says which side is at fault, never a credential.
import type { FastifyInstance } from 'fastify';
import { CodeHostError } from '../../codehost/errors.ts';
import { HttpError, badRequest, notFound } from '../errors.ts';
import { byUid, type FacadeDependencies } from '../ports.ts';
import { tenantOf, uuidPathParam } from '../request.ts';
import { serve, type RouteSpec } from '../route-spec.ts';

function codeHostHttpError(error: CodeHostError): HttpError {
  switch (error.reason) {
    case 'InvalidCredentials':
    case 'Unauthorized':
      return badRequest(`The code host refused the integration's credentials: ${error.message}`);
    case 'NotAllowed':
      return badRequest(`The integration cannot be used on this installation: ${error.message}`);
    case 'NotFound':
      return notFound(`The code host found nothing: ${error.message}`);
    case 'RateLimited':
      return new HttpError(429, `The code host's rate limit is exhausted: ${error.message}`);
    case 'Unreachable':
      return new HttpError(502, `The code host could not be reached: ${error.message}`);
  }
}

const repositoryRoutes = {
  list: {
    method: 'GET',
    url: '/v1/integrations/codehost/:integration_id/repos',
    summary: 'List repositories of a code-host integration',
    success: {
      status: 200,
      description: 'Every repository the integration reaches.',
      schema: { jsonSchema: { type: 'array', items: { $ref: '#/components/schemas/Repository' } } },
    },
  },
} satisfies Record<string, RouteSpec>;

export function registerRepositoryRoutes(app: FastifyInstance, deps: FacadeDependencies): void {
  serve<{ Params: { integration_id: string } }>(app, repositoryRoutes.list, async (request) => {
    const tenant = tenantOf(request, deps.cache);
    const id = uuidPathParam(request, 'integration_id');
    const integration = deps.cache.codeHostIntegrations
      .byIndex(byUid, id)
      .find((candidate) => candidate.metadata.namespace === tenant.namespace);
    if (!integration) throw notFound(`Integration ID ${id} not found.`);
    try {
      return await deps.repositories.listRepositories(integration);
    } catch (error) {
      if (error instanceof CodeHostError) throw codeHostHttpError(error);
      throw error;
    }
  });
}

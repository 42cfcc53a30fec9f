// /openapi.json: an OpenAPI 3.1 document generated from the zod schemas, whose request and response
// schemas spell exactly the interface's fields.
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestFacade, type TestFacade } from './support/facade.ts';
import { deploymentTable, providerTable, repositoryTable } from './support/facade-shapes.ts';

let t: TestFacade;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let document: any;

beforeAll(async () => {
  t = await startTestFacade();
  const response = await t.call('GET', '/openapi.json', { key: null });
  expect(response.status).toBe(200);
  document = response.body;
});

describe('/openapi.json', () => {
  it('is OpenAPI 3.1 with the four operations of the interface and the surrounding ones', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v2/auth/providers',
        '/v2/auth/providers/{provider_id}',
        '/v1/integrations/codehost/{integration_id}/repos',
        '/v2/deployments',
        '/v2/deployments/{deployment_id}',
        '/v2/deployments/{deployment_id}/revisions',
        '/v2/deployments/{deployment_id}/revisions/{revision_id}',
        '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
        '/v2/deployments/{deployment_id}/revisions/{revision_id}/interrupt',
        '/v2/deployments/{deployment_id}/metrics',
      ]),
    );
    expect(Object.keys(document.paths['/v2/deployments/{deployment_id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
    expect(Object.keys(document.paths['/v2/deployments/{deployment_id}/revisions'])).toEqual(expect.arrayContaining(['get', 'post']));
    // A deployment's figures, documented with the route: now, or over a range (start, end and step).
    const metrics = document.paths['/v2/deployments/{deployment_id}/metrics'].get;
    const [now, range] = metrics.responses['200'].content['application/json'].schema.anyOf;
    expect(Object.keys(now.properties).sort()).toEqual([
      'api',
      'application',
      'database',
      'deployment_id',
      'measured_at',
      'queue',
      'unavailable',
    ]);
    expect(Object.keys(range.properties).sort()).toEqual([
      'deployment_id',
      'end',
      'revisions',
      'series',
      'start',
      'step_seconds',
      'unavailable',
    ]);
    expect(metrics.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['start', 'end', 'step']),
    );
    expect(document.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
  });

  it('spells the response schemas as the interface tables do', () => {
    const { schemas } = document.components;
    expect(Object.keys(schemas.OAuthProvider.properties).sort()).toEqual(Object.keys(providerTable).sort());
    expect(Object.keys(schemas.Deployment.properties).sort()).toEqual(Object.keys(deploymentTable).sort());
    expect(Object.keys(schemas.Repository.properties).sort()).toEqual(Object.keys(repositoryTable).sort());
    expect(schemas.OAuthProvider.properties).not.toHaveProperty('client_secret');
    expect(schemas.Deployment.properties.source_config.properties.resource_spec.properties).toHaveProperty('db_storage_gi');
    expect(schemas.Deployment.properties.source_revision_config.properties).toHaveProperty('repo_commit_sha');
  });

  it('spells the request schemas as the interface does, closed to other members, with the documented defaults', () => {
    const { schemas } = document.components;
    const create = schemas.OAuthProviderCreate;
    expect(Object.keys(create.properties).sort()).toEqual(
      [
        'auth_url',
        'client_id',
        'client_secret',
        'code_challenge_method',
        'name',
        'provider_id',
        'provider_type',
        'token_endpoint_auth_method',
        'token_url',
        'uses_pkce',
      ].sort(),
    );
    expect(create.required.sort()).toEqual(['auth_url', 'client_id', 'name', 'provider_id', 'token_url']);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.uses_pkce.default).toBe(false);
    expect(create.properties.code_challenge_method.default).toBe('S256');
    expect(create.properties.token_endpoint_auth_method.default).toBe('client_secret_post');
    expect(create.properties.token_endpoint_auth_method.enum).toEqual(['none', 'client_secret_basic', 'client_secret_post']);

    const patch = schemas.DeploymentPatch;
    expect(Object.keys(patch.properties)).toEqual(expect.arrayContaining(['source_config', 'source_revision_config', 'secrets']));
    expect(patch.additionalProperties).toBe(false);
    expect(JSON.stringify(patch.properties.source_revision_config)).not.toContain('repo_commit_sha');
    // The wire spelling throughout: no camelCase member of the CRD leaks into the HTTP schema...
    expect(JSON.stringify(patch)).not.toMatch(/"(minScale|repoRef|imageUri|resourceSpec)"/);
    // ...except where the interface itself spells Kubernetes shapes in camelCase.
    expect(JSON.stringify(patch)).toContain('"mountPath"');
  });
});

import { describe, expect, it } from 'vitest';
import { describeKubeApiRequest } from './api-request-counter.ts';

const describeRequest = (method: string, path: string, status = 200) => describeKubeApiRequest({ method, path, status });

describe('describeKubeApiRequest', () => {
  it.each([
    ['GET', '/api/v1/namespaces/a/configmaps', 'list', 'configmaps'],
    ['GET', '/api/v1/namespaces/a/configmaps?watch=true&resourceVersion=5', 'watch', 'configmaps'],
    ['GET', '/api/v1/configmaps?limit=500', 'list', 'configmaps'],
    ['GET', '/api/v1/namespaces/a/configmaps/b', 'get', 'configmaps'],
    ['POST', '/api/v1/namespaces/a/events', 'create', 'events'],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/a/leases/l', 'update', 'leases.coordination.k8s.io'],
    ['PATCH', '/apis/berth.dev/v1alpha1/namespaces/a/deployments/d/status?fieldManager=berth', 'patch', 'deployments.berth.dev/status'],
    ['DELETE', '/apis/apps/v1/namespaces/a/deployments/d', 'delete', 'deployments.apps'],
    ['DELETE', '/apis/apps/v1/namespaces/a/deployments', 'deletecollection', 'deployments.apps'],
    ['GET', '/api/v1/namespaces/a', 'get', 'namespaces'],
    ['PUT', '/api/v1/namespaces/a/finalize', 'update', 'namespaces/finalize'],
    ['GET', '/apis/berth.dev/v1alpha1', 'get', 'discovery'],
    ['GET', '/version', 'get', 'nonresource'],
  ])('%s %s is %s on %s', (method, path, verb, resource) => {
    expect(describeRequest(method, path)).toEqual({ verb, resource, code: '200' });
  });

  it('labels a request that got no answer with code 0', () => {
    expect(describeRequest('GET', '/api/v1/pods', 0).code).toBe('0');
  });
});

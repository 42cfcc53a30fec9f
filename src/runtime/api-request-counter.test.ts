import { describe, expect, it } from 'vitest';
import { describeKubeApiRequest, onKubeApiRequest, recordKubeApiRequest } from './api-request-counter.ts';

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

describe('onKubeApiRequest', () => {
  it('matches the server whatever the spelling of its port, and strips a proxy path prefix', () => {
    const seen: string[] = [];
    const stop = onKubeApiRequest('https://cluster.example:443/k8s/clusters/c-1', (labels) =>
      seen.push(`${labels.verb} ${labels.resource}`),
    );
    try {
      recordKubeApiRequest({
        origin: 'https://cluster.example',
        method: 'GET',
        path: '/k8s/clusters/c-1/api/v1/namespaces/a/pods',
        status: 200,
      });
      recordKubeApiRequest({
        origin: 'https://cluster.example:443',
        method: 'POST',
        path: '/k8s/clusters/c-1/api/v1/namespaces/a/pods',
        status: 201,
      });
      recordKubeApiRequest({ origin: 'https://other.example', method: 'GET', path: '/k8s/clusters/c-1/api/v1/pods', status: 200 });
      recordKubeApiRequest({ origin: 'https://cluster.example', method: 'GET', path: '/elsewhere/api/v1/pods', status: 200 });
    } finally {
      stop();
    }
    recordKubeApiRequest({ origin: 'https://cluster.example', method: 'GET', path: '/k8s/clusters/c-1/api/v1/pods', status: 200 });
    expect(seen).toEqual(['list pods', 'create pods']);
  });
});

// An Ingress for sourceConfig.customUrl, routing the URL's host (and path) to the application Service.
import type { V1Ingress } from '@kubernetes/client-node';
import type { CustomUrlRoute } from '../../../api/index.ts';
import { childNames } from '../../../api/child-names.ts';
import { type OwnerDeployment, childMetadata } from './common.ts';

export function renderIngress(owner: OwnerDeployment, route: CustomUrlRoute, ingressClassName?: string): V1Ingress {
  const service = childNames(owner.name).application;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: childMetadata(owner, childNames(owner.name).ingress, 'application'),
    spec: {
      ...(ingressClassName ? { ingressClassName } : {}),
      rules: [
        {
          host: route.host,
          http: {
            paths: [{ path: route.path, pathType: 'Prefix', backend: { service: { name: service, port: { name: 'http' } } } }],
          },
        },
      ],
    },
  };
}

// An Ingress for sourceConfig.customUrl, routing the URL's host (and path) to the application Service.
import type { V1Ingress } from '@kubernetes/client-node';
import { childNames } from '../names.ts';
import { type OwnerDeployment, childMetadata } from './common.ts';

export interface CustomUrlRoute {
  host: string;
  path: string;
}

/** `https://api.example.com/app` and `api.example.com` both name a host; undefined when it names none. */
export function parseCustomUrl(customUrl: string): CustomUrlRoute | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(customUrl) ? customUrl : `https://${customUrl}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  if (!url.hostname || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(url.hostname) || /^\d+(\.\d+){3}$/.test(url.hostname)) return undefined;
  return { host: url.hostname.toLowerCase(), path: url.pathname || '/' };
}

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

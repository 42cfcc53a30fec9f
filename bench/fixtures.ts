// The Deployments the benchmark creates: container-image deployments, the kind that converges without a
// build, autoscaled so each one owns an application Deployment, a Service and an autoscaler.
import { apiVersion, deploymentKind, type Deployment } from '../src/api/index.ts';
import type { ResourceKind } from '../src/runtime/index.ts';

export const deploymentResource: ResourceKind = { apiVersion, kind: deploymentKind.kind, plural: deploymentKind.plural };
export const revisionResource: ResourceKind = { apiVersion, kind: 'Revision', plural: 'revisions' };
export const appsDeploymentResource: ResourceKind = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' };
export const configMapResource: ResourceKind = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };

export function deploymentNames(count: number): string[] {
  const width = String(count - 1).length;
  return Array.from({ length: count }, (_, i) => `app-${String(i).padStart(width, '0')}`);
}

export function benchDeployment(namespace: string, name: string, imageTag = '1.27'): Deployment {
  return {
    apiVersion,
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      source: 'external_docker',
      sourceConfig: { resourceSpec: { minScale: 1, maxScale: 2 } },
      sourceRevisionConfig: { imageUri: `nginx:${imageTag}` },
    },
  } as Deployment;
}

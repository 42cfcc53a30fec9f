// The TracingProject created with every Deployment (same name, as the interface promises). It carries no
// ownerReference on purpose: traces outlive the Deployment that produced them, so deleting the
// Deployment (or garbage collection) must leave the project in place.
import { apiVersion, labels } from '../../../api/group.ts';
import { childNames, deploymentLabelValue } from '../../../api/child-names.ts';
import type { OwnerDeployment } from './common.ts';

export interface TracingProjectManifest {
  apiVersion: typeof apiVersion;
  kind: 'TracingProject';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: { deploymentName: string };
}

export function renderTracingProject(owner: OwnerDeployment): TracingProjectManifest {
  return {
    apiVersion,
    kind: 'TracingProject',
    metadata: {
      name: childNames(owner.name).tracingProject,
      namespace: owner.namespace,
      labels: { [labels.deployment]: deploymentLabelValue(owner.name) },
    },
    spec: { deploymentName: owner.name },
  };
}

// What every rendered child shares: the labels that tie it to its Deployment, the ownerReference, and
// the quantities in the canonical form the API server stores (so a re-render compares equal to what
// was stored and a reconcile that finds nothing to change issues no write).
import type { V1OwnerReference, V1ResourceRequirements, V1Secret, V1Service } from '@kubernetes/client-node';
import { apiVersion, labels as berthLabels } from '../../../api/group.ts';
import { deploymentLabelValue } from '../../../api/child-names.ts';
import { readableSecretLabel, readableSecretValues } from '../../../api/readable-secrets.ts';
import { requestAndLimit, type SizeFigures } from '../../../api/sizes.ts';
import { componentLabel, revisionLabel, type Component } from '../../../workloads/revision-pods.ts';

export interface OwnerDeployment {
  name: string;
  namespace: string;
  uid: string;
}

// Declared with the revision pods' cache, which both the controller and the HTTP API read.
export { componentLabel, revisionLabel, type Component };

/** Labels that select a component's pods: stable for the Deployment's whole life (selectors are immutable). */
export function selectorLabels(owner: OwnerDeployment, component: Component): Record<string, string> {
  return { [berthLabels.deployment]: deploymentLabelValue(owner.name), [componentLabel]: component };
}

function objectLabels(owner: OwnerDeployment, component: Component): Record<string, string> {
  return { ...selectorLabels(owner, component), 'app.kubernetes.io/managed-by': 'berth' };
}

export function ownerReference(owner: OwnerDeployment): V1OwnerReference {
  return { apiVersion, kind: 'Deployment', name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true };
}

export function childMetadata(owner: OwnerDeployment, name: string, component: Component, extraLabels: Record<string, string> = {}) {
  return {
    name,
    namespace: owner.namespace,
    labels: { ...extraLabels, ...objectLabels(owner, component) },
    ownerReferences: [ownerReference(owner)],
  };
}

/**
 * CPU cores as the API server prints them: whole cores as integers, the rest in millicores
 * (0.5 -> "500m", 2 -> "2").
 */
export function cpuQuantity(cores: number): string {
  const millis = Math.round(cores * 1000);
  return millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
}

/** Mebibytes as the API server prints them: the largest binary suffix that keeps an integer (1024 -> "1Gi"). */
export function memoryQuantity(mebibytes: number): string {
  const units = ['Mi', 'Gi', 'Ti', 'Pi'];
  let amount = Math.round(mebibytes);
  if (amount === 0) return '0';
  let unit = 0;
  while (amount !== 0 && amount % 1024 === 0 && unit < units.length - 1) {
    amount /= 1024;
    unit += 1;
  }
  return `${amount}${units[unit]}`;
}

export interface Sizing {
  cpu?: number | null;
  cpuLimit?: number | null;
  memoryMb?: number | null;
  memoryLimitMb?: number | null;
}

/** Requests from the sizing (or the defaults: a named size's or Berth's), times the installation's
 * request scale (at least 1m and 1Mi); limits where the spec or the size sets one, never scaled. */
export function resourceRequirements(sizing: Sizing, defaults: SizeFigures, requestScale = 1): V1ResourceRequirements {
  const cpu = requestAndLimit(sizing.cpu, sizing.cpuLimit, defaults.cpu, defaults.cpuLimit);
  const memory = requestAndLimit(sizing.memoryMb, sizing.memoryLimitMb, defaults.memoryMb, defaults.memoryLimitMb);
  const requests = scaledRequests(cpu.request, memory.request, requestScale);
  const limits: Record<string, string> = {};
  if (cpu.limit !== undefined) limits.cpu = cpuQuantity(cpu.limit);
  if (memory.limit !== undefined) limits.memory = memoryQuantity(memory.limit);
  return Object.keys(limits).length > 0 ? { requests, limits } : { requests };
}

/**
 * CPU and memory requests scaled by `requestScale` (`berth dev` asks less of a laptop than a cluster:
 * --request-scale), never below what the API server can express.
 */
export function scaledRequests(cores: number, mebibytes: number, requestScale: number): { cpu: string; memory: string } {
  return {
    cpu: cpuQuantity(Math.max(cores * requestScale, cores > 0 ? 0.001 : 0)),
    memory: memoryQuantity(Math.max(mebibytes * requestScale, mebibytes > 0 ? 1 : 0)),
  };
}

/**
 * A headless Service for a backing store (no virtual IP: a single stateful peer needs only a stable
 * DNS name, and cluster IP ranges are small). The named port must match the container's port name.
 */
export function renderHeadlessService(owner: OwnerDeployment, name: string, component: Component, port: number): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: childMetadata(owner, name, component),
    spec: {
      clusterIP: 'None',
      selector: selectorLabels(owner, component),
      ports: [{ name: component, port, targetPort: component }],
    },
  };
}

/**
 * A backing service's password (key `password`). Created once (never re-applied: the password is
 * random) and owned by the Deployment; the caller supplies the randomness so this stays pure.
 */
export function renderPasswordSecret(owner: OwnerDeployment, name: string, component: Component, password: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: childMetadata(owner, name, component, { [readableSecretLabel]: readableSecretValues.managed }),
    type: 'Opaque',
    stringData: { password },
  };
}

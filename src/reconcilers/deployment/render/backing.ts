// Which backing services a Deployment gets. The rule, decided once here:
// - Postgres when the Deployment is built from sources, a repository or an uploaded archive (a full
//   application, which the reference control plane always gives a database) or when any db* sizing
//   field is set (an image deployment opts in by sizing its database).
// - A queue worker when any queue* field is set.
// - Redis when redisMemoryMb is set, a queue worker runs (the queue needs a broker), or an agent server
//   built from its configuration file may run more than one replica (its processes share runs through it).
// - Either one of the team's own in place of Berth's when sourceConfig.externalDatabase names its URI.
import { isBuiltSource, tierMinReplicas, type SecretKeySelector } from '../../../api/index.ts';
import type { DeploymentSpecInput, ResourceSpecInput } from './spec.ts';

const databaseFields = ['dbCpu', 'dbCpuLimit', 'dbMemoryMb', 'dbMemoryLimitMb', 'dbStorageGi', 'dbMaxConnections'] as const;
const queueFields = ['queueMinScale', 'queueMaxScale', 'queueCpu', 'queueCpuLimit', 'queueMemoryMb', 'queueMemoryLimitMb'] as const;

export interface BackingServices {
  /** Berth runs a Postgres for the deployment. */
  database: boolean;
  queueWorker: boolean;
  /** Berth runs a Redis for the deployment. */
  redis: boolean;
  /** The Secret keys that hold the URIs of the team's own databases, in place of Berth's. */
  external: { postgresUri: SecretKeySelectorInput | undefined; redisUri: SecretKeySelectorInput | undefined };
}

type SecretKeySelectorInput = Readonly<SecretKeySelector>;

function anySet(resources: ResourceSpecInput, fields: readonly (keyof ResourceSpecInput)[]): boolean {
  return fields.some((field) => resources[field] != null);
}

export function backingServices(spec: DeploymentSpecInput): BackingServices {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const { postgresUri, redisUri } = spec.sourceConfig?.externalDatabase ?? {};
  const database = !postgresUri && (isBuiltSource(spec.source) || anySet(resources, databaseFields));
  const queueWorker = anySet(resources, queueFields);
  const redis = !redisUri && (resources.redisMemoryMb != null || queueWorker || agentWithReplicas(spec));
  return { database, queueWorker, redis, external: { postgresUri: postgresUri ?? undefined, redisUri: redisUri ?? undefined } };
}

/** An agent server built from its configuration file that may run more than one API replica: its
 * processes join and stream each other's runs through Redis. */
function agentWithReplicas(spec: DeploymentSpecInput): boolean {
  if (!isBuiltSource(spec.source) || !spec.sourceRevisionConfig?.graphConfigPath) return false;
  const scale = scaling(applicationMinScale(spec), spec.sourceConfig?.resourceSpec?.maxScale);
  return scale.kind === 'autoscaled' && scale.maxReplicas > 1;
}

/**
 * Replica handling shared by the application and the queue worker: a max of 0 scales the workload to
 * zero (no autoscaler: an HPA cannot hold zero replicas); otherwise an HPA owns the replica count
 * between max(min, 1) and max(max, that).
 */
export type Scaling = { kind: 'scaledToZero' } | { kind: 'autoscaled'; minReplicas: number; maxReplicas: number };

export function scaling(minScale: number | null | undefined, maxScale: number | null | undefined): Scaling {
  if (maxScale === 0) return { kind: 'scaledToZero' };
  const minReplicas = Math.max(minScale ?? 1, 1);
  return { kind: 'autoscaled', minReplicas, maxReplicas: Math.max(maxScale ?? minReplicas, minReplicas) };
}

/** The application's minScale: the spec's, raised to what its tier keeps (dedicated: two replicas). */
export function applicationMinScale(spec: DeploymentSpecInput): number | undefined {
  const minScale = spec.sourceConfig?.resourceSpec?.minScale ?? undefined;
  const floor = tierMinReplicas(spec.sourceConfig?.deploymentType);
  return floor > 1 ? Math.max(minScale ?? floor, floor) : minScale;
}

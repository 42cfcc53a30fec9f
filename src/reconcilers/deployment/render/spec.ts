// The parts of a Deployment's spec the renderers read, spelled as the CRD spells them (src/api declares
// them; these structural types only say which members rendering depends on, so a renderer can be
// table-tested with a literal).
import type { V1Container, V1EnvVar, V1LocalObjectReference, V1Volume, V1VolumeMount } from '@kubernetes/client-node';

type Maybe<T> = T | null | undefined;

export interface ResourceSpecInput {
  minScale?: Maybe<number>;
  maxScale?: Maybe<number>;
  cpu?: Maybe<number>;
  cpuLimit?: Maybe<number>;
  memoryMb?: Maybe<number>;
  memoryLimitMb?: Maybe<number>;
  queueMinScale?: Maybe<number>;
  queueMaxScale?: Maybe<number>;
  queueCpu?: Maybe<number>;
  queueCpuLimit?: Maybe<number>;
  queueMemoryMb?: Maybe<number>;
  queueMemoryLimitMb?: Maybe<number>;
  redisMemoryMb?: Maybe<number>;
  dbCpu?: Maybe<number>;
  dbCpuLimit?: Maybe<number>;
  dbMemoryMb?: Maybe<number>;
  dbMemoryLimitMb?: Maybe<number>;
  dbStorageGi?: Maybe<number>;
  dbMaxConnections?: Maybe<number>;
  labels?: Maybe<Record<string, string>>;
  annotations?: Maybe<Record<string, string>>;
  serviceAccountName?: Maybe<string>;
  imagePullSecrets?: Maybe<readonly V1LocalObjectReference[]>;
  volumes?: Maybe<readonly unknown[]>;
  volumeMounts?: Maybe<readonly unknown[]>;
  initContainers?: Maybe<readonly unknown[]>;
  sidecars?: Maybe<readonly unknown[]>;
}

export interface SecretEntryInput {
  name: string;
  valueFrom?: Maybe<{ secretKeyRef: { name: string; key: string } }>;
}

export interface DeploymentSpecInput {
  source: string;
  sourceConfig?: Maybe<{
    repoUrl?: Maybe<string>;
    customUrl?: Maybe<string>;
    healthCheck?: Maybe<{ path?: Maybe<string>; periodSeconds?: Maybe<number>; timeoutSeconds?: Maybe<number>; failureThreshold?: Maybe<number> }>;
    installCommand?: Maybe<string>;
    buildCommand?: Maybe<string>;
    resourceSpec?: Maybe<ResourceSpecInput>;
    queueWorker?: Maybe<{ command?: Maybe<readonly string[]>; args?: Maybe<readonly string[]>; env?: Maybe<readonly unknown[]> }>;
  }>;
  sourceRevisionConfig?: Maybe<{ repoRef?: Maybe<string>; graphConfigPath?: Maybe<string>; imageUri?: Maybe<string> }>;
  secrets?: Maybe<readonly SecretEntryInput[]>;
}

/** The free-form members of resourceSpec are Kubernetes shapes the interface spells in camelCase. */
export function asContainers(list: Maybe<readonly unknown[]>): V1Container[] {
  return (list ?? []) as V1Container[];
}

export function asEnv(list: Maybe<readonly unknown[]>): V1EnvVar[] {
  return (list ?? []) as V1EnvVar[];
}

export function asVolumes(list: Maybe<readonly unknown[]>): V1Volume[] {
  return (list ?? []) as V1Volume[];
}

export function asVolumeMounts(list: Maybe<readonly unknown[]>): V1VolumeMount[] {
  return (list ?? []) as V1VolumeMount[];
}

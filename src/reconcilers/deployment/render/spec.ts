// The parts of a Deployment's spec the renderers read, picked from the API's own types (src/api): these
// say only which members rendering depends on, so a renderer can be table-tested with a literal, and a
// member renamed or retyped in the API fails to compile here.
import type { V1Container, V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type {
  DeploymentSecret,
  DeploymentSpec,
  HealthCheck,
  ResourceSpec,
  resourceSizingFields,
  SourceConfig,
  SourceRevisionConfig,
} from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';

type Maybe<T> = T | null | undefined;

/** Members `K` of the API type `T`, each optional and readonly: what a renderer reads of it. */
type Reads<T, K extends keyof T> = { readonly [P in K]?: Maybe<DeepReadonly<NonNullable<T[P]>>> };

export type ResourceSpecInput = Reads<
  ResourceSpec,
  | (typeof resourceSizingFields)[number]
  | 'labels'
  | 'annotations'
  | 'serviceAccountName'
  | 'imagePullSecrets'
  | 'volumes'
  | 'volumeMounts'
  | 'initContainers'
  | 'sidecars'
>;

export type SecretEntryInput = Pick<DeploymentSecret, 'name'> & Reads<DeploymentSecret, 'valueFrom'>;

type SourceConfigInput = Reads<
  SourceConfig,
  | 'repoUrl'
  | 'customUrl'
  | 'installCommand'
  | 'buildCommand'
  | 'queueWorker'
  | 'deploymentType'
  | 'databaseRetention'
  | 'externalDatabase'
  | 'preDeployCommand'
  | 'smokeTestPath'
  | 'idleSeconds'
  | 'runDrainSeconds'
> & {
  readonly healthCheck?: Maybe<Reads<HealthCheck, 'path' | 'periodSeconds' | 'timeoutSeconds' | 'failureThreshold'>>;
  readonly resourceSpec?: Maybe<ResourceSpecInput>;
};

export interface DeploymentSpecInput {
  readonly source: DeploymentSpec['source'];
  readonly sourceConfig?: Maybe<SourceConfigInput>;
  readonly sourceRevisionConfig?: Maybe<Reads<SourceRevisionConfig, 'repoRef' | 'graphConfigPath' | 'imageUri'>>;
  readonly secrets?: Maybe<readonly SecretEntryInput[]>;
  readonly previewOf?: Maybe<Reads<NonNullable<DeploymentSpec['previewOf']>, 'fromFork'>>;
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

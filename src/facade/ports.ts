// What the routes depend on, as small interfaces: a reader of the informer caches, a writer to the API
// server, the code-host's repository lister and a clock to wait on. `startFacade` adapts the real ones;
// anything with the same shape (an Informer, a stub lister in a test) fits.
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import type {
  CodeHostIntegration,
  DatabaseBackup,
  DatabaseRestore,
  Deployment,
  HostPolicy,
  NodeVolumes,
  OAuthProvider,
  OrganizationQuota,
  Revision,
} from '../api/index.ts';
import type { Repository } from '../codehost/repository.ts';
import type { DeepReadonly } from '../runtime/types.ts';
import type { HostOwnershipProver } from '../domains/host-ownership.ts';
import type { ApiKeyRecord } from './api-keys.ts';
import type { ObjectWriter } from './kube-writer.ts';
import type { RegistrySigning } from '../registry/signing.ts';
import type { SourceArchiveStore } from '../registry/source-archives.ts';
import type { KubeEvent } from './deployment-events.ts';
import type { Points, QueryRange } from '../workloads/metrics-store.ts';

/** The read side of an informer cache: the same shape as the runtime's Informer. */
export interface CacheReader<T> {
  get(namespace: string, name: string): DeepReadonly<T> | undefined;
  list(namespace?: string): DeepReadonly<T>[];
  /** 'owner' (an owner's uid) always; 'uid' on the caches the facade declares it for (start.ts). */
  byIndex(indexName: string, value: string): DeepReadonly<T>[];
}

/** The index the facade finds objects by id with: an object's id is its metadata.uid. */
export const byUid = 'uid';

export interface FacadeCache {
  namespaces: Pick<CacheReader<V1Namespace>, 'list' | 'get'>;
  apiKeys: { list(): Iterable<ApiKeyRecord> };
  oauthProviders: CacheReader<OAuthProvider>;
  deployments: CacheReader<Deployment>;
  revisions: CacheReader<Revision>;
  /** Listed under their Deployment by the 'owner' index (the DatabaseBackup controller sets it). */
  databaseBackups: CacheReader<DatabaseBackup>;
  /** Listed under their Deployment by the 'owner' index (the DatabaseRestore controller sets it). */
  databaseRestores: CacheReader<DatabaseRestore>;
  codeHostIntegrations: CacheReader<CodeHostIntegration>;
  /** Pods that carry a revision label, indexed by it (the log routes find a revision's pods here). */
  pods: CacheReader<V1Pod>;
  /** What changes in the deployments' and revisions' caches, as it happens (routes/watch.ts); absent
   * where the caches are not informers. */
  changes?: { deployments: ChangeSource<Deployment>; revisions: ChangeSource<Revision> };
}

/** An informer's change handlers: each returns the function that removes it. */
export interface ChangeSource<T> {
  onAdd(handler: (object: DeepReadonly<T>) => void): () => void;
  onUpdate(handler: (object: DeepReadonly<T>, previous: DeepReadonly<T>) => void): () => void;
  onDelete(handler: (object: DeepReadonly<T>) => void): () => void;
}

/** Reads a namespace's Events from the API server (no cache holds them). */
export interface EventReader {
  list(namespace: string): Promise<KubeEvent[]>;
}

/** Reads one container's log from the API server (the kubelet's, with timestamps). */
export interface PodLogReader {
  /** The newest lines of one container's log, at most `limitBytes` of them. */
  read(namespace: string, pod: string, container: string, options: { previous: boolean; limitBytes: number }): Promise<string>;
}

/** What one pod uses now, as metrics-server measured it, and its part of the deployment (component label). */
export interface PodUsage {
  component: string;
  cpuCores: number;
  memoryBytes: number;
}

/** What the metrics route reads beyond the caches (facade/metrics-sources.ts adapts the cluster's). */
export interface MetricsSources {
  /** The usage of each pod labelled with the deployment; undefined where the cluster serves no
   * resource metrics (metrics.k8s.io). */
  podUsage(namespace: string, deploymentLabel: string): Promise<PodUsage[] | undefined>;
  /** The size of a volume claim, or undefined when there is no such claim. */
  claimCapacity(namespace: string, claim: string): Promise<number | undefined>;
  /** One PromQL instant value from the store the installation reads request metrics from (undefined:
   * no series, or a NaN); absent without a store. Throws when the store does not answer. */
  query?(promql: string): Promise<number | undefined>;
  /** One PromQL series over a range, a point per step (null where the store has none); absent without a
   * store. Throws when the store does not answer. */
  queryRange?(promql: string, range: QueryRange): Promise<Points>;
  /** The runs in an agent server's queue as KEDA reads them for the queue worker's ScaledObject, through
   * the external metrics API. Throws where the cluster serves no external metrics, or KEDA has no such
   * reading or does not answer. */
  runQueue(namespace: string, scaledObject: string): Promise<RunQueueFigures>;
}

/** The runs waiting for a worker, and all of those waiting or running. */
export interface RunQueueFigures {
  pending: number;
  backlog: number;
}

/** What the routes ask of an integration's code host; failures are the code host's typed errors. */
export interface CodeHostAccess {
  /** What the integration's credentials reach. */
  listRepositories(integration: DeepReadonly<CodeHostIntegration>): Promise<Repository[]>;
  /** The secret its webhook deliveries are signed with, if its credentials Secret has one. */
  webhookSecret(integration: DeepReadonly<CodeHostIntegration>): Promise<string | undefined>;
}

export interface FacadeDependencies {
  cache: FacadeCache;
  writer: ObjectWriter;
  repositories: CodeHostAccess;
  podLogs: PodLogReader;
  /** How long a write waits for the controller to observe it before answering with the current state. */
  observeTimeoutMs: number;
  /** Berth's registry for pushed images, when the installation has one (routes/registry.ts). */
  registry?: RegistryAccess;
  /** Source uploads of internal_source deployments, when the installation takes them (routes/uploads.ts). */
  uploads?: SourceUploads;
  /** The custom URL hosts deployments may claim. Default: any, none reserved. */
  hostPolicy?: HostPolicy;
  /** How an organization proves it owns a custom host (the organization policy's customHostProof): an
   * unproven host is a 422. Default: no proof asked. */
  hostOwnership?: HostOwnershipProver;
  /** Where clients reach this API (--public-url): the base of the URLs it hands out. Default: each request's Host. */
  publicUrl?: string;
  /** The most replicas one deployment may ask for (the organization policy's maxReplicas). Default: no cap. */
  maxReplicas?: number;
  /** The most custom hosts one organization may hold (the organization policy's maxCustomHosts). Default: no cap. */
  maxCustomHosts?: number;
  /** The NFS servers and inline CSI drivers volumes may name (the organization policy's nodeVolumes). Default: any. */
  nodeVolumes?: NodeVolumes;
  /** The repositories whose previews may clone their deployment's database (the organization policy's previewDatabaseClone). Default: none. */
  previewDatabaseClone?: readonly string[];
  /** The organization policy's quota: a deployment that could never fit it is refused. Default: none. */
  organizationQuota?: OrganizationQuota;
  /** Where build Jobs run (src/workloads/build-jobs.ts): their logs are read there. Default: beside their deployment. */
  buildNamespace?: string;
  /** Where a deployment's figures are read (routes/metrics.ts). */
  metrics: MetricsSources;
  /** Where a deployment's events are read (routes/events.ts). */
  events: EventReader;
}

/** Berth's registry for pushed images: the push credentials and bearer tokens this API hands out (routes/registry.ts). */
export interface RegistryAccess {
  /** host[:port] of the registry whose `auth.token` realm is this API's /v2/registry/token. */
  host: string;
  /** Its `auth.token.service` and `auth.token.issuer`. */
  service: string;
  issuer: string;
  signing: RegistrySigning;
  /** Lifetime of a push credential (default 1 h) and of a bearer token (default 5 min). */
  pushTokenTtlSeconds?: number;
  bearerTtlSeconds?: number;
  now?: () => number;
}

/** Where internal_source deployments' source archives are uploaded (routes/uploads.ts). */
export interface SourceUploads {
  /** Signs upload URLs (the key of push credentials: every replica holds it). */
  key: Buffer;
  store: SourceArchiveStore;
  /** How long an upload URL may be used. Default 15 min. */
  ttlSeconds?: number;
  /** Largest archive. Default maxSourceArchiveBytes. */
  maxBytes?: number;
  now?: () => number;
}

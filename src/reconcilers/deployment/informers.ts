// The caches the Deployment controller reads: its own kinds and every kind it writes, one shared
// informer per resource (the Manager hands out the same one to whoever asks).
import type {
  V1Namespace,
  V1Deployment,
  V1Ingress,
  V1Job,
  V1Pod,
  V1Secret,
  V1Service,
  V1StatefulSet,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import {
  codeHostIntegrationKind,
  databaseBackupKind,
  nameStemIndex,
  customHostIndex,
  indexNameStems,
  indexCustomHost,
  fieldManager,
  deploymentKind,
  revisionKind,
  tracingProjectKind,
  type AppTls,
  type CodeHostIntegration,
  type DatabaseBackup,
  type Deployment,
  type GatewayObject,
  type Revision,
  type TracingProject,
} from '../../api/index.ts';
import {
  ownedFieldsView,
  secretKind,
  type IndexFunction,
  type KubeObject,
  type Informer,
  type Manager,
  type ResourceKind,
} from '../../runtime/index.ts';
import { referencedSecretNames } from './revisions/inputs.ts';
import { autoscalerStatusPaths } from './status/scaling-status.ts';
import { scaledObjectKind } from './render/autoscalers.ts';
import { postgresClusterKind } from './render/postgres-cluster.ts';
import { objectStoreKind } from './render/database-archive.ts';
import { activatorGrantLabel, httpScaledObjectKind, interceptorRouteKind, referenceGrantKind } from './render/scale-to-zero.ts';
import { podKind, revisionPods } from '../../workloads/revision-pods.ts';
import { readableSecrets } from '../../workloads/readable-secrets.ts';
import { gatewayShards, organizationCertificates } from '../organization/index.ts';

export const childKinds = {
  appsDeployment: { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
  statefulSet: { apiVersion: 'apps/v1', kind: 'StatefulSet', plural: 'statefulsets' },
  service: { apiVersion: 'v1', kind: 'Service', plural: 'services' },
  autoscaler: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers' },
  ingress: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', plural: 'ingresses' },
  httpRoute: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', plural: 'httproutes' },
  scaledObject: scaledObjectKind,
  postgresCluster: postgresClusterKind,
  objectStore: objectStoreKind,
  interceptorRoute: interceptorRouteKind,
  httpScaledObject: httpScaledObjectKind,
  referenceGrant: referenceGrantKind,
  job: { apiVersion: 'batch/v1', kind: 'Job', plural: 'jobs' },
  secret: secretKind,
  persistentVolumeClaim: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims' },
  pod: podKind,
} as const satisfies Record<string, ResourceKind>;

/** Kinds read for the path check, never written. */
const pathKinds = {
  networkPolicy: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', plural: 'networkpolicies' },
  namespace: { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
} as const satisfies Record<string, ResourceKind>;

export interface DeploymentInformers {
  deployments: Informer<Deployment>;
  revisions: Informer<Revision>;
  tracingProjects: Informer<TracingProject>;
  integrations: Informer<CodeHostIntegration>;
  appsDeployments: Informer<V1Deployment>;
  statefulSets: Informer<V1StatefulSet>;
  services: Informer<V1Service>;
  autoscalers: Informer<V2HorizontalPodAutoscaler>;
  ingresses: Informer<V1Ingress>;
  /** Only where the installation routes through a Gateway (its CRDs may be absent elsewhere). */
  httpRoutes?: Informer<KubeObject>;
  /** Only with TLS for the apps' URLs: the organizations' Certificates (cert-manager's CRDs). */
  certificates?: Informer<KubeObject>;
  /** Only with TLS: the Gateway and its shards, whose listeners serve the routes' hosts. Read, never written. */
  gateways?: Informer<GatewayObject>;
  /** Only where apps scale on their requests in flight: their KEDA ScaledObjects (KEDA's CRDs). */
  scaledObjects?: Informer<KubeObject>;
  /** Only where the cluster serves CloudNativePG's Cluster: the databases of that engine. */
  postgresClusters?: Informer<KubeObject>;
  /** Only where the cluster serves the barman-cloud plugin's ObjectStore too: those databases' archives. */
  objectStores?: Informer<KubeObject>;
  /** With objectStores: the DatabaseBackups, of which a pass takes one before a revision that migrates. */
  databaseBackups?: Informer<DatabaseBackup>;
  /** Only with an activator for dev_zero: the add-on's InterceptorRoutes Berth writes, and the
   * ReferenceGrants it keeps in the activator's namespace (one per namespace with such apps). */
  interceptorRoutes?: Informer<KubeObject>;
  /** Only where the add-on still serves its HTTPScaledObject: those an earlier Berth wrote, to prune. */
  httpScaledObjects?: Informer<KubeObject>;
  activatorGrants?: Informer<KubeObject>;
  /** Only with the path check (options.networkPolicyCheck): every NetworkPolicy of the watched
   * namespaces, whoever wrote it. Read, never written. */
  networkPolicies?: Informer<KubeObject>;
  /** With the path check or proof of custom hosts' ownership: the Namespaces (a relay namespace's
   * labels; an organization's id and verified domains). Read, never written. */
  namespaces?: Informer<V1Namespace>;
  jobs: Informer<V1Job>;
  secrets: Informer<V1Secret>;
  /** Pods of revisions (application, queue worker, build): read for failures and logs, never written. */
  pods: Informer<V1Pod>;
}

/** Deployments by the Secrets they read (`<namespace>/<secret>`): a Secret event finds its readers without a scan. */
export const secretReaderIndex = 'berth.dev/reads-secret';

const indexSecretReaders: IndexFunction<Deployment> = (deployment) => {
  const namespace = deployment.metadata?.namespace ?? '';
  return [...referencedSecretNames(deployment.metadata?.name ?? '', deployment.spec)].map((name) => `${namespace}/${name}`);
};

/**
 * The workloads are cached as Berth applied them (cache-view.ts): the fields its field manager owns,
 * which are what it renders and compares, plus what the reconciler reads that others write: rollout
 * and build status, and the replicas an autoscaler sets. At 10,000 Deployments that is most of the
 * controller's memory.
 */
const appliedView = {
  appsDeployment: ownedFieldsView(fieldManager, ['spec.replicas', 'status']),
  statefulSet: ownedFieldsView(fieldManager, ['status']),
  job: ownedFieldsView(fieldManager, ['status']),
  // The cluster IP is the API server's choice, and the Deployment's url.
  service: ownedFieldsView(fieldManager, ['spec.clusterIP']),
  // What the autoscaler reports (the Deployment's status.scaling), not its metrics readings.
  autoscaler: ownedFieldsView(fieldManager, autoscalerStatusPaths),
  ingress: ownedFieldsView(fieldManager),
  httpRoute: ownedFieldsView(fieldManager),
  scaledObject: ownedFieldsView(fieldManager),
  // Its readiness (postgres-cluster.ts), not the operator's record of its instances; and the backup it
  // was recovered from (recoveryOfCluster), which a restore applies under a field manager of its own.
  postgresCluster: ownedFieldsView(fieldManager, [
    'spec.bootstrap.recovery.recoveryTarget',
    'spec.externalClusters',
    'status.conditions',
    'status.readyInstances',
    'status.currentPrimary',
    'status.targetPrimary',
  ]),
  objectStore: ownedFieldsView(fieldManager),
  interceptorRoute: ownedFieldsView(fieldManager),
  httpScaledObject: ownedFieldsView(fieldManager),
  referenceGrant: ownedFieldsView(fieldManager),
};

/**
 * `namespaces` limits every cache to those namespaces (one controller per namespace set, e.g. in tests);
 * `httpRoutes` caches the HTTPRoutes Berth makes, where it routes through a Gateway; `scaledObjects` its
 * ScaledObjects, where apps scale on their requests in flight; `httpScaledObjects` the add-on's earlier
 * kind, where the cluster still serves it, to prune those an earlier Berth wrote.
 */
export function deploymentInformers(
  manager: Manager,
  namespaces?: string[],
  routes: {
    httpRoutes: boolean;
    tls?: AppTls;
    scaledObjects?: boolean;
    postgresClusters?: boolean;
    objectStores?: boolean;
    activatorNamespace?: string;
    httpScaledObjects?: boolean;
    networkPolicyCheck?: boolean;
    /** The Namespaces: a relay namespace's labels (the path check), an organization's id and verified domains. */
    namespaces?: boolean;
  } = { httpRoutes: false },
): DeploymentInformers {
  const scope = namespaces ? { namespaces } : {};
  return {
    deployments: manager.informer<Deployment>(deploymentKind, {
      ...scope,
      indexes: {
        [secretReaderIndex]: indexSecretReaders,
        [customHostIndex]: indexCustomHost,
        [nameStemIndex]: indexNameStems,
      },
    }),
    revisions: manager.informer<Revision>(revisionKind, scope),
    tracingProjects: manager.informer<TracingProject>(tracingProjectKind, scope),
    integrations: manager.informer<CodeHostIntegration>(codeHostIntegrationKind, scope),
    appsDeployments: manager.informer<V1Deployment>(childKinds.appsDeployment, { ...scope, transform: appliedView.appsDeployment }),
    statefulSets: manager.informer<V1StatefulSet>(childKinds.statefulSet, { ...scope, transform: appliedView.statefulSet }),
    services: manager.informer<V1Service>(childKinds.service, { ...scope, transform: appliedView.service }),
    autoscalers: manager.informer<V2HorizontalPodAutoscaler>(childKinds.autoscaler, { ...scope, transform: appliedView.autoscaler }),
    ingresses: manager.informer<V1Ingress>(childKinds.ingress, { ...scope, transform: appliedView.ingress }),
    ...(routes.httpRoutes
      ? { httpRoutes: manager.informer<KubeObject>(childKinds.httpRoute, { ...scope, transform: appliedView.httpRoute }) }
      : {}),
    ...(routes.tls ? { certificates: organizationCertificates(manager, routes.tls), gateways: gatewayShards(manager, routes.tls) } : {}),
    ...(routes.scaledObjects
      ? { scaledObjects: manager.informer<KubeObject>(childKinds.scaledObject, { ...scope, transform: appliedView.scaledObject }) }
      : {}),
    ...(routes.postgresClusters
      ? { postgresClusters: manager.informer<KubeObject>(childKinds.postgresCluster, { ...scope, transform: appliedView.postgresCluster }) }
      : {}),
    ...(routes.objectStores
      ? {
          objectStores: manager.informer<KubeObject>(childKinds.objectStore, { ...scope, transform: appliedView.objectStore }),
          databaseBackups: manager.informer<DatabaseBackup>(databaseBackupKind, scope),
        }
      : {}),
    ...(routes.activatorNamespace !== undefined
      ? {
          interceptorRoutes: manager.informer<KubeObject>(childKinds.interceptorRoute, {
            ...scope,
            transform: appliedView.interceptorRoute,
          }),
          activatorGrants: manager.informer<KubeObject>(childKinds.referenceGrant, {
            namespaces: [routes.activatorNamespace],
            labelSelector: activatorGrantLabel,
            transform: appliedView.referenceGrant,
          }),
        }
      : {}),
    ...(routes.httpScaledObjects
      ? {
          httpScaledObjects: manager.informer<KubeObject>(childKinds.httpScaledObject, {
            ...scope,
            transform: appliedView.httpScaledObject,
          }),
        }
      : {}),
    ...(routes.networkPolicyCheck ? { networkPolicies: manager.informer<KubeObject>(pathKinds.networkPolicy, scope) } : {}),
    ...(routes.namespaces ? { namespaces: manager.informer<V1Namespace>(pathKinds.namespace) } : {}),
    jobs: manager.informer<V1Job>(childKinds.job, { ...scope, transform: appliedView.job }),
    secrets: readableSecrets(manager, namespaces),
    pods: revisionPods(manager, namespaces),
  };
}

/** The informers of the workload kinds Berth applies for a Deployment (and prunes when no longer rendered). */
export function workloadInformers(informers: DeploymentInformers): Informer[] {
  return [
    informers.appsDeployments,
    informers.statefulSets,
    informers.services,
    informers.autoscalers,
    informers.ingresses,
    ...(informers.httpRoutes ? [informers.httpRoutes] : []),
    ...(informers.scaledObjects ? [informers.scaledObjects] : []),
    ...(informers.postgresClusters ? [informers.postgresClusters] : []),
    ...(informers.objectStores ? [informers.objectStores] : []),
    ...(informers.interceptorRoutes ? [informers.interceptorRoutes] : []),
    ...(informers.httpScaledObjects ? [informers.httpScaledObjects] : []),
  ];
}

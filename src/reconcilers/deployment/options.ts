// What an installation chooses about Deployments: images, the registry builds push to, revision retention.
import { publicCodeHostOrigins } from '../../codehost/outbound.ts';
import {
  defaultBuildResources,
  defaultCnpgPostgresImage,
  defaultDatabaseEngine,
  type DatabaseEngine,
  openHostPolicy,
  type AppTls,
  type AppUrlTemplate,
  type BuildPlacement,
  type BuildResources,
  type HostPolicy,
  type NodeVolumes,
  type OrganizationQuota,
  type Activator,
  type RequestConcurrency,
} from '../../api/index.ts';
import type { HostOwnershipProver } from '../../domains/host-ownership.ts';
import type { GatewayRef } from './render/ingress.ts';
import { defaultRevisionRetention } from './revisions/revisions.ts';
import { defaultScaleDownWindowSeconds } from './render/autoscalers.ts';

export interface DeploymentControllerOptions {
  /** Revisions kept per Deployment besides the active, latest and pinned ones. Default 10. */
  revisionRetention: number;
  /** Where builds push (`<registry>/<namespace>/<deployment>:<revision>`) and uploaded sources are kept. */
  registry: string;
  /** The Secret (dockerconfigjson) in each organization namespace holding its credential for that
   * registry: builds push with it, pods pull with it. Unset: the registry takes anonymous access. */
  registryCredentials?: string;
  images: {
    /** Builds and pushes the image: BuildKit's image layout (render/build-job.ts). */
    builder: string;
    /** Clones the repository. */
    git: string;
    /** Runs installCommand and buildCommand. */
    buildTools: string;
    /** Makes the Dockerfile from the application configuration file when the sources have none. */
    agentTools: string;
    /** The base of an agent image made from its configuration file, in place of the reference's
     * (render/build-job.ts): absent, the reference's image, for those who hold its licence. */
    agentServer?: string;
    /** Holds each app, queue worker, pre-deploy and build pod until the node's network policy lets it out
     * (render/network-ready.ts): an image with `sh` and busybox. Absent, no pod is held. */
    networkWait?: string;
    /** The database of a StatefulSet (render/postgres.ts), and the app's wait for any database (pg_isready). */
    postgres: string;
    /** What CloudNativePG runs a Cluster's instances from (render/postgres-cluster.ts). */
    cnpgPostgres: string;
    redis: string;
  };
  /** The engine of a new database (src/api/database-engine.ts): one that exists keeps its own. */
  databaseEngine: DatabaseEngine;
  /** The cluster serves CloudNativePG's Cluster: the databases of that engine are cached and kept,
   * whatever databaseEngine says (a database keeps its engine). */
  postgresClusters?: boolean;
  /** The cluster serves the barman-cloud plugin's ObjectStore: with the organization's backup store
   * (Secret berth-backups), a CloudNativePG database archives its WAL there. */
  objectStores?: boolean;
  /** The StorageClass of a CloudNativePG Cluster's volume; unset, the cluster's default. Its volumes must
   * be writable by the instance's user (uid 26), which a hostPath class's are not. */
  cnpgStorageClass?: string;
  /** The Secret in each organization namespace holding the licence key of the reference's agent server
   * (src/api/agent-server-license.ts): agent servers built on the reference's image read it. */
  agentServerLicense?: string;
  /** Port the application listens on (its PORT). */
  applicationPort: number;
  ingressClassName?: string;
  /** Each Deployment's own URL from outside the cluster (its host routed to the application), when given. */
  appUrls?: AppUrlTemplate;
  /** Routes are HTTPRoutes attached to this Gateway; without one, an Ingress (of ingressClassName). */
  gateway?: GatewayRef;
  /** TLS for https:// app URLs: the organization's Certificate, whose readiness the Deployment reports. */
  tls?: AppTls;
  /** Where apps' requests in flight are read: with it, an app's autoscaler is a KEDA ScaledObject on
   * them and on CPU; without it, a HorizontalPodAutoscaler on CPU. */
  requestConcurrency?: RequestConcurrency;
  /** The request-driven activator (KEDA's HTTP add-on): with it, a dev_zero app that has a URL scales
   * to zero when idle and its routes lead to the activator. */
  activator?: Activator;
  /** The namespace whose pods carry external requests to apps (the Gateway's or the ingress controller's
   * proxies), where they run in pods: the organization policy admits it, and the path check evaluates it. */
  proxyNamespace?: string;
  /** Whether the NetworkPolicies of an app's namespace are checked against the relays its requests take
   * (its activator, the proxy namespace): a path no policy admits makes the Deployment Stalled
   * (PathBlocked), never READY (network-path.ts). On where NetworkPolicies are enforced. */
  networkPolicyCheck?: boolean;
  /** Where build Jobs run (src/workloads/build-jobs.ts): a namespace of their own, apart from the
   * organizations' apps. Unset: beside their Deployment. */
  buildNamespace?: string;
  /** Service account of build Jobs (e.g. with push credentials for the registry). */
  buildServiceAccountName?: string;
  /** Run the image step privileged: BuildKit needs it for a Dockerfile's RUN steps unless the node
   * lets it use user namespaces (a rootless builder image). Default true. */
  buildPrivileged: boolean;
  /** The origins a code-host integration may name (src/codehost/outbound.ts): a Deployment built from one
   * elsewhere stalls, CodeHostNotAllowed, and its token is sent nowhere. */
  codeHostOrigins: readonly string[];
  /** The origins a deployment's notifications may go to (none by default: a tenant's URL reaches nothing). */
  notificationOrigins: readonly string[];
  /** The first wait before a notification is sent again (doubling after each failure). */
  notificationRetryBaseMs: number;
  /** Set while the builder is not there yet (`berth dev` while BuildKit builds): why. No build Job starts
   * meanwhile; the revisions that need one wait in AWAITING_BUILD (reason AwaitingBuilder) saying so. */
  awaitedBuilder?: string;
  /** The most build Jobs one organization runs at once: a revision beyond them waits in AWAITING_BUILD
   * (reason BuildQueued) until one ends. Unset: no limit. */
  buildsPerOrganization?: number;
  /** The most build Jobs one organization's previews run at once, in slots of their own: pull requests
   * never hold the deployments' slots. Unset: no limit. */
  previewBuildsPerOrganization?: number;
  /** The nodes build Jobs run on (a node selector and tolerations). Unset: any. */
  buildPlacement?: BuildPlacement;
  /** What each build step asks for and may use (CPU, memory, node disk). */
  buildResources: BuildResources;
  /** How often a build-on-push Deployment's branch is read for a new commit. Default 60 s. */
  sourcePollIntervalMs: number;
  /** How long an internal_source or internal_docker Deployment waits for its first source archive or image
   * before it is Stalled (SourceNeverArrived, ImageNeverArrived). Default 30 min. */
  firstInputDeadlineMs: number;
  /** Scales the CPU and memory requests of everything a Deployment runs (limits unchanged): 1 on a
   * cluster; `berth dev` asks less of a laptop. */
  requestScale: number;
  /** How long a rollout may wait (for room on a node, for pods to turn Ready) before its revision is
   * DEPLOY_FAILED: the apps/v1 progress deadline. Default 600 s. */
  progressDeadlineSeconds: number;
  /** How long load must stay low before an autoscaler takes replicas away (the HPA's scale-down
   * stabilization window, for every autoscaler Berth renders). Default 60 s. */
  scaleDownWindowSeconds: number;
  /** The organization policy's quota: a Deployment whose fewest pods could never fit it is Stalled
   * (QuotaExceeded). Unset: no quota. */
  organizationQuota?: OrganizationQuota;
  /** The most replicas one Deployment may ask for (the organization policy's maxReplicas). Default: no cap. */
  maxReplicas?: number;
  /** The most custom hosts one organization may hold (the organization policy's maxCustomHosts). Default: no cap. */
  maxCustomHosts?: number;
  /** The repositories whose previews may clone their deployment's database (the organization policy's
   * previewDatabaseClone): another's preview asking it is Stalled. Default: none. */
  previewDatabaseClone?: readonly string[];
  /** The NFS servers and inline CSI drivers volumes may name (the organization policy's nodeVolumes): a
   * Deployment naming another is Stalled (VolumeNotAllowed). Default: any. */
  nodeVolumes?: NodeVolumes;
  /** The custom URL hosts Deployments may claim (src/api/custom-hosts.ts). Default: any, none reserved. */
  hostPolicy: HostPolicy;
  /** How an organization's ownership of a custom host is proved (the organization policy's
   * customHostProof): a claim not proved is Stalled (HostOwnershipUnproven). Default: no proof asked. */
  hostOwnership?: HostOwnershipProver;
  /** Keys reconciled in parallel. */
  concurrency: number;
  /** Watch only these namespaces. Default: all. */
  namespaces?: string[];
  now: () => Date;
}

export const defaultDeploymentControllerOptions: DeploymentControllerOptions = {
  revisionRetention: defaultRevisionRetention,
  registry: 'registry.berth.svc.cluster.local:5000',
  images: {
    builder: 'moby/buildkit:v0.34.2',
    git: 'alpine/git:2.47.2',
    buildTools: 'node:24-bookworm',
    agentTools: 'python:3.11-slim',
    postgres: 'postgres:16-alpine',
    cnpgPostgres: defaultCnpgPostgresImage,
    redis: 'redis:7-alpine',
  },
  databaseEngine: defaultDatabaseEngine,
  applicationPort: 8000,
  buildPrivileged: true,
  codeHostOrigins: publicCodeHostOrigins,
  notificationOrigins: [],
  notificationRetryBaseMs: 2_000,
  buildResources: defaultBuildResources,
  sourcePollIntervalMs: 60_000,
  firstInputDeadlineMs: 30 * 60_000,
  requestScale: 1,
  progressDeadlineSeconds: 600,
  scaleDownWindowSeconds: defaultScaleDownWindowSeconds,
  hostPolicy: openHostPolicy,
  concurrency: 4,
  now: () => new Date(),
};

export function resolveOptions(overrides: Partial<DeploymentControllerOptions> = {}): DeploymentControllerOptions {
  return {
    ...defaultDeploymentControllerOptions,
    ...overrides,
    images: { ...defaultDeploymentControllerOptions.images, ...overrides.images },
  };
}

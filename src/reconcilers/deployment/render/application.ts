// The application: an apps/v1 Deployment running the serving revision's image, its Service, and the
// queue worker that runs the same image with its own command and environment. Pure: spec in, manifests out.
import type {
  V1Container,
  V1Deployment,
  V1DeploymentStrategy,
  V1EnvVar,
  V1PodTemplateSpec,
  V1Probe,
  V1Service,
} from '@kubernetes/client-node';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { databaseClusterAnnotation, type SecretKeySelector } from '../../../api/index.ts';
import { networkReady, waitResources } from './network-ready.ts';
import {
  applicationContainerName,
  preDeployContainerName,
  queueWorkerContainerName,
  waitContainerPrefix,
} from '../../../api/own-containers.ts';
import { applicationServicePort, childNames } from '../../../api/child-names.ts';
import { applicationSizingDefaults, serverSizing } from '../../../api/sizes.ts';
import { applicationMinScale, type BackingServices, type Scaling, scaling } from './backing.ts';
import {
  type Component,
  type OwnerDeployment,
  childMetadata,
  resourceRequirements,
  revisionLabel,
  selectorLabels,
  type Sizing,
} from './common.ts';
import { agentServerLicenseEnv, durableServerEnv, runDrain, withoutTenantLicense, type DurableServer } from './agent-server.ts';
import { asContainers, asEnv, asVolumeMounts, asVolumes, type DeploymentSpecInput } from './spec.ts';

export interface ServingRevision {
  name: string;
  image: string;
  /** The revision's own Secret and the secret environment variables it holds (Revision spec.secretSnapshot);
   * unset for a revision an earlier Berth made, whose pods read the Deployment's Secrets. */
  secrets?: { snapshot: string; names: readonly string[] };
}

export interface WorkloadInput {
  owner: OwnerDeployment;
  spec: DeploymentSpecInput;
  /** The revision whose image the workloads run: the target once its image exists, else the active one. */
  serving: ServingRevision;
  backing: BackingServices;
  /** The port the application listens on (the container's PORT). */
  port: number;
  /** The images of the backing services: each one's client waits for it (backingServiceWaits). */
  images: { postgres: string; redis: string; networkWait?: string };
  /** Scales CPU and memory requests (limits unchanged): --request-scale. */
  requestScale: number;
  /** How long a rollout may make no progress before apps/v1 calls it failed: --progress-deadline-seconds. */
  progressDeadlineSeconds: number;
  /** The organization's pull secret for Berth's registry, where its built and pushed images are. */
  registryCredentials?: string;
  /** That registry (`host[:port][/path]`): its images are pulled with the credential at every start
   * (pullEveryStart), never run from a node's cache that another organization's pull filled. */
  credentialedRegistry?: string;
  /** The durable agent server: its drain, and where its runs execute (agent-server.ts). */
  durableServer?: DurableServer;
  /** The organization's copy of the reference image's licence key, for an agent server on that image. */
  agentServerLicense?: string;
  /** The CloudNativePG Cluster a restore switched the database to (unset: the first): on the pods'
   * template, so that each switch replaces them and none keeps a connection to the database before. */
  restoredDatabase?: string;
}

/**
 * `imagePullPolicy: Always` for a container whose image is in the credentialed registry, whatever the
 * spec asks: the kubelet runs a cached image without asking the registry, so with `IfNotPresent` (the
 * default for a digest) or `Never`, a pod in one namespace would run another organization's image that
 * a pull of that organization left on the node, with no credential at all.
 */
export function pullEveryStart(registry: string | undefined): (container: V1Container) => V1Container {
  return (container) => (registry && container.image?.startsWith(`${registry}/`) ? { ...container, imagePullPolicy: 'Always' } : container);
}

export const applicationDefaults = applicationSizingDefaults;

/** The health check's timings when the spec leaves them out. */
const healthCheckDefaults = { periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 3 };

/**
 * A pod serves once its health check passes (an HTTP path when the spec names one, else a TCP
 * connection to the app port): until then the Service sends it nothing and the rollout waits. No
 * liveness probe: a slow starter is never killed for it.
 */
export function applicationReadiness(spec: DeploymentSpecInput): V1Probe {
  const check = spec.sourceConfig?.healthCheck ?? {};
  return {
    ...(check.path ? { httpGet: { path: check.path, port: 'http' } } : { tcpSocket: { port: 'http' } }),
    periodSeconds: check.periodSeconds ?? healthCheckDefaults.periodSeconds,
    timeoutSeconds: check.timeoutSeconds ?? healthCheckDefaults.timeoutSeconds,
    failureThreshold: check.failureThreshold ?? healthCheckDefaults.failureThreshold,
  };
}

/** How long a new pod has to pass its smoke test before the kubelet restarts it. */
export const smokeTestSeconds = 60;

/**
 * A pod passes the spec's smoke test (sourceConfig.smokeTestPath) before anything else: the kubelet
 * runs no readiness check, so the pod takes no traffic, until the path answers; one that does not within
 * smokeTestSeconds is restarted, and keeps failing as a crash loop the revision reports.
 */
function smokeTest(spec: DeploymentSpecInput): { startupProbe?: V1Probe } {
  const path = spec.sourceConfig?.smokeTestPath;
  return path
    ? { startupProbe: { httpGet: { path, port: 'http' }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold: smokeTestSeconds } }
    : {};
}

/**
 * A new revision's pods come up beside the old ones, which stay until the new ones are Ready: a
 * revision that cannot serve (a bad image, a crash) never takes the working one down.
 */
/**
 * How long a terminating app pod keeps serving before its container is told to stop: the pod leaves the
 * endpoints at once, and the Gateway and kube-proxy take a few seconds to stop sending it requests,
 * more on a busy Gateway (the node's sent a request more than 8 s after, while it reconfigured 110
 * listeners). An app that stops taking connections on SIGTERM (most do) would otherwise fail those. The
 * kubelet's own sleep, so the image needs no shell; the grace period (30 s) covers it and the app's exit.
 */
export const drainSeconds = 15;
const drainBeforeStop = { preStop: { sleep: { seconds: drainSeconds } } };

export const surgeStrategy: V1DeploymentStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } };

/**
 * Where the application answers: its own URL when the installation gives one (src/api/app-urls.ts),
 * else its custom URL, else its Service's cluster address. Undefined until one is known.
 */
export function applicationUrl(
  spec: DeploymentSpecInput,
  service: DeepReadonly<V1Service> | undefined,
  ownUrl: string | undefined,
): string | undefined {
  return ownUrl ?? spec.sourceConfig?.customUrl ?? clusterUrl(service);
}

/** The application Service's address inside the cluster (reachable from the host under `berth dev`). */
export function clusterUrl(service: DeepReadonly<V1Service> | undefined): string | undefined {
  const ip = service?.spec?.clusterIP;
  if (!ip || ip === 'None') return undefined;
  return `http://${ip.includes(':') ? `[${ip}]` : ip}`;
}

/** Where the secrets live: the revision's own Secret; for a revision an earlier Berth made, an explicit
 * secretKeyRef, or key `<name>` of the `<deployment>-secrets` Secret. */
function secretEnv(owner: OwnerDeployment, spec: DeploymentSpecInput, serving: ServingRevision): V1EnvVar[] {
  const own = serving.secrets;
  if (own) return own.names.map((name) => ({ name, valueFrom: { secretKeyRef: { name: own.snapshot, key: name } } }));
  const facadeSecret = childNames(owner.name).secrets;
  return (spec.secrets ?? []).map((entry) => ({
    name: entry.name,
    valueFrom: { secretKeyRef: entry.valueFrom?.secretKeyRef ?? { name: facadeSecret, key: entry.name } },
  }));
}

/** Connection settings for the backing services; the password stays in its Secret ($(VAR) expansion). */
function backingEnv(owner: OwnerDeployment, backing: BackingServices): V1EnvVar[] {
  const names = childNames(owner.name);
  const env: V1EnvVar[] = [];
  if (backing.database) {
    env.push(
      { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: names.postgresCredentials, key: 'password' } } },
      { name: 'DATABASE_URI', value: `postgres://postgres:$(POSTGRES_PASSWORD)@${names.postgres}:5432/postgres?sslmode=disable` },
    );
  }
  if (backing.redis) {
    env.push(
      { name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: names.redisCredentials, key: 'password' } } },
      { name: 'REDIS_URI', value: `redis://:$(REDIS_PASSWORD)@${names.redis}:6379` },
    );
  }
  const { postgresUri, redisUri } = backing.external;
  if (postgresUri) env.push({ name: 'DATABASE_URI', valueFrom: { secretKeyRef: { ...postgresUri } } });
  if (redisUri) env.push({ name: 'REDIS_URI', valueFrom: { secretKeyRef: { ...redisUri } } });
  return env;
}

/**
 * How a wait asks a team's own database whether it accepts the app, with the URI in URI (never in the
 * script): Postgres by a query (so the credentials are checked too), Redis by a PING.
 */
const externalAsks = {
  postgres: { schemes: ['postgres', 'postgresql'], member: 'postgresUri', ask: 'psql "$URI" -Atqc "select 1"' },
  redis: {
    schemes: ['redis'],
    member: 'redisUri',
    ask: 'out=$(redis-cli --no-auth-warning -u "$URI" ping 2>&1) && [ "$out" = PONG ] || { echo "$out" >&2; false; }',
  },
} as const;

/**
 * The script of a wait for a team's own database: it asks for 30 s (TRIES), then ends with what the database
 * said (its termination message), so a revision whose pods cannot reach it fails with those words. The
 * URI's password is masked in them, and a value that is not a URI of the right scheme is never echoed.
 */
export function externalWaitScript(kind: keyof typeof externalAsks): string {
  const { schemes, member, ask } = externalAsks[kind];
  const where = `spec.sourceConfig.externalDatabase.${member} (Secret \\"$SECRET\\", key \\"$KEY\\")`;
  return [
    `case "$URI" in ${schemes.map((scheme) => `${scheme}://*`).join('|')}) ;; *) echo "The value of ${where} is not a ${schemes[0]}:// URI." >&2; exit 1;; esac`,
    `rest=\${URI#*://}; auth=\${rest%%@*}; pass=""; [ "$auth" != "$rest" ] && [ "$auth" != "\${auth#*:}" ] && pass=\${auth#*:}`,
    `i=0; while [ $i -lt "\${TRIES:-30}" ]; do said=$( { ${ask}; } 2>&1 >/dev/null ) && exit 0; i=$((i+1)); sleep 1; done`,
    `said=$(echo "$said" | PASS="$pass" awk '{ p = ENVIRON["PASS"]; if (p != "") while ((i = index($0, p)) > 0) $0 = substr($0, 1, i - 1) "***" substr($0, i + length(p)); print }')`,
    `echo "The database of ${where} does not answer: $said" >&2; exit 1`,
  ].join('\n');
}

function externalWait(kind: keyof typeof externalAsks, image: string, uri: DeepReadonly<SecretKeySelector>): V1Container {
  return {
    name: `${waitContainerPrefix}external-${kind}`,
    image,
    command: ['sh', '-c', externalWaitScript(kind)],
    env: [
      { name: 'URI', valueFrom: { secretKeyRef: { name: uri.name, key: uri.key } } },
      { name: 'SECRET', value: uri.name },
      { name: 'KEY', value: uri.key },
      { name: 'PGCONNECT_TIMEOUT', value: '3' },
    ],
    resources: waitResources,
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}

/**
 * Init containers that hold the app's containers until its database and cache accept connections, so
 * an app that connects at start never starts before them (and is never counted as crashing for it).
 * Each runs its service's own image, which has the client it asks with; host names and the password
 * reach the shell as environment variables, never spliced into the script.
 */
function backingServiceWaits(owner: OwnerDeployment, backing: BackingServices, images: WorkloadInput['images']): V1Container[] {
  const names = childNames(owner.name);
  const waits: V1Container[] = [];
  if (backing.database) {
    waits.push({
      name: `${waitContainerPrefix}postgres`,
      image: images.postgres,
      command: ['sh', '-c', 'until pg_isready -q -h "$POSTGRES_HOST" -p 5432 -U postgres -t 2; do sleep 1; done'],
      env: [{ name: 'POSTGRES_HOST', value: names.postgres }],
      resources: waitResources,
    });
  }
  if (backing.redis) {
    waits.push({
      name: `${waitContainerPrefix}redis`,
      image: images.redis,
      command: ['sh', '-c', 'until [ "$(redis-cli -h "$REDIS_HOST" ping 2>/dev/null)" = PONG ]; do sleep 1; done'],
      env: [
        { name: 'REDIS_HOST', value: names.redis },
        { name: 'REDISCLI_AUTH', valueFrom: { secretKeyRef: { name: names.redisCredentials, key: 'password' } } },
      ],
      resources: waitResources,
    });
  }
  const { postgresUri, redisUri } = backing.external;
  if (postgresUri) waits.push(externalWait('postgres', images.postgres, postgresUri));
  if (redisUri) waits.push(externalWait('redis', images.redis, redisUri));
  return waits;
}

/** The queue worker's own command and environment (sourceConfig.queueWorker): its env wins by name. */
function queueWorkerStart(spec: DeploymentSpecInput, env: V1EnvVar[], licensed: boolean): Pick<V1Container, 'command' | 'args' | 'env'> {
  const own = spec.sourceConfig?.queueWorker ?? {};
  const extra = withoutTenantLicense(asEnv(own.env), licensed);
  const overridden = new Set(extra.map((entry) => entry.name));
  return {
    ...(own.command?.length ? { command: [...own.command] } : {}),
    ...(own.args ? { args: [...own.args] } : {}),
    env: [...env.filter((entry) => !overridden.has(entry.name)), ...extra],
  };
}

function podTemplate(input: WorkloadInput, component: Component, role: 'api' | 'queue', sizing: Sizing): V1PodTemplateSpec {
  const { owner, spec, serving } = input;
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const licensed = input.agentServerLicense !== undefined;
  const server = input.durableServer;
  const drain = server && runDrain(server.drainSeconds, drainSeconds);
  const env: V1EnvVar[] = [
    { name: 'BERTH_ROLE', value: role },
    { name: 'PORT', value: String(input.port) },
    ...(server ? durableServerEnv(server, role) : []),
    ...(drain?.env ?? []),
    ...backingEnv(owner, input.backing),
    ...withoutTenantLicense(secretEnv(owner, spec, serving), licensed),
    ...(input.agentServerLicense ? [agentServerLicenseEnv(input.agentServerLicense)] : []),
  ];
  const pull = pullEveryStart(input.credentialedRegistry);
  const main = {
    name: role === 'api' ? applicationContainerName : queueWorkerContainerName,
    image: serving.image,
    ...(role === 'queue' ? queueWorkerStart(spec, env, licensed) : { env }),
    ...(role === 'queue' && server?.queued ? { readinessProbe: agentQueueWorkerReadiness(input.port) } : {}),
    resources: resourceRequirements(sizing, serverSizing(resources.size), input.requestScale),
    // A container that ends with an error says why in its status (and the revision's message), from its
    // termination message or else its log's tail: a failed migration's own error.
    terminationMessagePolicy: 'FallbackToLogsOnError',
    ...(role === 'api'
      ? {
          ports: [{ name: 'http', containerPort: input.port }],
          ...smokeTest(spec),
          readinessProbe: applicationReadiness(spec),
          lifecycle: drainBeforeStop,
        }
      : {}),
    ...(resources.volumeMounts?.length ? { volumeMounts: asVolumeMounts(resources.volumeMounts) } : {}),
  };
  const annotations = {
    ...(resources.annotations ?? {}),
    ...(input.restoredDatabase ? { [databaseClusterAnnotation]: input.restoredDatabase } : {}),
  };
  return {
    metadata: {
      // Berth's labels win over user labels: the selector must keep matching.
      labels: { ...(resources.labels ?? {}), ...selectorLabels(owner, component), [revisionLabel]: serving.name },
      ...(Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
    },
    spec: {
      ...(resources.serviceAccountName ? { serviceAccountName: resources.serviceAccountName } : {}),
      ...(drain ? { terminationGracePeriodSeconds: drain.terminationGracePeriodSeconds } : {}),
      // A fork's code holds no credential of the cluster's: its preview's pods mount no token.
      ...(spec.previewOf?.fromFork ? { automountServiceAccountToken: false } : {}),
      ...imagePullSecrets([...(resources.imagePullSecrets ?? []).map((secret) => secret.name), input.registryCredentials]),
      ...initContainers([
        ...networkReady(input.images.networkWait),
        ...backingServiceWaits(owner, input.backing, input.images),
        ...asContainers(resources.initContainers).map(pull),
      ]),
      containers: [main, ...asContainers(resources.sidecars)].map(pull),
      ...(resources.volumes?.length ? { volumes: asVolumes(resources.volumes) } : {}),
    },
  };
}

function initContainers(containers: V1Container[]): { initContainers?: V1Container[] } {
  return containers.length > 0 ? { initContainers: containers } : {};
}

function imagePullSecrets(names: (string | undefined)[]): { imagePullSecrets?: { name: string }[] } {
  const unique = [...new Set(names.filter((name): name is string => Boolean(name)))];
  return unique.length > 0 ? { imagePullSecrets: unique.map((name) => ({ name })) } : {};
}

function replicasFor(scale: Scaling): { replicas?: number } {
  // Under an HPA the replica count is the autoscaler's: sending it would fight the HPA on every apply.
  return scale.kind === 'scaledToZero' ? { replicas: 0 } : {};
}

export function renderApplication(input: WorkloadInput): V1Deployment {
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  const name = childNames(input.owner.name).application;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: childMetadata(input.owner, name, 'application', resources.labels ?? {}),
    spec: {
      ...replicasFor(scaling(applicationMinScale(input.spec), resources.maxScale)),
      strategy: surgeStrategy,
      progressDeadlineSeconds: input.progressDeadlineSeconds,
      selector: { matchLabels: selectorLabels(input.owner, 'application') },
      template: podTemplate(input, 'application', 'api', resources),
    },
  };
}

/**
 * The pod of a revision's pre-deploy command (pre-deploy.ts): the application's template (its image,
 * environment, secrets and waits for its backing services), running `sh -c <command>` once instead of
 * serving. The spec's sidecars are left out: one that never ends would keep the Job from completing.
 */
export function preDeployTemplate(input: WorkloadInput, command: string): V1PodTemplateSpec {
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  const template = podTemplate(input, 'pre-deploy', 'api', resources);
  const {
    ports: _ports,
    readinessProbe: _readiness,
    startupProbe: _startup,
    lifecycle: _lifecycle,
    ...app
  } = template.spec!.containers[0]!;
  return {
    metadata: template.metadata!,
    spec: {
      ...template.spec!,
      restartPolicy: 'Never',
      containers: [{ ...app, name: preDeployContainerName, command: ['sh', '-c', command] }],
    },
  };
}

export function renderApplicationService(input: Pick<WorkloadInput, 'owner' | 'spec'>): V1Service {
  return servingService(input, childNames(input.owner.name).application, 'application');
}

/**
 * A Service only the Gateway's routes name (child-names.ts routeServiceNames): the application's pods,
 * or while a canary runs (canary.ts) the canary's, the route's second backend.
 */
export function renderRouteService(
  input: Pick<WorkloadInput, 'owner' | 'spec'>,
  name: string,
  component: 'application' | 'canary',
): V1Service {
  return servingService(input, name, component);
}

function servingService(input: Pick<WorkloadInput, 'owner' | 'spec'>, name: string, component: 'application' | 'canary'): V1Service {
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: childMetadata(input.owner, name, component, resources.labels ?? {}),
    spec: {
      selector: selectorLabels(input.owner, component),
      ports: [{ name: 'http', port: applicationServicePort, targetPort: 'http' }],
    },
  };
}

/**
 * The new revision's pods while a canary runs (canary.ts): the application's pod template under a
 * component of their own, so that the application's Service and autoscaler leave them out, at a fixed
 * count (the stable replicas' share at the step's weight).
 */
export function renderCanary(input: WorkloadInput, replicas: number): V1Deployment {
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: childMetadata(input.owner, childNames(input.owner.name).canary, 'canary', resources.labels ?? {}),
    spec: {
      replicas,
      strategy: surgeStrategy,
      progressDeadlineSeconds: input.progressDeadlineSeconds,
      selector: { matchLabels: selectorLabels(input.owner, 'canary') },
      template: podTemplate(input, 'canary', 'api', resources),
    },
  };
}

/**
 * How long a new queue worker pod must stay up before the rollout counts it and lets an old one go. A
 * queue worker serves no traffic, so nothing else tells a pod that exits at once (a bad revision) from
 * one that works: without it, such a pod replaced the working one, and queued runs waited for nobody.
 */
export const queueWorkerSettleSeconds = 10;

/** The durable agent server's queue worker is its server too: ready once it listens, after its
 * migrations and configuration checks (berth_agent_server.prepare). */
function agentQueueWorkerReadiness(port: number): V1Probe {
  return { tcpSocket: { port }, periodSeconds: 1, failureThreshold: 3 };
}

export function renderQueueWorker(input: WorkloadInput): V1Deployment {
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  const sizing: Sizing = {
    cpu: resources.queueCpu,
    cpuLimit: resources.queueCpuLimit,
    memoryMb: resources.queueMemoryMb,
    memoryLimitMb: resources.queueMemoryLimitMb,
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: childMetadata(input.owner, childNames(input.owner.name).queueWorker, 'queue-worker', resources.labels ?? {}),
    spec: {
      ...replicasFor(scaling(resources.queueMinScale, resources.queueMaxScale)),
      strategy: surgeStrategy,
      progressDeadlineSeconds: input.progressDeadlineSeconds,
      minReadySeconds: queueWorkerSettleSeconds,
      selector: { matchLabels: selectorLabels(input.owner, 'queue-worker') },
      template: podTemplate(input, 'queue-worker', 'queue', sizing),
    },
  };
}

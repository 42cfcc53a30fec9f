// What Berth renders for agent servers, built from their configuration file.
//
// The reference's image, where the installation builds on it and names its licence Secret: the key from
// the organization's copy (src/api/agent-server-license.ts), never the tenant's own variable of that name.
//
// How a durable agent server (src/agent-server, the installation's --agent-server-image) splits
// its runs when the Deployment has a queue worker, as the reference's API and queue pods do: the API's
// pods take runs and queue them (WORKER_COUNT=0), the queue worker's pods run them, ten at a time each
// (WORKER_COUNT=1, N_JOBS_PER_WORKER=10), and where the installation has KEDA the queue worker scales on
// the runs pending or running in the Deployment's own Postgres, between queueMinScale and queueMaxScale.
// KEDA connects with that database's own password (the queue worker's POSTGRES_PASSWORD), which reaches
// no other database. Pure.
import type { V1EnvVar } from '@kubernetes/client-node';
import {
  agentServerLicenseKey,
  childNames,
  defaultRunDrainSeconds,
  isBuiltSource,
  runQueueReadings,
  runQueueTriggerOrder,
} from '../../../api/index.ts';
import { applicationMinScale, scaling, type BackingServices, type Scaling } from './backing.ts';
import { scaledObject, type AutoscalingSettings, type ScaledObject } from './autoscalers.ts';
import type { OwnerDeployment } from './common.ts';
import type { DeploymentSpecInput } from './spec.ts';

/** Runs one process executes at once: one worker of ten, the reference's N_JOBS_PER_WORKER default
 * (aegra's own is three workers of ten, each run holding a connection). */
export const runsPerProcess = 10;

/** How often KEDA reads the backlog, in seconds: a run waits at most this long before a worker is asked for. */
const backlogPollingSeconds = 10;

/** Whether Berth builds the Deployment's image from its configuration file (langgraph.json): an agent server. */
function buildsAgentServer(spec: DeploymentSpecInput): boolean {
  return isBuiltSource(spec.source) && !!spec.sourceRevisionConfig?.graphConfigPath;
}

/** What Berth sets of a durable agent server (the installation's --agent-server-image, serving an agent
 * project built from its configuration file): every process's drain, and where its runs execute. */
export interface DurableServer {
  /** How long a pod told to stop finishes its runs (sourceConfig.runDrainSeconds). */
  drainSeconds: number;
  /** A queue worker runs the runs (any queue* field): the API's pods only queue them. */
  queued: boolean;
}

export function durableServerOf(
  spec: DeploymentSpecInput,
  agentServerImage: string | undefined,
  backing: BackingServices,
): DurableServer | undefined {
  if (agentServerImage === undefined || !buildsAgentServer(spec)) return undefined;
  return { drainSeconds: spec.sourceConfig?.runDrainSeconds ?? defaultRunDrainSeconds, queued: backing.queueWorker };
}

/** Seconds the kubelet gives a pod between its pre-stop sleep and its end, beyond the drains: the exit. */
const exitSeconds = 15;

/**
 * A durable agent server's pod told to stop takes no new run (patches/0004) and drains twice, each for
 * `seconds`: uvicorn waits for the requests that wait on runs, then the worker for the runs left; what
 * still runs then goes back to the queue and resumes from its last checkpoint on another pod. The grace
 * period covers the kubelet's pre-stop sleep, both drains and the exit, so no drain ends in a SIGKILL.
 */
export function runDrain(seconds: number, preStopSeconds: number): { env: V1EnvVar[]; terminationGracePeriodSeconds: number } {
  return {
    env: [{ name: 'WORKER_DRAIN_TIMEOUT', value: String(seconds) }],
    terminationGracePeriodSeconds: preStopSeconds + 2 * seconds + exitSeconds,
  };
}

/** The licence Secret an agent server on the reference's image reads, if the installation names one: one
 * built from its configuration file with no agent server image of the installation's, or the client's
 * own Docker build of it (internal_docker, on the reference's image). */
export function agentServerLicenseFor(
  spec: DeploymentSpecInput,
  installation: { agentServerImage?: string | undefined; licenseSecret?: string | undefined },
): string | undefined {
  if (!installation.licenseSecret) return undefined;
  const onReferenceImage = (buildsAgentServer(spec) && !installation.agentServerImage) || spec.source === 'internal_docker';
  return onReferenceImage ? installation.licenseSecret : undefined;
}

/** The licence key's variable, from the organization's copy. */
export function agentServerLicenseEnv(secret: string): V1EnvVar {
  return { name: agentServerLicenseKey, valueFrom: { secretKeyRef: { name: secret, key: agentServerLicenseKey } } };
}

/** A tenant's variables, less the licence key where the installation supplies it. */
export function withoutTenantLicense(env: V1EnvVar[], licensed: boolean): V1EnvVar[] {
  return licensed ? env.filter((entry) => entry.name !== agentServerLicenseKey) : env;
}

/** The most connections the image's pools open in one process: SQLAlchemy's 5 and 5 overflow, LangGraph's 10. */
const poolConnectionsPerProcess = 20;

/** Whether a process of this role executes runs: every one does but the API's, where a queue worker runs them. */
function executesRuns(server: DurableServer, role: 'api' | 'queue'): boolean {
  return role === 'queue' || !server.queued;
}

/**
 * Where a process's runs execute: the API's pods queue them when a queue worker runs them (the queue
 * worker's own env still wins by name), else run ten at once as a queue worker does. Each run holds one
 * connection (its thread's lock) beside the image's pools (20), so a process opens at most 30, whatever
 * the queue's length (aegra's own default runs three times ten).
 */
export function durableServerEnv(server: DurableServer, role: 'api' | 'queue'): V1EnvVar[] {
  if (!executesRuns(server, role)) return [{ name: 'WORKER_COUNT', value: '0' }];
  return [
    { name: 'WORKER_COUNT', value: '1' },
    { name: 'N_JOBS_PER_WORKER', value: String(runsPerProcess) },
  ];
}

/** The most connections one process of this role opens: its pools, and one per run it executes. */
function connectionsPerProcess(server: DurableServer, role: 'api' | 'queue'): number {
  return poolConnectionsPerProcess + (executesRuns(server, role) ? runsPerProcess : 0);
}

/** A workload's most replicas. */
function mostReplicas(scale: Scaling): number {
  return scale.kind === 'scaledToZero' ? 0 : scale.maxReplicas;
}

/** The most connections a durable server's pods open at once, every workload at its most replicas and
 * every process with its pools full and its runs all running; a rollout adds its draining pods' own. */
export function mostConnections(spec: DeploymentSpecInput, server: DurableServer): number {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const api = mostReplicas(scaling(applicationMinScale(spec), resources.maxScale)) * connectionsPerProcess(server, 'api');
  const queue = server.queued
    ? mostReplicas(scaling(resources.queueMinScale, resources.queueMaxScale)) * connectionsPerProcess(server, 'queue')
    : 0;
  return api + queue;
}

/** The queue worker's ScaledObject: one replica per ten runs in the backlog, or fewer for its CPU; its
 * pending runs read beside it (src/api/run-queue.ts). */
export function renderRunBacklogScaledObject(
  owner: OwnerDeployment,
  spec: DeploymentSpecInput,
  { scaleDownWindowSeconds }: AutoscalingSettings,
): ScaledObject | undefined {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const scale = scaling(resources.queueMinScale, resources.queueMaxScale);
  if (scale.kind === 'scaledToZero') return undefined;
  const names = childNames(owner.name);
  return scaledObject(
    owner,
    { name: names.queueWorker, component: 'queue-worker' },
    {
      minReplicaCount: scale.minReplicas,
      maxReplicaCount: scale.maxReplicas,
      pollingInterval: backlogPollingSeconds,
      scaleDownWindowSeconds,
    },
    runQueueTriggerOrder.map((reading) => ({
      type: 'postgresql',
      name: runQueueReadings[reading].trigger,
      metricType: 'AverageValue',
      metadata: {
        ...runQueueConnection(owner, spec),
        query: runQueueReadings[reading].query,
        targetQueryValue: String(runsPerProcess),
      },
    })),
  );
}

/** Where the run queue is read: the deployment's own Postgres, or the team's through the worker's DATABASE_URI. */
function runQueueConnection(owner: OwnerDeployment, spec: DeploymentSpecInput): Record<string, string> {
  if (spec.sourceConfig?.externalDatabase?.postgresUri) return { connectionFromEnv: 'DATABASE_URI' };
  return {
    host: `${childNames(owner.name).postgres}.${owner.namespace}.svc`,
    port: '5432',
    userName: 'postgres',
    dbName: 'postgres',
    // Encrypted: the trigger reaches the database from KEDA's namespace, across the pod network.
    sslmode: 'require',
    passwordFromEnv: 'POSTGRES_PASSWORD',
  };
}

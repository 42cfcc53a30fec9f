// The reference's own workload on the real node: an agent server, a project with a configuration file
// (langgraph.json), a graph of plain Python functions and no Dockerfile, deployed by the reference's own
// client (the pinned langgraph-cli from PyPI) with its remote build, unchanged: it finds the deployment
// by name, uploads the project, PATCHes langgraph_config_path and polls the revision until DEPLOYED.
// The build Job makes the Dockerfile with the same tooling; the Dockerfile names the reference's base
// image, langchain/langgraph-api:3.11, which the node resolves to the one built here from Debian's
// Python and PyPI's wheels. The deployed server answers /ok and runs the graph; a configuration file
// naming a graph that is not there fails the build with the step, the file and the error, while the
// previous revision keeps serving. The client's other paths (its default with a Docker engine, and
// --image-uri) are the helm suite's (test/helm/helm.test.ts), which runs them through the chart. The
// durable server (without Redis): runs survive their pod (a rollout, a deletion, a kill), a steady stream
// of runs crosses a rollout with none refused, and a cron fires once per tick across two replicas and
// their replacement; a queue worker taken away while it runs finishes its runs.
// Cost: about 16 minutes beside the other files (the suite's longest chain; CI's table has the figure).
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import type { PushRegistry } from '../../workbench/node/push-registry.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { copyAgentProject, runLanggraph, startLanggraph, type ClientUser } from '../../workbench/support/langgraph-cli.ts';
import {
  concurrentRuns,
  createCron,
  createThread,
  deleteCron,
  joinRuns,
  readThread,
  runOnThread,
  runsMade,
  startRuns,
  steadyRuns,
  streamRun,
  type AgentServer,
  type ThreadReading,
} from '../../workbench/support/langgraph-sdk.ts';
import { loopbackLookup } from '../../workbench/support/loopback.ts';
import { sharedSecretLabels } from '../../workbench/support/shared-secrets.ts';
import { nodeActivator } from '../../workbench/node/http-add-on.ts';
import { metricsStoreUrl } from '../../workbench/node/metrics-store.ts';
import { useOrganization } from '../support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { Agent, fetch as undiciFetch, type RequestInit } from 'undici';
import {
  appsCaCertificate,
  apply,
  componentPods,
  gatewayFlags,
  kubectlOk,
  service,
  serviceImage,
  sourceBuildFlags,
  startOrganizationRegistry,
} from './support.ts';

const execFileAsync = promisify(execFile);

let berth: BerthProcess;
let registry: PushRegistry | undefined;
let tool: Api;
let workdir: string;
let project: string;
let user: ClientUser;
let id: string;
let namespace: string;
let caFile: string;
let apps: Agent;

/** The production tier, sized for the node's two cores, with its database, cache and a queue worker. */
const sizing = {
  min_scale: 1,
  max_scale: 1,
  cpu: 0.1,
  memory_mb: 256,
  memory_limit_mb: 1024,
  queue_min_scale: 1,
  queue_max_scale: 2,
  queue_cpu: 0.1,
  queue_memory_mb: 256,
  queue_memory_limit_mb: 1024,
  db_cpu: 0.1,
  db_memory_mb: 128,
  redis_memory_mb: 64,
};

/** A request to an app's https URL on the node's Gateway, trusting the node's apps CA. */
const appFetch = (url: string, init: RequestInit = {}) => undiciFetch(url, { ...init, dispatcher: apps });

beforeAll(async () => {
  const { operatorNamespace, key, id: organization, ...org } = await useOrganization('agents');
  namespace = org.namespace;
  workdir = mkdtempSync(join(tmpdir(), 'berth-agents-'));
  project = copyAgentProject(workdir);
  // Apps at https URLs on the node's Gateway, dev_zero scaled to zero by the node's activator.
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    ...(await sourceBuildFlags()),
    ...gatewayFlags({ tls: true }),
    '--activator-proxy',
    `${nodeActivator.proxy.namespace}/${nodeActivator.proxy.name}:${nodeActivator.proxy.port}`,
    '--activator-scaler',
    nodeActivator.scalerAddress,
    // As `berth dev` asks: a quarter of each request. This file's deployments, builds and databases run
    // beside the other files' on the node's two cores; at full requests they took the scheduler's room
    // and left the other files' pods Pending past their deadlines.
    '--request-scale',
    '0.25',
    // The node's metrics store: a queue's runs over time (KEDA's readings), and the apps' requests.
    '--concurrency-metrics',
    metricsStoreUrl,
  ]);
  const ca = await appsCaCertificate();
  caFile = join(workdir, 'apps-ca.pem');
  writeFileSync(caFile, ca);
  apps = new Agent({ connect: { ca, lookup: loopbackLookup } });
  await waitReady(berth);
  const berthUrl = `http://127.0.0.1:${await berth.facadePort()}`;
  const api = `${berthUrl}/api-host`;
  registry = await startOrganizationRegistry(berth, operatorNamespace, join(workdir, 'registry'));
  tool = httpApi(api, { 'x-api-key': key, 'X-Tenant-ID': organization });
  user = { api, key, organization, home: workdir };
  // The platform team sized the deployment for the node's two cores; the client finds it by its name.
  const created = await tool.ok('POST', '/v2/deployments', {
    name: 'agent',
    source: 'internal_source',
    source_config: { deployment_type: 'prod', resource_spec: sizing },
    source_revision_config: {},
  });
  id = created.id;
}, 900_000);

afterAll(async () => {
  await apps?.close();
  await registry?.stop();
  await berth?.stop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

/** The reference client, run in the project as its user. */
const client = (args: string[]) => runLanggraph(user, project, args);

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status: { podIP?: string; conditions?: { type: string; status: string }[] };
}

/** WORKER_COUNT of a workload's first container. */
async function workerCount(workload: string): Promise<string> {
  return kubectlOk([
    'get',
    'deployments.apps',
    workload,
    '-n',
    namespace,
    '-o',
    'jsonpath={.spec.template.spec.containers[0].env[?(@.name=="WORKER_COUNT")].value}',
  ]);
}

/** The revisions the deployment's application pods run (terminating ones included). */
async function servingRevisions(deployment: string): Promise<string[]> {
  const pods = await componentPods<Pod>(namespace, deployment);
  return [...new Set(pods.map((pod) => pod.metadata.labels?.['berth.dev/revision'] ?? ''))];
}

/** The queue worker's replicas, as its autoscaler last set them. */
async function queueWorkerReplicas(): Promise<number> {
  return Number(await kubectlOk(['get', 'deployments.apps', 'agent-queue', '-n', namespace, '-o', 'jsonpath={.spec.replicas}']));
}

/** The runs running now, by the queue worker pod that holds them (aegra's claimed_by: host, pid, worker). */
async function runsHeldByQueueWorkers(): Promise<Map<string, string[]>> {
  const rows = await psql("SELECT run_id || ' ' || claimed_by FROM runs WHERE status = 'running' AND claimed_by IS NOT NULL");
  const pods = (await componentPods<Pod>(namespace, 'agent', 'queue-worker')).map((pod) => pod.metadata.name);
  const held = new Map<string, string[]>();
  for (const [runId, claimedBy] of rows
    .split('\n')
    .filter(Boolean)
    .map((row) => row.split(' '))) {
    const pod = pods.find((name) => claimedBy!.startsWith(`${name}-`));
    if (pod) held.set(pod, [...(held.get(pod) ?? []), runId!]);
  }
  return held;
}

/** An agent server's run queue in the HTTP API's figures. */
interface QueueFigures {
  pending_runs: number;
  active_runs: number;
}

/** One SQL statement in the agent deployment's own Postgres, as its superuser; the answer unaligned. */
async function psql(sql: string): Promise<string> {
  return (await kubectlOk(['exec', '-n', namespace, 'agent-postgres-0', '--', 'psql', '-U', 'postgres', '-tAc', sql])).trim();
}

/** A POST with a JSON body to the deployed server, bounded in time. */
async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await appFetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json() };
}

/** An agent deployment's resources, sized for the node, with its database. */
const smallSpec = { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 256, memory_limit_mb: 1024, db_cpu: 0.1, db_memory_mb: 128 };

/** A one-replica agent deployment of uploaded sources, sized for the node, its database deleted with it. */
function createSmallAgent(name: string, tier: string) {
  return tool.ok('POST', '/v2/deployments', {
    name,
    source: 'internal_source',
    source_config: { deployment_type: tier, resource_spec: smallSpec, database_retention: 'delete' },
    source_revision_config: {},
  });
}

/** An agent deployment of the agent's image (no build of its own: the client's builds are the agent's),
 * `replicas` sized for the node, its database deleted with it, once its first revision is DEPLOYED. */
async function deployImageAgent(
  name: string,
  tier: string,
  replicas: number,
  secrets: { name: string; value: string }[] = [],
): Promise<{ id: string; server: AgentServer }> {
  const created = await tool.ok('POST', '/v2/deployments', {
    name,
    source: 'external_docker',
    source_config: {
      deployment_type: tier,
      resource_spec: { ...smallSpec, min_scale: replicas, max_scale: replicas },
      database_retention: 'delete',
    },
    source_revision_config: { image_uri: await agentImage() },
    secrets,
  });
  await latestReaches(created.id, ['DEPLOYED']);
  const deployment = await tool.ok('GET', `/v2/deployments/${created.id}`);
  return { id: created.id, server: { url: deployment.url as string, caFile } };
}

const keysFixture = join(import.meta.dirname, 'fixtures/agent-keys');

/** The keys fixture project, its configuration changed by `change`, with the wheel only its pip.conf
 * finds, uploaded to deployment `deploymentId`: the archive's object path. */
async function uploadKeysProject(
  deploymentId: string,
  change: (config: Record<string, unknown>) => Record<string, unknown> = (config) => config,
) {
  const dir = mkdtempSync(join(workdir, 'keys-'));
  cpSync(join(keysFixture, 'project'), dir, { recursive: true });
  const config = join(dir, 'langgraph.json');
  writeFileSync(config, JSON.stringify(change(JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>)));
  await execFileAsync('python3', [join(keysFixture, 'make_wheel.py'), join(dir, 'wheels')]);
  const archive = `${dir}.tar.gz`;
  await execFileAsync('tar', ['-czf', archive, '-C', dir, '.']);
  const grant = await tool.ok('POST', `/v2/deployments/${deploymentId}/upload-url`);
  const stored = await fetch(grant.upload_url, {
    method: 'PUT',
    body: readFileSync(archive),
    headers: grant.upload_headers,
    signal: AbortSignal.timeout(30_000),
  });
  expect(stored.status).toBe(200);
  return grant.object_path as string;
}

/** A revision of the uploaded sources of deployment `deploymentId`, once it settles. */
async function deployUpload(deploymentId: string, objectPath: string, timeoutMs: number) {
  const patched = await tool.ok('PATCH', `/v2/deployments/${deploymentId}`, {
    revision_source: 'internal_source',
    source_revision_config: { source_tarball_path: objectPath, graph_config_path: 'langgraph.json' },
  });
  return revisionReaches(tool, deploymentId, patched.latest_revision_id, ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED'], { timeoutMs });
}

/** A dev_zero agent of the agent's image, and a thread made on it. */
async function deploySleepyAgent(): Promise<{ id: string; server: AgentServer; thread: ThreadReading }> {
  const sleepy = await deployImageAgent('agent-zero', 'dev_zero', 1);
  return { ...sleepy, thread: await createThread(sleepy.server, { text: 'sleep on it' }) };
}

/** The deployment's latest revision once its status is one of `statuses`. */
async function latestReaches(deploymentId: string, statuses: string[]): Promise<unknown> {
  const deployment = await eventually(
    async () => {
      const read = await tool.ok('GET', `/v2/deployments/${deploymentId}`);
      return read.latest_revision_id ? read : undefined;
    },
    60_000,
    'a first revision',
  );
  return revisionReaches(tool, deploymentId, deployment.latest_revision_id, statuses, { timeoutMs: 300_000 });
}

/** The image the agent deployment serves: the later deployments that need no build of their own run it. */
async function agentImage(): Promise<string> {
  const deployment = await tool.ok('GET', `/v2/deployments/${id}`);
  const revision = await tool.ok('GET', `/v2/deployments/${id}/revisions/${deployment.active_revision_id}`);
  return revision.image_uri as string;
}

/** A durable agent server of two replicas of the agent's image, each running its cron scheduler, with
 * the settings that make its schedules seconds-long (aegra's CRON_* variables, as secrets). */
function deployCronAgent(): Promise<{ id: string; server: AgentServer }> {
  return deployImageAgent('agent-cron', 'dev', 2, [
    { name: 'CRON_ALLOW_SECONDS_SCHEDULE', value: 'true' },
    { name: 'CRON_POLL_INTERVAL_SECONDS', value: '1' },
    { name: 'CRON_CLAIM_DURATION_SECONDS', value: '20' },
  ]);
}

/**
 * A Postgres the team runs itself (a pod and its Service in the organization's namespace, Berth's
 * nothing), and two Secrets shared with Berth holding URIs of it: one with its password, one with a
 * wrong one.
 */
async function startTeamDatabase(password: string): Promise<void> {
  const uri = (secret: string) => `postgres://postgres:${secret}@team-postgres:5432/agents?sslmode=disable`;
  const shared = (name: string, value: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, labels: sharedSecretLabels },
    stringData: { uri: value },
  });
  await apply(
    namespace,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'team-postgres', labels: { role: 'team-postgres' } },
      spec: {
        terminationGracePeriodSeconds: 2,
        containers: [
          {
            name: 'postgres',
            image: await serviceImage('postgres'),
            env: [
              { name: 'POSTGRES_PASSWORD', value: password },
              { name: 'POSTGRES_DB', value: 'agents' },
            ],
            readinessProbe: { exec: { command: ['pg_isready', '-U', 'postgres'] }, periodSeconds: 1 },
            resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
          },
        ],
      },
    },
    service('team-postgres', { role: 'team-postgres' }, 5432),
    shared('team-db', uri(password)),
    shared('team-db-wrong', uri(`not-${password}`)),
  );
}

/** An agent deployment of the agent's image on the team's own Postgres, named by the Secret `secret`. */
async function deployOnTeamDatabase(name: string, secret: string, image: string): Promise<{ id: string }> {
  return tool.ok('POST', '/v2/deployments', {
    name,
    source: 'external_docker',
    source_config: {
      deployment_type: 'dev',
      resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 256, memory_limit_mb: 1024 },
      external_database: { postgres_uri: { name: secret, key: 'uri' } },
    },
    source_revision_config: { image_uri: image },
  });
}

const teamPassword = `team-${process.pid}-secret`;

/** The team's database, then two agents on it: one with its password, one with a wrong one. */
async function deployTeamDatabaseAgents() {
  const [image] = await Promise.all([agentImage(), startTeamDatabase(teamPassword)]);
  const own = await deployOnTeamDatabase('agent-team-db', 'team-db', image);
  const wrong = await deployOnTeamDatabase('agent-wrong-db', 'team-db-wrong', image);
  await Promise.all([latestReaches(own.id, ['DEPLOYED', 'DEPLOY_FAILED']), latestReaches(wrong.id, ['DEPLOYED', 'DEPLOY_FAILED'])]);
  return [own, wrong] as const;
}

/** The keys project's deployment and its first revision, once it settles. */
async function deployKeysAgent(): Promise<{ id: string; revision: { id: string; status: string; status_message: string } }> {
  const created = await createSmallAgent('agent-keys', 'dev');
  return { id: created.id, revision: await deployUpload(created.id, await uploadKeysProject(created.id), 480_000) };
}

/** Deployments that later tests read, started once the tests that time a run (streaming, queueing) are
 * done: their builds, and the dev_zero one's idle window, pass while the tests between them run. Each
 * later test still checks all it checked when it made its deployment itself. */
let sleepyAgent: ReturnType<typeof deploySleepyAgent>;
let cronAgent: ReturnType<typeof deployCronAgent>;
let teamDatabaseAgents: ReturnType<typeof deployTeamDatabaseAgents>;
let keysAgent: ReturnType<typeof deployKeysAgent>;
let pgvectorRevision: ReturnType<typeof deployPgvectorRevision>;
let expiringItems: ReturnType<typeof makeExpiringItems>;
/** The later deployments, started now if the rollout test has not started them (a filtered run). */
function later() {
  startLaterDeployments();
  return { sleepyAgent, cronAgent, teamDatabaseAgents, keysAgent, pgvectorRevision, expiringItems };
}
let laterStarted = false;
function startLaterDeployments(): void {
  if (laterStarted) return;
  laterStarted = true;
  // One after another, in the order the tests read them: each starts agent servers and their Postgres,
  // and all of them at once on the node's two cores, beside another file, held rollouts past their
  // deadlines. This file ends well before the files that take turns beside it, so the waits cost the
  // suite nothing.
  const after = (earlier: Promise<unknown>) =>
    earlier.then(
      () => undefined,
      () => undefined,
    );
  sleepyAgent = deploySleepyAgent();
  cronAgent = after(sleepyAgent).then(deployCronAgent);
  teamDatabaseAgents = after(cronAgent).then(deployTeamDatabaseAgents);
  keysAgent = after(teamDatabaseAgents).then(deployKeysAgent);
  // The keys project's revision that needs pgvector follows its first at once: its build and its
  // failure pass while the tests between run, and the first revision serves their requests meanwhile.
  pgvectorRevision = keysAgent.then(({ id: keysId }) => deployPgvectorRevision(keysId));
  // Their TTLs pass while the tests between run too.
  expiringItems = keysAgent.then(({ id: keysId }) => makeExpiringItems(keysId));
  // Awaited by their tests; a failure is theirs to report, never an unhandled rejection.
  for (const started of [sleepyAgent, cronAgent, teamDatabaseAgents, keysAgent, pgvectorRevision, expiringItems]) started.catch(() => {});
}

/** A request to the keys project's server, bounded in time: its status. */
const statusOf = async (url: string, init: RequestInit = {}) =>
  (await appFetch(url, { ...init, signal: AbortSignal.timeout(10_000) })).status;

/** A thread and a store item made on the keys project as soon as it serves, each read back once: its
 * configuration gives both a TTL of 0.5 min, swept every 6 s. Their URLs. */
async function makeExpiringItems(keysId: string): Promise<{ thread: string; item: string }> {
  const keysUrl = (await tool.ok('GET', `/v2/deployments/${keysId}`)).url as string;
  await eventually(async () => (await statusOf(`${keysUrl}/ok`).catch(() => undefined)) === 200, 120_000, 'the keys project answering /ok');
  const made = await postJson(`${keysUrl}/agents/threads`, {});
  expect(made.status).toBe(200);
  const thread = `${keysUrl}/agents/threads/${(made.body as { thread_id: string }).thread_id}`;
  expect(await statusOf(thread)).toBe(200);
  const items = `${keysUrl}/agents/store/items`;
  const put = await statusOf(items, {
    method: 'PUT',
    body: JSON.stringify({ namespace: ['ttl'], key: 'brief', value: { kept: 'for a while' } }),
    headers: { 'Content-Type': 'application/json' },
  });
  expect(put).toBe(204);
  const item = `${items}?namespace=ttl&key=brief`;
  expect(await statusOf(item)).toBe(200);
  return { thread, item };
}

/** A revision of the keys project whose store.index needs pgvector, once it settles, and the deployment before it. */
async function deployPgvectorRevision(keysId: string) {
  const before = await tool.ok('GET', `/v2/deployments/${keysId}`);
  const objectPath = await uploadKeysProject(keysId, (config) => ({
    ...config,
    store: { index: { dims: 3, embed: 'openai:text-embedding-3-small' } },
  }));
  return { before, revision: await deployUpload(keysId, objectPath, 480_000) };
}

/** The secret whose change rolls the agent deployment to a new revision on the image built. */
const rolloutMark = { name: 'ROLLOUT_MARK', value: 'threads' };

describe('an agent server deployed by the reference client', () => {
  let url: string;
  /** The server at its https URL, as the SDK reaches it. */
  let server: AgentServer;

  it(
    'deploys with the remote build, the Dockerfile made from langgraph.json, streaming its build log once, and serves the graph',
    { timeout: 300_000 },
    async () => {
      const output = await client(['deploy', '--remote', '--verbose', '--name', 'agent', '--no-input', '-c', 'langgraph.json']);
      // --verbose polls the build log by its offsets: each line printed once, in order.
      expect(output.split('\n').filter((line) => line.includes('making the Dockerfile from langgraph.json'))).toHaveLength(1);
      const deployment = await tool.ok('GET', `/v2/deployments/${id}`);
      expect(deployment.source_revision_config.graph_config_path).toBe('langgraph.json');
      const revision = await tool.ok('GET', `/v2/deployments/${id}/revisions/${deployment.latest_revision_id}`);
      expect(revision.status, revision.status_message).toBe('DEPLOYED');
      url = deployment.url;
      expect(url).toMatch(/^https:\/\/agent\./);
      server = { url, caFile };
      const ok = await eventually(
        async () => {
          const answer = await appFetch(`${url}/ok`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
          return answer?.status === 200 ? ((await answer.json()) as { ok: boolean }) : undefined;
        },
        120_000,
        'the agent server answering /ok',
      );
      expect(ok.ok).toBe(true);
      expect(await postJson(`${url}/runs/wait`, { assistant_id: 'agent', input: { text: 'hello from berth' } })).toEqual({
        status: 200,
        body: { text: 'HELLO FROM BERTH!' },
      });
      // The production tier's server gets its database and cache as the reference's image reads them.
      const env = (
        await kubectlOk([
          'get',
          'deployments.apps',
          'agent',
          '-n',
          namespace,
          '-o',
          'jsonpath={.spec.template.spec.containers[0].env[*].name}',
        ])
      ).split(' ');
      expect(env).toEqual(expect.arrayContaining(['DATABASE_URI', 'REDIS_URI', 'WORKER_COUNT']));
      // The API queues runs; the queue worker runs them (that run went through it).
      expect(await workerCount('agent')).toBe('0');
      expect(await workerCount('agent-queue')).toBe('1');
    },
  );

  it("keeps a thread and its history in the deployment's Postgres when the server's pod is replaced", { timeout: 300_000 }, async () => {
    const first = await createThread(server, { text: 'remember me' });
    expect(first).toMatchObject({ status: 'idle', values: { text: 'REMEMBER ME!' } });
    const before = await componentPods<{ metadata: { name: string } }>(namespace, 'agent');
    await kubectlOk(['delete', 'pod', '-n', namespace, ...before.map((pod) => pod.metadata.name), '--wait=true']);
    // A new pod, not one of those deleted, answers: the thread is the one the old pod kept.
    await eventually(
      async () => {
        const answer = await appFetch(`${url}/ok`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
        if (answer?.status !== 200) return undefined;
        const pods = await componentPods<{ metadata: { name: string } }>(namespace, 'agent');
        return pods.length > 0 && pods.every((pod) => !before.some((old) => old.metadata.name === pod.metadata.name));
      },
      180_000,
      'a new agent server pod answering /ok',
    );
    expect(await readThread(server, first.thread_id)).toEqual(first);
    const next = await runOnThread(server, first.thread_id, { text: 'and me' });
    expect(next).toMatchObject({ thread_id: first.thread_id, status: 'idle', values: { text: 'AND ME!' } });
    expect(next.checkpoints).toBeGreaterThan(first.checkpoints);
  });

  it("answers its figures in the HTTP API: its server's and queue worker's pods, and its database's", { timeout: 180_000 }, async () => {
    interface Usage {
      cpu_cores: number | null;
      memory_bytes: number | null;
    }
    interface Figures {
      application: Usage & { replicas: number; ready_replicas: number };
      database: (Usage & { disk_capacity_bytes: number | null }) | null;
    }
    // metrics-server reads a pod within a scrape or two of its start.
    const figures = await eventually(
      async () => {
        const read: Figures = await tool.ok('GET', `/v2/deployments/${id}/metrics`);
        return (read.application.memory_bytes ?? 0) > 0 && (read.database?.memory_bytes ?? 0) > 0 ? read : undefined;
      },
      120_000,
      "the deployment's figures with its database's",
    );
    console.error(`[agent-server] figures: ${JSON.stringify(figures)}`);
    // The API server and the queue worker, each ready.
    expect(figures.application.ready_replicas).toBeGreaterThanOrEqual(2);
    expect(figures.database?.cpu_cores).not.toBeNull();
    expect(figures.database?.disk_capacity_bytes).toBeGreaterThan(0);
  });

  it('streams a run through the Gateway as it goes: its first event comes while it still runs', async () => {
    const streamed = await streamRun(server, 'notes', { notes: ['streamed'], seconds: 3 });
    if (streamed.reconnected.length > 0) console.error(`[agent-server] the stream reconnected: ${JSON.stringify(streamed.reconnected)}`);
    expect(['pending', 'running'], JSON.stringify(streamed)).toContain(streamed.first_seen_while);
    expect(streamed.events[0]).toBe('metadata');
    expect(streamed.events).toContain('values');
    expect(streamed.values.notes).toEqual(['streamed']);
  });

  it('applies two runs sent at once to one thread one after the other, and refuses the second with reject', async () => {
    const thread = await createThread(server, { notes: ['start'] }, 'notes');
    // The first run takes two seconds: the second arrives while it runs, on the state it will leave.
    const queued = await concurrentRuns(server, thread.thread_id, 'notes', [
      { input: { notes: ['a'], seconds: 2 }, strategy: 'enqueue' },
      { input: { notes: ['b'], seconds: 0 }, strategy: 'enqueue' },
    ]);
    expect(queued.outcomes).toEqual(['ok', 'ok']);
    expect(queued.thread.values.notes).toEqual(['start', 'a', 'b']);
    const refused = await concurrentRuns(server, thread.thread_id, 'notes', [
      { input: { notes: ['c'], seconds: 2 }, strategy: 'enqueue' },
      { input: { notes: ['d'], seconds: 0 }, strategy: 'reject' },
    ]);
    expect(refused.outcomes).toEqual(['ok', 409]);
    expect(refused.thread.values.notes).toEqual(['start', 'a', 'b', 'c']);
  });

  it(
    "scales the queue worker on the backlog of runs in the deployment's Postgres, and a worker taken away drains the runs it holds",
    { timeout: 720_000 },
    async () => {
      // Before any rollout: a pod deleted while its init containers run misses the kubelet's SIGTERM
      // (kubernetes/kubernetes#125050) and would take the backlog's runs until its grace period ends.
      // KEDA reads the backlog with the database's own password (its trigger is Ready once it has).
      await eventually(
        async () => {
          const scaled = JSON.parse(await kubectlOk(['get', 'scaledobjects.keda.sh', 'agent-queue', '-n', namespace, '-o', 'json'])) as {
            spec: { triggers: { type: string }[] };
            status?: { conditions?: { type: string; status: string }[] };
          };
          return (
            scaled.spec.triggers[0]?.type === 'postgresql' &&
            scaled.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          );
        },
        120_000,
        "the queue worker's ScaledObject Ready",
      );
      const runs = await startRuns(server, 'notes', 14, { notes: ['slow'], seconds: 45 });
      // The HTTP API's figures have the queue as KEDA reads it: runs waiting and running, out of the 14.
      const queued = await eventually(
        async () => {
          const { queue } = (await tool.ok('GET', `/v2/deployments/${id}/metrics`)) as { queue: QueueFigures | null };
          return queue && queue.active_runs > 0 ? queue : undefined;
        },
        120_000,
        'active runs in the figures',
      );
      console.error(`[agent-server] queue under load: ${JSON.stringify(queued)}`);
      expect(queued.pending_runs + queued.active_runs).toBeLessThanOrEqual(14);
      // The first worker runs ten (N_JOBS_PER_WORKER); the second one KEDA asks for takes the rest.
      const holders = await eventually(
        async () => {
          const held = await runsHeldByQueueWorkers();
          return held.size === 2 ? held : undefined;
        },
        240_000,
        'runs running on two queue workers',
      );
      // At its busiest the server holds no more than the database lets it: each process runs ten at once.
      const [open, most] = await Promise.all([
        psql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"),
        psql('SHOW max_connections'),
      ]);
      console.error(`[agent-server] connections with the runs on two queue workers: ${open} of ${most}`);
      expect(Number(open)).toBeLessThan(Number(most));
      // A scale-in while both run: the ReplicaSet takes one away, which finishes what it holds (its drain).
      await tool.ok('PATCH', `/v2/deployments/${id}`, {
        source_config: { deployment_type: 'prod', resource_spec: { ...sizing, queue_max_scale: 1 } },
      });
      const gone = await eventually(
        async () => {
          const pods = await componentPods<Pod>(namespace, 'agent', 'queue-worker');
          return pods.find((pod) => pod.metadata.deletionTimestamp && holders.has(pod.metadata.name))?.metadata.name;
        },
        120_000,
        'a queue worker holding runs told to go',
      );
      const drained = runs.filter(([, runId]) => holders.get(gone)!.includes(runId));
      expect(drained.length).toBeGreaterThan(0);
      expect(await joinRuns(server, runs)).toEqual(runs.map(() => 'success'));
      // Each run of the worker that went ran once: its thread has its one note, not two.
      for (const [threadId] of drained) expect((await readThread(server, threadId)).values.notes).toEqual(['slow']);
      // The queue over time, as KEDA read it (the store keeps its operator's readings): the runs ran.
      const end = new Date();
      const query = new URLSearchParams({ start: new Date(end.getTime() - 600_000).toISOString(), end: end.toISOString(), step: '15' });
      const range = await tool.ok('GET', `/v2/deployments/${id}/metrics?${query}`);
      const series = new Map((range.series as { metric: string; points: [number, number | null][] }[]).map((s) => [s.metric, s.points]));
      expect(
        Math.max(...(series.get('active_runs') ?? []).map(([, value]) => value ?? 0)),
        JSON.stringify(range.unavailable),
      ).toBeGreaterThan(0);
      expect(series.get('pending_runs')?.length).toBe(series.get('active_runs')?.length);
      await eventually(
        async () => {
          const { queue } = (await tool.ok('GET', `/v2/deployments/${id}/metrics`)) as { queue: QueueFigures | null };
          return (queue?.pending_runs === 0 && queue.active_runs === 0) || undefined;
        },
        60_000,
        'an empty queue in the figures once the runs are done',
      );
      await tool.ok('PATCH', `/v2/deployments/${id}`, { source_config: { deployment_type: 'prod', resource_spec: sizing } });
      expect(await queueWorkerReplicas()).toBe(1);
    },
  );

  it('keeps every thread through a rollout to a new revision', { timeout: 400_000 }, async () => {
    // From here on the tests time nothing finer than a rollout: the later deployments start beside
    // them once this rollout has ended (whatever its outcome, a timeout too), not during it.
    onTestFinished(startLaterDeployments);
    const thread = await createThread(server, { text: 'before the rollout' });
    const before = await tool.ok('GET', `/v2/deployments/${id}`);
    const oldRevisions = await servingRevisions('agent');
    // A secret's change: a new revision on the image built (the client's redeploy, with its build, is the
    // auth.path test's below).
    const patched = await tool.ok('PATCH', `/v2/deployments/${id}`, { secrets: [rolloutMark] });
    expect(patched.latest_revision_id).not.toBe(before.latest_revision_id);
    const revision = await revisionReaches(tool, id, patched.latest_revision_id, ['DEPLOYED', 'DEPLOY_FAILED', 'BUILD_FAILED'], {
      timeoutMs: 240_000,
    });
    expect(revision.status, revision.status_message).toBe('DEPLOYED');
    expect((await tool.ok('GET', `/v2/deployments/${id}`)).active_revision_id).toBe(patched.latest_revision_id);
    // Only the new revision's pods are left, and they read the thread the old ones made.
    await eventually(
      async () => {
        const now = await servingRevisions('agent');
        return now.length === 1 && !oldRevisions.includes(now[0]!) ? now : undefined;
      },
      180_000,
      "only the new revision's pods",
    );
    expect(await readThread(server, thread.thread_id)).toEqual(thread);
    expect(await runOnThread(server, thread.thread_id, { text: 'after it' })).toMatchObject({ values: { text: 'AFTER IT!' } });
  });

  it(
    "fails a revision whose migration fails, with the migration's own error, while the previous one serves",
    { timeout: 400_000 },
    async () => {
      const thread = await createThread(server, { text: 'before a bad migration' });
      const head = await psql('SELECT version_num FROM alembic_version');
      // The database as a newer server left it: a revision this server's migrations do not know.
      await psql("UPDATE alembic_version SET version_num = 'f00dbeef'");
      try {
        const before = await tool.ok('GET', `/v2/deployments/${id}`);
        // The new revision drops the serving one's secret: its pods read their revision's own copy.
        const patched = await tool.ok('PATCH', `/v2/deployments/${id}`, { secrets: [{ name: 'MIGRATION_PROBE', value: 'one' }] });
        expect(patched.latest_revision_id).not.toBe(before.latest_revision_id);
        const revision = await revisionReaches(tool, id, patched.latest_revision_id, ['DEPLOY_FAILED', 'DEPLOYED', 'BUILD_FAILED'], {
          timeoutMs: 300_000,
        });
        expect(revision.status).toBe('DEPLOY_FAILED');
        expect(revision.status_message).toContain('CrashLoopBackOff');
        expect(revision.status_message).toContain("Can't locate revision identified by 'f00dbeef'");
        expect((await tool.ok('GET', `/v2/deployments/${id}`)).active_revision_id).toBe(before.active_revision_id);
        expect(await readThread(server, thread.thread_id)).toEqual(thread);
      } finally {
        await psql(`UPDATE alembic_version SET version_num = '${head}'`);
        await tool.ok('PATCH', `/v2/deployments/${id}`, { secrets: [rolloutMark] });
      }
    },
  );

  it('serves one thread through either of two replicas', { timeout: 300_000 }, async () => {
    await tool.ok('PATCH', `/v2/deployments/${id}`, {
      source_config: { deployment_type: 'prod', resource_spec: { ...sizing, min_scale: 2, max_scale: 2 } },
    });
    // Two ready pods of one template, and no other but those told to go (a failed revision's pod may
    // take its drain's grace to end).
    const [first, second] = await eventually(
      async () => {
        const pods = (await componentPods<Pod>(namespace, 'agent')).filter((pod) => !pod.metadata.deletionTimestamp);
        const ready = pods.filter((pod) => pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
        const templates = new Set(pods.map((pod) => pod.metadata.labels?.['pod-template-hash']));
        return ready.length === 2 && pods.length === 2 && templates.size === 1
          ? ready.map((pod) => `http://${pod.status.podIP}:8000`)
          : undefined;
      },
      180_000,
      'two ready replicas',
    );
    const thread = await createThread(first!, { text: 'made on one' });
    expect(await readThread(second!, thread.thread_id)).toEqual(thread);
    const next = await runOnThread(second!, thread.thread_id, { text: 'run on the other' });
    expect(next).toMatchObject({ values: { text: 'RUN ON THE OTHER!' } });
    expect(await readThread(first!, thread.thread_id)).toEqual(next);
    // The two stay for the next test's, which asks for two as well and takes the deployment back to one.
  });

  it(
    'runs a pre-deploy command once per revision before it serves, and keeps the previous revision serving when one fails',
    { timeout: 480_000 },
    async () => {
      // A migration as an app's would be: it records each run in the deployment's own database.
      const migrate = `python3 -c "import os, psycopg
with psycopg.connect(os.environ['DATABASE_URI']) as db:
    db.execute('CREATE TABLE IF NOT EXISTS pre_deploy_runs (revision text, at timestamptz DEFAULT now())')
    db.execute('INSERT INTO pre_deploy_runs (revision) VALUES (%s)', (os.environ['MIGRATION_MARK'],))"`;
      const deploy = async (mark: string) => {
        const before = await tool.ok('GET', `/v2/deployments/${id}`);
        const patched = await tool.ok('PATCH', `/v2/deployments/${id}`, { secrets: [{ name: 'MIGRATION_MARK', value: mark }] });
        expect(patched.latest_revision_id).not.toBe(before.latest_revision_id);
        return {
          before,
          revision: await revisionReaches(tool, id, patched.latest_revision_id, ['DEPLOYED', 'DEPLOY_FAILED', 'BUILD_FAILED'], {
            timeoutMs: 300_000,
          }),
        };
      };
      try {
        // Two replicas of the server, and its queue worker: the command still runs once.
        await tool.ok('PATCH', `/v2/deployments/${id}`, {
          source_config: { pre_deploy_command: migrate, resource_spec: { ...sizing, min_scale: 2, max_scale: 2 } },
        });
        const good = await deploy('first');
        expect(good.revision.status, good.revision.status_message).toBe('DEPLOYED');
        expect(await psql("SELECT count(*) FROM pre_deploy_runs WHERE revision = 'first'")).toBe('1');
        const serving = (await componentPods<Pod>(namespace, 'agent')).filter((pod) => !pod.metadata.deletionTimestamp);
        expect(serving.map((pod) => pod.metadata.labels?.['berth.dev/revision'])).toEqual([good.revision.name, good.revision.name]);

        await tool.ok('PATCH', `/v2/deployments/${id}`, {
          source_config: { pre_deploy_command: 'echo "migration 0042 failed: column tenant_id does not exist" >&2; exit 3' },
        });
        const bad = await deploy('second');
        expect(bad.revision.status).toBe('DEPLOY_FAILED');
        expect(bad.revision.status_message).toMatch(/^The pre-deploy command failed: step "pre-deploy" exited with code 3/);
        expect(bad.revision.status_message).toContain('migration 0042 failed: column tenant_id does not exist');
        // The revision's deploy log has the command's own output, as its status has its last lines.
        const log = await tool.ok('GET', `/v2/deployments/${id}/revisions/${bad.revision.id}/logs?type=deploy&limit=100`);
        expect(log.logs).toContainEqual(
          expect.objectContaining({
            container_name: 'pre-deploy',
            message: 'migration 0042 failed: column tenant_id does not exist',
          }),
        );
        expect((await tool.ok('GET', `/v2/deployments/${id}`)).active_revision_id).toBe(bad.before.active_revision_id);
        expect(await postJson(`${url}/runs/wait`, { assistant_id: 'agent', input: { text: 'served on' } })).toEqual({
          status: 200,
          body: { text: 'SERVED ON!' },
        });
      } finally {
        // An empty command removes it (a null member of a PATCH leaves a field as it is).
        await tool.ok('PATCH', `/v2/deployments/${id}`, {
          source_config: { pre_deploy_command: '', resource_spec: sizing },
          secrets: [],
        });
        expect((await tool.ok('GET', `/v2/deployments/${id}`)).source_config.pre_deploy_command).toBe('');
      }
    },
  );

  it('takes a dev_zero agent to zero when idle and wakes it with every thread intact', { timeout: 600_000 }, async () => {
    // Deployed by the client, with a thread made on it, during the tests before (startLaterDeployments).
    const { server: sleepy, thread } = await later().sleepyAgent;
    await eventually(
      async () => (await componentPods(namespace, 'agent-zero')).length === 0 || undefined,
      300_000,
      'agent-zero at zero pods',
    );
    // The first request waits while a pod starts; the thread is the one the last pod kept.
    expect(await readThread(sleepy, thread.thread_id)).toEqual(thread);
    expect(await runOnThread(sleepy, thread.thread_id, { text: 'and wake' })).toMatchObject({ values: { text: 'AND WAKE!' } });
  });

  it(
    'finishes a run in flight through a rollout (a steady stream of background runs across it, each success, none refused) and when its pod is deleted, and resumes one whose pod was killed from its last checkpoint, without Redis',
    { timeout: 600_000 },
    async () => {
      // agent-zero, awake from the test before, runs in one process with its runs queued in Postgres.
      const { id: sleepyId, server: sleepy } = await later().sleepyAgent;
      const notesOf = async (threadId: string) => ((await readThread(sleepy, threadId)).values.notes ?? []) as string[];
      /** A run of four steps of 4 s, its pod told to go after the first (`disrupt`), joined once only a new pod is left. */
      const runThrough = async (disrupt: (pods: string[]) => Promise<void>) => {
        const [run] = await startRuns(sleepy, 'steps', 1, { seconds: 4 });
        const [threadId] = run!;
        await eventually(async () => (await notesOf(threadId)).length >= 1 || undefined, 120_000, 'the first of four steps checkpointed');
        const old = (await componentPods<Pod>(namespace, 'agent-zero')).map((pod) => pod.metadata.name);
        await disrupt(old);
        await eventually(
          async () => {
            const answer = await appFetch(`${sleepy.url}/ok`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
            return (
              answer?.status === 200 && (await componentPods<Pod>(namespace, 'agent-zero')).every((pod) => !old.includes(pod.metadata.name))
            );
          },
          300_000,
          'only a new pod, answering /ok',
        );
        expect(await joinRuns(sleepy, [run!])).toEqual(['success']);
        expect(await notesOf(threadId)).toEqual(['step 1', 'step 2', 'step 3', 'step 4']);
      };
      const deletePods =
        (...how: string[]) =>
        (pods: string[]) =>
          kubectlOk(['delete', 'pod', '-n', namespace, ...pods, '--wait=false', ...how]).then(() => undefined);
      // A new revision (a secret's change: its build is reused) rolls the pods: the old one takes no new
      // run and finishes the one it has (run_drain_seconds, 180 by default), as it does when told to stop.
      // Across it, a steady stream: at least 50 runs, one every 0.8 s, and on until the old pod is gone.
      const marker = join(mkdtempSync(join(tmpdir(), 'berth-steady-')), 'rolled');
      let stream: ReturnType<typeof steadyRuns> | undefined;
      await runThrough(async () => {
        stream = steadyRuns(sleepy, 'agent', { count: 50, intervalSeconds: 0.8, until: marker, input: { text: 'steady' } });
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const patched = await tool.ok('PATCH', `/v2/deployments/${sleepyId}`, { secrets: [{ name: 'ROLLOUT_MARK', value: 'one' }] });
        const revision = await revisionReaches(tool, sleepyId, patched.latest_revision_id, ['DEPLOYED', 'DEPLOY_FAILED', 'BUILD_FAILED'], {
          timeoutMs: 240_000,
        });
        expect(revision.status, revision.status_message).toBe('DEPLOYED');
      });
      writeFileSync(marker, '');
      const { runs, refused } = await stream!;
      console.error(`[agent-server] steady stream across a rollout: ${runs.length} runs started, ${refused.length} refused`);
      expect(refused).toEqual([]);
      expect(runs.length).toBeGreaterThanOrEqual(50);
      expect(await joinRuns(sleepy, runs)).toEqual(runs.map(() => 'success'));
      await runThrough(deletePods());
      // Killed, its run's lease runs out, the new pod's reaper returns it to the queue, and it goes on from
      // its checkpoint: the steps done are not run again.
      await runThrough(deletePods('--grace-period=0', '--force'));
    },
  );

  it('fires a cron once per tick with two replicas, and on after both are replaced', { timeout: 600_000 }, async () => {
    // Two replicas that stay up, each running the server's scheduler, which claims a due cron in the
    // database before it fires it. Ticks of 5 s (aegra's seconds schedules, looked at each second).
    const { id: cronId, server: scheduled } = await later().cronAgent;
    const twoReady = async () => {
      const pods = (await componentPods<Pod>(namespace, 'agent-cron')).filter((pod) => !pod.metadata.deletionTimestamp);
      const ready = pods.filter((pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === 2 && pods.length === 2 ? pods.map((pod) => pod.metadata.name) : undefined;
    };
    const first = await eventually(twoReady, 240_000, 'two ready replicas');
    const cron = await createCron(scheduled, 'agent', { schedule: '*/5 * * * * *', input: { text: 'tick' } });
    const ticks = async () => (await runsMade(scheduled, cron.thread_id)).map((at) => Date.parse(at));
    /** Runs of the schedule after the one its creation starts: never two in one 5-second tick (one fired
     * late for a tick missed while no replica ran is that tick's). */
    const oncePerTick = (made: number[]) => {
      const tickOf = made.slice(1).map((at) => Math.floor(at / 5_000));
      expect(new Set(tickOf).size, JSON.stringify(made)).toBe(tickOf.length);
    };
    oncePerTick(await eventually(async () => ((await ticks()).length >= 5 ? ticks() : undefined), 120_000, 'four ticks'));
    // Both replicas replaced: the schedule goes on in the new ones, still once per tick.
    await kubectlOk(['delete', 'pod', '-n', namespace, ...first, '--wait=false']);
    await eventually(
      async () => (await twoReady())?.some((pod) => first.includes(pod)) === false || undefined,
      240_000,
      'two new replicas',
    );
    const replaced = Date.now();
    const after = await eventually(
      async () => {
        const made = await ticks();
        return made.filter((at) => at > replaced).length >= 3 ? made : undefined;
      },
      120_000,
      'three ticks in the new replicas',
    );
    oncePerTick(after);
    await deleteCron(scheduled, cron.cron_id);
    // Its three pods go: the builds of the tests after it need the node's room.
    await tool.ok('DELETE', `/v2/deployments/${cronId}`);
  });

  it(
    "keeps its threads in a Postgres the team runs, named by a Secret, with none of Berth's; one it cannot reach fails with the database's words",
    { timeout: 600_000 },
    async () => {
      const [own, wrong] = await later().teamDatabaseAgents;
      const deployment = await tool.ok('GET', `/v2/deployments/${own.id}`);
      const revision = await tool.ok('GET', `/v2/deployments/${own.id}/revisions/${deployment.latest_revision_id}`);
      expect(revision.status, revision.status_message).toBe('DEPLOYED');
      const server = { url: deployment.url as string, caFile };
      const thread = await createThread(server, { text: 'kept by the team' });
      // The thread is in the team's database, and Berth runs no Postgres for the deployment.
      const stored = await kubectlOk(
        ['exec', '-n', namespace, 'team-postgres', '--', 'psql', '-U', 'postgres', '-d', 'agents', '-tAc'].concat(
          `select count(*) from thread where thread_id = '${thread.thread_id}'`,
        ),
      );
      expect(stored.trim()).toBe('1');
      expect(await componentPods<Pod>(namespace, 'agent-team-db', 'postgres')).toEqual([]);
      expect(await kubectlOk(['get', 'statefulsets', '-n', namespace, '-o', 'name'])).not.toContain('agent-team-db');
      // A new pod reads it back from there.
      const first = (await componentPods<Pod>(namespace, 'agent-team-db')).map((pod) => pod.metadata.name);
      await kubectlOk(['delete', 'pod', '-n', namespace, ...first, '--wait=false']);
      expect(
        await eventually(async () => readThread(server, thread.thread_id).catch(() => undefined), 180_000, 'the thread after a new pod'),
      ).toMatchObject({
        values: thread.values,
      });
      // The one with the wrong password never serves, and says what the database said, without the password.
      const failed = await tool.ok('GET', `/v2/deployments/${wrong.id}`);
      const verdict = await tool.ok('GET', `/v2/deployments/${wrong.id}/revisions/${failed.latest_revision_id}`);
      expect(verdict.status, verdict.status_message).toBe('DEPLOY_FAILED');
      expect(verdict.status_message).toContain('wait-for-external-postgres');
      expect(verdict.status_message).toContain(
        'spec.sourceConfig.externalDatabase.postgresUri (Secret "team-db-wrong", key "uri") does not answer',
      );
      expect(verdict.status_message).toContain('password authentication failed for user "postgres"');
      expect(verdict.status_message).not.toContain(teamPassword);
      // Their pods and the team's database go: the builds of the tests after them need the node's room.
      await Promise.all([own.id, wrong.id].map((deploymentId) => tool.ok('DELETE', `/v2/deployments/${deploymentId}`)));
      await kubectlOk(['delete', 'pod,service', '-n', namespace, 'team-postgres', '--wait=false']);
    },
  );

  it('reads the build logs with the client, the level in upper case as it sends it', async () => {
    const logs = await client(['deploy', 'logs', '--name', 'agent', '--type', 'build', '--level', 'info', '--limit', '500']);
    expect(logs).toContain('making the Dockerfile from langgraph.json');
    // The reference's server replaced by the durable one Berth names (--agent-server-image).
    expect(logs).toMatch(/the agent server: \S+\/berth\/agent-server@sha256:[0-9a-f]{64} \(threads, runs and the store/);
  });

  it('fails a build whose configuration file names a graph that is not there, saying where, while the server keeps serving', async () => {
    const config = join(project, 'langgraph.json');
    const good = readFileSync(config, 'utf8');
    writeFileSync(
      config,
      JSON.stringify({ python_version: '3.11', dependencies: ['.'], graphs: { agent: './agent.py:graph', typo: './agent.py:grpah' } }),
    );
    await expect(client(['deploy', '--remote', '--name', 'agent', '--no-input', '-c', 'langgraph.json'])).rejects.toThrow();
    writeFileSync(config, good);
    const deployment = await tool.ok('GET', `/v2/deployments/${id}`);
    const revision = await revisionReaches(tool, id, deployment.latest_revision_id, ['BUILD_FAILED', 'DEPLOYED', 'DEPLOY_FAILED'], {
      timeoutMs: 60_000,
    });
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toMatch(
      /^The build failed: step "dockerfile" exited with code 1:\nmaking the Dockerfile from langgraph.json with LangGraph CLI, version 0\.4\.40\n/,
    );
    expect(revision.status_message).toContain('graph typo (./agent.py:grpah): ./agent.py defines no grpah at top level');
    expect(revision.status_message).toContain('langgraph.json names graphs that are not there');
    expect(deployment.active_revision_id).not.toBe(deployment.latest_revision_id);
    expect(await postJson(`${url}/runs/wait`, { assistant_id: 'agent', input: { text: 'still here' } })).toEqual({
      status: 200,
      body: { text: 'STILL HERE!' },
    });
  });

  it(
    'fails a revision whose auth.path does not load, with its error, rather than serve every request unauthenticated',
    { timeout: 420_000 },
    async () => {
      const config = join(project, 'langgraph.json');
      const good = readFileSync(config, 'utf8');
      const auth = join(project, 'auth.py');
      // aegra alone would log this and serve everyone as one anonymous user.
      writeFileSync(auth, "raise RuntimeError('the identity provider is not configured')\n");
      writeFileSync(config, JSON.stringify({ ...JSON.parse(good), auth: { path: './auth.py:auth' } }));
      try {
        const before = await tool.ok('GET', `/v2/deployments/${id}`);
        // The client reports the failed revision and exits non-zero.
        await client(['deploy', '--remote', '--name', 'agent', '--no-input', '-c', 'langgraph.json']).catch(() => undefined);
        const deployment = await tool.ok('GET', `/v2/deployments/${id}`);
        expect(deployment.latest_revision_id).not.toBe(before.latest_revision_id);
        const revision = await revisionReaches(tool, id, deployment.latest_revision_id, ['DEPLOY_FAILED', 'DEPLOYED', 'BUILD_FAILED'], {
          timeoutMs: 300_000,
        });
        expect(revision.status).toBe('DEPLOY_FAILED');
        expect(revision.status_message).toContain('the identity provider is not configured');
        expect((await tool.ok('GET', `/v2/deployments/${id}`)).active_revision_id).toBe(before.active_revision_id);
        expect(await postJson(`${url}/runs/wait`, { assistant_id: 'agent', input: { text: 'still served' } })).toEqual({
          status: 200,
          body: { text: 'STILL SERVED!' },
        });
      } finally {
        writeFileSync(config, good);
        rmSync(auth, { force: true });
      }
    },
  );

  it('fails a build whose configuration file is missing or not one, with the step, the file and the error', async () => {
    const deployment = await tool.ok('GET', `/v2/deployments/${id}`);
    const sources = deployment.source_revision_config.source_tarball_path;
    const cases: [string, string][] = [
      ['missing.json', 'the sources have no Dockerfile and no configuration file at missing.json (graph_config_path)'],
      ['pyproject.toml', 'pyproject.toml: not a configuration file langgraph-cli accepts'],
    ];
    for (const [config, message] of cases) {
      const patched = await tool.ok('PATCH', `/v2/deployments/${id}`, {
        source_revision_config: { source_tarball_path: sources, graph_config_path: config },
      });
      const revision = await revisionReaches(tool, id, patched.latest_revision_id, ['BUILD_FAILED', 'DEPLOYED', 'DEPLOY_FAILED'], {
        timeoutMs: 60_000,
      });
      expect(revision.status, config).toBe('BUILD_FAILED');
      expect(revision.status_message, config).toMatch(/^The build failed: step "dockerfile" exited with code 1:\n/);
      expect(revision.status_message, config).toContain(message);
    }
    expect((await tool.ok('GET', `/v2/deployments/${id}`)).active_revision_id).toBe(deployment.active_revision_id);
  });

  it('follows the server log with the client: a new run shows up, and no line is printed twice', async () => {
    const follower = await startLanggraph(user, project, ['deploy', 'logs', '--name', 'agent', '--follow']);
    try {
      await eventually(async () => follower.output().includes('\n') || undefined, 30_000, 'the first page of the log');
      const before = follower.output().length;
      expect(await postJson(`${url}/runs/wait`, { assistant_id: 'agent', input: { text: 'followed' } })).toEqual({
        status: 200,
        body: { text: 'FOLLOWED!' },
      });
      await eventually(
        async () => follower.output().slice(before).includes('/runs/wait') || undefined,
        60_000,
        'the new run in the followed log',
      );
      // Three more polls of the client (one every 2 s), each of which would print a line it saw again.
      await new Promise((resolve) => setTimeout(resolve, 7_000));
    } finally {
      await follower.stop();
    }
    const lines = follower
      .output()
      .split('\n')
      .filter((line) => line.startsWith('['));
    expect(lines.filter((line, index) => lines.indexOf(line) !== index)).toEqual([]);
  });
});

describe("a project using the langgraph.json keys the reference's builds honour, uploaded as the API takes it", () => {
  let keysId: string;
  let keysUrl: string;

  it(
    'builds each key into the image and serves the graph under http.mount_prefix, the env values never in a log',
    { timeout: 600_000 },
    async () => {
      // Created and built during the tests before (startLaterDeployments).
      const { id: created, revision } = await later().keysAgent;
      keysId = created;
      expect(revision.status, revision.status_message).toBe('DEPLOYED');

      const logs = await tool.ok('GET', `/v2/deployments/${keysId}/revisions/${revision.id}/logs?type=build&order=asc&limit=1000`);
      const messages: string[] = logs.logs.map((line: { message: string }) => line.message);
      for (const said of [
        "python_version 3.12: run on the agent server's Python 3.13",
        "api_version 0.4: a version of the reference's server; the agent server is the installation's",
        "image_distro wolfi: the agent server's image is Debian",
        'env: the variables of app.env (values not shown)',
        'webhooks: runs post to absolute http(s) URLs only; redirects are not followed',
        'PIP_CONFIG_FILE=/pipconfig.txt',
      ])
        expect(
          messages.some((message) => message.includes(said)),
          said,
        ).toBe(true);
      expect(messages.filter((message) => message.includes('never-printed-5d1e'))).toEqual([]);

      keysUrl = (await tool.ok('GET', `/v2/deployments/${keysId}`)).url;
      await eventually(
        async () => (await appFetch(`${keysUrl}/ok`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined))?.status === 200,
        120_000,
        'the keys project answering /ok',
      );
      // pip read pip.conf (the wheel only it finds), dockerfile_lines ran, env came from its file, on the
      // server's Python, with the routes under the mount prefix.
      expect(await postJson(`${keysUrl}/agents/runs/wait`, { assistant_id: 'keys', input: { text: 'every key' } })).toEqual({
        status: 200,
        body: {
          text: 'EVERY KEY',
          probe: 'installed-from-the-pip-config',
          line: 'added-by-a-line',
          env: 'from-the-env-file',
          secret_set: true,
          python: '3.13',
        },
      });
      expect((await postJson(`${keysUrl}/runs/wait`, { assistant_id: 'keys', input: { text: 'outside' } })).status).toBe(404);
      // The values stay in the image: the Deployment's pods do not carry them.
      const names = await kubectlOk([
        'get',
        'deployments.apps',
        'agent-keys',
        '-n',
        namespace,
        '-o',
        'jsonpath={.spec.template.spec.containers[0].env[*].name}',
      ]);
      expect(names.split(' ')).not.toContain('KEYS_SECRET');
    },
  );

  // The two sweeps and the webhook are apart (a thread, a store item, a run of their own): they run at once.
  // Made as soon as the project served (startLaterDeployments), each read back then.
  it.concurrent('deletes a thread once checkpointer.ttl has passed', { timeout: 240_000 }, async () => {
    const { thread } = await later().expiringItems;
    await eventually(async () => (await statusOf(thread)) === 404 || undefined, 180_000, 'the thread swept after its TTL');
  });

  it.concurrent('expires a store item once store.ttl has passed', { timeout: 240_000 }, async () => {
    const { item } = await later().expiringItems;
    await eventually(async () => (await statusOf(item)) === 404 || undefined, 180_000, 'the store item swept after its TTL');
  });

  it.concurrent(
    "posts an ended run to its webhook with the configured header, and refuses a URL outside the policy with the reference's 422",
    { timeout: 180_000 },
    async () => {
      // The receiver listens on the host the fixture's policy allows: the node's own address, which pods reach.
      const { webhooks } = JSON.parse(readFileSync(join(keysFixture, 'project/langgraph.json'), 'utf8')) as {
        webhooks: { url: { allowed_domains: string[] } };
      };
      const host = webhooks.url.allowed_domains[0]!;
      const received: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
      const receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
          response.writeHead(204).end();
        });
      });
      await new Promise<void>((listening) => receiver.listen(0, host, listening));
      try {
        const hook = `http://${host}:${(receiver.address() as AddressInfo).port}/hook`;
        const run = await postJson(`${keysUrl}/agents/runs/wait`, { assistant_id: 'keys', input: { text: 'hooked' }, webhook: hook });
        expect(run.status).toBe(200);
        const delivery = await eventually(async () => received[0], 60_000, 'the webhook delivered');
        expect(delivery.headers['x-keys-hook']).toBe('token hook-token-3f9b');
        expect(delivery.body).toMatchObject({ status: 'success', values: { text: 'HOOKED' }, kwargs: { webhook: hook } });
        expect(delivery.body.run_id).toEqual(expect.any(String));

        // A host the policy does not name: the reference's 422, and no run.
        const refused = await postJson(`${keysUrl}/agents/runs/wait`, {
          assistant_id: 'keys',
          input: { text: 'never run' },
          webhook: `http://${host}.nip.example/hook`,
        });
        expect(refused.status).toBe(422);
        expect(JSON.stringify(refused.body)).toContain('Webhook domain not allowed');
        expect(received).toHaveLength(1);
      } finally {
        receiver.close();
      }
    },
  );

  it(
    "fails a revision whose store.index needs pgvector the deployment's Postgres lacks, saying so, while the previous one serves",
    { timeout: 600_000 },
    async () => {
      // Made during the tests before (startLaterDeployments).
      const { before, revision } = await later().pgvectorRevision;
      expect(revision.status).toBe('DEPLOY_FAILED');
      expect(revision.status_message).toContain("store.index needs the pgvector extension (vector) in the deployment's Postgres");
      expect((await tool.ok('GET', `/v2/deployments/${keysId}`)).active_revision_id).toBe(before.active_revision_id);
      expect((await postJson(`${keysUrl}/agents/runs/wait`, { assistant_id: 'keys', input: { text: 'kept' } })).body).toMatchObject({
        text: 'KEPT',
      });
    },
  );
});

// Last: it deletes every deployment of the file, the keys project's too.
describe("the client's listings", () => {
  it('lists deployments, revisions and listeners with the client, and deletes the deployments', async () => {
    expect(JSON.parse(await client(['deploy', 'list', '--json']))).toContainEqual({ id, name: 'agent' });
    const revisions = await client(['deploy', 'revisions', 'list', id]);
    expect(revisions).toContain('DEPLOYED');
    expect(revisions).toContain('BUILD_FAILED');
    const listeners = JSON.parse(await client(['deploy', 'listeners', 'list', '--json'])) as {
      compute_config: { k8s_namespaces: string[] };
    }[];
    expect(listeners.flatMap((listener) => listener.compute_config.k8s_namespaces)).toContain(namespace);
    const all = JSON.parse(await client(['deploy', 'list', '--json'])) as { id: string; name: string }[];
    for (const deployment of all) await client(['deploy', 'delete', deployment.id, '--force']);
    for (const deployment of all)
      await eventually(
        async () => (await tool.call('GET', `/v2/deployments/${deployment.id}`)).status === 404,
        60_000,
        `${deployment.name} gone`,
      );
  });
});

// Berth in the cluster it manages: `helm install` of charts/berth onto the real node, with the image the
// Dockerfile builds (pushed to the node's registry) and otherwise default values. Berth runs as two
// pods under the chart's ServiceAccount and RBAC, with in-cluster credentials and the chart's CRDs; its
// HTTP API answers through the chart's Service; every reconcile path runs without one `forbidden`; the
// leader's pod can die; an upgrade loses no request; uninstall keeps what users made and a reinstall
// adopts it without a write. The steps run in order, on one release.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { verifiedDomainsAnnotation } from '../../src/api/host-ownership.ts';
import { gatewayHttpsAddress, nodeInterface, nodeIp, pushRegistryAddress, storageNetworkIp } from '../../workbench/node/network.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { kubeRequest } from '../../src/runtime/index.ts';
import { startPushRegistry, type PushRegistry } from '../../workbench/node/push-registry.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import {
  appsCaCertificate,
  exampleImage,
  httpGet,
  httpsGet,
  httpsPostJson,
  kubectlOk,
  nodeBuildImages,
  serviceImage,
} from '../node/support.ts';
import { nodeGateway, nodeTlsAppUrlTemplate } from '../../workbench/node/gateway.ts';
import { metricsStoreUrl } from '../../workbench/node/metrics-store.ts';
import { nodeActivator } from '../../workbench/node/http-add-on.ts';
import { nodeTlsIssuer } from '../../workbench/node/certificates.ts';
import { defaultClusterControllers } from '../../src/api/admission-policy.ts';
import { kedaUser } from '../../workbench/node/keda.ts';
import { cnpgPostgresImage, localPathStorageClass } from '../../workbench/node/postgres-operator.ts';
import { backupStoreAdminSecret, startBackupStore } from '../../workbench/node/backup-store.ts';
import { freePort } from '../../workbench/controlplane.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { copyAgentProject, runLanggraph } from '../../workbench/support/langgraph-cli.ts';
import { createThread, readThread, type AgentServer, type ThreadReading } from '../../workbench/support/langgraph-sdk.ts';
import { scaleDownWindowSeconds } from '../node/scale-down-window.ts';
import { chart, crane, crashContainer, forbiddenEvents, forbiddenInLogs, helm, leader, readLease, releasePods } from './support.ts';
import { shareSecretArgs } from '../../workbench/support/shared-secrets.ts';

const release = 'berth';
/** Where the release's builds run (builder.namespace), apart from the organization's apps. */
const buildNamespace = `${release}-helm-builds`;
let namespace: string;
let apps: string;
let api: Api;
let github: FakeGitHub;
const key = `berth_${randomBytes(16).toString('hex')}`;
const organization = randomUUID();
const images: Record<string, string> = {};
/** Every value the release is installed with but the image. */
let values: string[];
let registry: (PushRegistry & { dir: string }) | undefined;
let backupStore: { server: ChildProcess; dir: string } | undefined;
/** The Secret in the release's namespace naming the backup store's admin credential (backups.store.adminSecret). */
const backupStoreSecret = 'backup-store-admin';

/** The platform's backup store: a versitygw of its own on a storage network's address (added to the
 * node's interface, which goes with the node), its admin API on a port apart that Berth's pods reach
 * (backups.store.adminUrl; the node's own store keeps its admin API on the host's loopback, out of every
 * pod's reach). Its admin credential is in the release's namespace. */
async function startPlatformBackupStore(): Promise<{ url: string; adminUrl: string }> {
  execFileSync('ip', ['addr', 'replace', `${storageNetworkIp}/32`, 'dev', nodeInterface]);
  const dir = mkdtempSync(join(tmpdir(), 'berth-helm-backups-'));
  const listeners = { s3: { host: storageNetworkIp, port: await freePort() }, admin: { host: storageNetworkIp, port: await freePort() } };
  const { server, credentials, url, adminUrl } = await startBackupStore(dir, listeners);
  backupStore = { server, dir };
  await kubectlOk(['apply', '-f', '-'], JSON.stringify(backupStoreAdminSecret(namespace, backupStoreSecret, credentials)));
  return { url, adminUrl };
}

/** The registry for organizations' sources and images (builder.pushRegistry), trusting the release's
 * signing key, its realm the chart's Service: started once the release made that key. */
async function organizationRegistry(): Promise<void> {
  if (registry) return;
  const clusterIp = (await kubectlOk(['get', 'service', '-n', namespace, release, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  const dir = mkdtempSync(join(tmpdir(), 'berth-helm-registry-'));
  registry = {
    ...(await startPushRegistry({ dir, kubeConfig: testKubeConfig(), operatorNamespace: namespace, berthUrl: `http://${clusterIp}` })),
    dir,
  };
}

function imageValues(reference: string): string[] {
  const [repository, digest] = reference.split('@');
  return ['--set', `image.repository=${repository}`, '--set', `image.digest=${digest}`];
}

async function install(): Promise<void> {
  await helm([
    'install',
    release,
    chart,
    '--namespace',
    namespace,
    ...imageValues(inject('berthImage')),
    ...values,
    '--wait',
    '--timeout',
    '5m',
  ]);
}

beforeAll(async () => {
  namespace = await useNamespace('berth-system');
  apps = await useNamespace('apps');
  await ensureOrganizationNamespace(testKubeConfig(), apps, organization);
  // The platform records example.test as the organization's: its custom hosts there need no DNS proof.
  await kubectlOk(['annotate', 'namespace', apps, `${verifiedDomainsAnnotation}=example.test`, '--overwrite']);
  github = await FakeGitHub.start({ host: nodeIp });
  const store = await startPlatformBackupStore();
  values = [
    // The GitHub Enterprise stand-in, an origin the installation allows beside the public ones.
    '--set',
    `codeHost.origins[0]=${github.url}`,
    '--set',
    `apiKey.sha256=${createHash('sha256').update(key).digest('hex')}`,
    '--set',
    `apiKey.organizations[0]=${organization}`,
    // Namespace-scoped, as by default: Berth's Roles in the organization's namespace (and the builds').
    '--set',
    `watchNamespaces[0]=${apps}`,
    '--set',
    `services.postgres.image=${await serviceImage('postgres')}`,
    '--set',
    `services.redis.image=${await serviceImage('redis')}`,
    // The node serves CloudNativePG: under engine auto each database is a Cluster, of the node's image,
    // on volumes its Postgres (uid 26) can write (its operator runs on the host, which the
    // organizations' NetworkPolicy admits as the node).
    '--set',
    'services.postgres.engine=auto',
    '--set',
    `services.postgres.cnpgImage=${cnpgPostgresImage}`,
    '--set',
    `services.postgres.cnpgStorageClass=${localPathStorageClass}`,
    // Their backups, under the chart's RBAC, go to the platform's store; with no schedule, the steps
    // below take only the backups they ask for and those before revisions that migrate.
    '--set',
    `backups.store.url=${store.url}`,
    '--set',
    `backups.store.adminUrl=${store.adminUrl}`,
    '--set',
    `backups.store.adminSecret=${backupStoreSecret}`,
    '--set',
    'backups.schedule=off',
    // The chart's default organization policy, the hardened one, under the chart's RBAC: the quota and
    // LimitRange, the network policy, which the node enforces (kube-router), and Pod Security baseline
    // with the default privileged builder (builds run in the release's build namespace). The apps below
    // serve and build under all of it.
    '--set',
    `builder.namespace=${buildNamespace}`,
    '--set',
    `scaleDownWindowSeconds=${scaleDownWindowSeconds}`,
    // Apps at https:// URLs through the node's Gateway, with certificates from its cert-manager: the
    // organization's Certificate and listener under the chart's Role in the Gateway's namespace.
    '--set',
    `apps.urlTemplate=${nodeTlsAppUrlTemplate}`,
    '--set',
    `apps.gateway.namespace=${nodeGateway.namespace}`,
    '--set',
    `apps.gateway.name=${nodeGateway.name}`,
    '--set',
    `apps.tlsIssuer=${nodeTlsIssuer.kind}/${nodeTlsIssuer.name}`,
    // One listener a Gateway: the node's Gateway holds its own, so the organization's listener is on a
    // shard Berth makes under the chart's Role, and its https:// URL is served from there.
    '--set',
    'apps.listenersPerGateway=1',
    // Apps scale on their requests in flight through the node's KEDA: ScaledObjects under the chart's Role.
    '--set',
    `apps.concurrencyMetrics=${metricsStoreUrl}`,
    // dev_zero apps (the reference client's default tier) scale to zero through the node's activator:
    // InterceptorRoutes under the chart's Role, the grant under its Role in the activator's namespace,
    // whose interceptor the organizations' network policy admits.
    '--set',
    `apps.activatorProxy=${nodeActivator.proxy.namespace}/${nodeActivator.proxy.name}:${nodeActivator.proxy.port}`,
    '--set',
    `apps.activatorScaler=${nodeActivator.scalerAddress}`,
    // The storage network and the node's blocked, where the backup store and the API server listen: they
    // stay in reach of the organization's database pods alone, on their ports only (the databases start,
    // and their backups and restore below go through the store).
    '--set',
    'organizations.networkPolicy.blockedCidrs[0]=169.254.169.254/32',
    '--set',
    `organizations.networkPolicy.blockedCidrs[1]=${storageNetworkIp}/32`,
    '--set',
    `organizations.networkPolicy.blockedCidrs[2]=${nodeIp}/32`,
    '--set',
    `organizations.networkPolicy.ingressFromNamespaces[0].kubernetes\\.io/metadata\\.name=${nodeActivator.proxy.namespace}`,
    // The node's KEDA runs as a user of its own (its client certificate), not as its chart's service
    // account: the platform names it beside the defaults, or the route policy refuses its writes back.
    ...[...defaultClusterControllers, kedaUser].flatMap((user, index) => ['--set', `organizations.clusterControllers[${index}]=${user}`]),
  ];
  // Builds as on a cluster whose registry holds the build images (the node's); organizations' sources
  // and images go to the registry whose tokens Berth issues.
  const builds = await nodeBuildImages();
  values.push(
    '--set',
    `builder.image=${builds.builder}`,
    '--set',
    `builder.gitImage=${builds.git}`,
    '--set',
    `builder.toolsImage=${builds.buildTools}`,
    '--set',
    `builder.agentToolsImage=${builds.agentTools}`,
    '--set',
    `builder.agentServerImage=${builds.agentServer}`,
    '--set',
    `builder.registry=${inject('registry')}`,
    '--set',
    `builder.pushRegistry=${pushRegistryAddress}`,
  );
  images.v1 = await exampleImage('helm-v1');
  images.v2 = await exampleImage('helm-v2');
});

afterAll(async () => {
  await helm(['uninstall', release, '--namespace', namespace, '--wait']).catch(() => {});
  await registry?.stop();
  if (registry) rmSync(registry.dir, { recursive: true, force: true });
  await github?.stop();
  backupStore?.server.kill();
  if (backupStore) rmSync(backupStore.dir, { recursive: true, force: true });
});

/** A create body for one small replica of the example app's first image, at most `maxScale`. */
function smallDeployment(name: string, maxScale: number) {
  return {
    name,
    source: 'external_docker',
    source_config: { resource_spec: { min_scale: 1, max_scale: maxScale, cpu: 0.1, memory_mb: 64 } },
    source_revision_config: { image_uri: images.v1 },
  };
}

/** Waits until `where` (default `apps`) holds none of these kinds; a timeout names what is left. */
async function nothingLeft(kinds: string[], where = apps): Promise<void> {
  await eventually(
    async () => {
      const left = (await kubectlOk(['get', kinds.join(','), '-n', where, '-o', 'name'])).trim();
      if (left) throw new Error(`left: ${left.split('\n').join(', ')}`);
      return true;
    },
    60_000,
    `no ${kinds.join(', ')} left`,
  );
}

/** SQL run by `psql` in the database's instance pod, as the operator's own tools run it. */
async function instanceQuery(pod: string, sql: string): Promise<string> {
  return (await kubectlOk(['exec', '-n', apps, pod, '-c', 'postgres', '--', 'psql', '-U', 'postgres', '-Atc', sql])).trim();
}

/**
 * The issue's proof, through the reference's SDK at the agent's URL: its thread is in a backup taken
 * through the API, a second thread is written after it, the database's volume is destroyed, and a
 * restore into a new database, to a point in time after the second thread, brings both back to the same
 * server at the same URL; a third, written after that point, is not.
 */
async function restoresLostDatabase(id: string, server: AgentServer, thread: ThreadReading): Promise<void> {
  const backup = await api.ok('POST', `/v2/deployments/${id}/backups`);
  const readBackup = () => api.ok('GET', `/v2/deployments/${id}/backups/${backup.id}`);
  await eventually(async () => ['COMPLETED', 'FAILED'].includes((await readBackup()).status), 180_000, 'the backup done');
  expect(await readBackup()).toMatchObject({ status: 'COMPLETED', reason: 'manual' });
  const second = await createThread(server, { text: 'after the backup' });
  // A second on each side of the point: Postgres stamps commits to the microsecond, the point is to the
  // millisecond. The third thread's commits are the first after it, where the recovery stops.
  await sleep(1000);
  const pointInTime = new Date().toISOString();
  await sleep(1000);
  const third = await createThread(server, { text: 'after the point in time' });
  // The archive holds all of it: the segment being written is closed and shipped.
  const pod = 'agent-db-1-1';
  const closed = await instanceQuery(pod, 'select pg_walfile_name(pg_switch_wal())');
  await eventually(
    async () => (await instanceQuery(pod, 'select last_archived_wal from pg_stat_archiver')) >= closed || undefined,
    60_000,
    `WAL segment ${closed} archived`,
  );

  // The volume's data goes, as with a lost disk: the directory the provisioner made on the node is
  // emptied, and the database's pod restarts on it.
  const claim = pod;
  const volume = (await kubectlOk(['get', 'pvc', '-n', apps, claim, '-o', 'jsonpath={.spec.volumeName}'])).trim();
  const directory = (await kubectlOk(['get', 'pv', volume, '-o', 'jsonpath={.spec.hostPath.path}{.spec.local.path}'])).trim();
  expect(readdirSync(directory)).not.toEqual([]);
  for (const entry of readdirSync(directory)) rmSync(join(directory, entry), { recursive: true, force: true });
  await kubectlOk(['delete', 'pod', '-n', apps, claim, '--wait=false']);

  // The serving database lost its data: the restore goes without a backup of it first.
  const from = Date.now();
  const asked = await api.call('POST', `/v2/deployments/${id}/backups/${backup.id}/restore`, {
    backup_first: false,
    target_time: pointInTime,
  });
  expect(asked.status, JSON.stringify(asked.body)).toBe(202);
  expect(asked.body.target_time).toBe(pointInTime);
  const readRestore = () => api.ok('GET', `/v2/deployments/${id}/restores/${asked.body.id}`);
  await eventually(async () => ['COMPLETED', 'FAILED'].includes((await readRestore()).status), 240_000, 'the restore done');
  expect(await readRestore()).toMatchObject({ status: 'COMPLETED', database_name: 'agent-db-2', retired_database_name: 'agent-db-1' });
  console.error(`[helm] a restore switched ${Math.round((Date.now() - from) / 1000)} s after it was asked for`);
  expect(
    await eventually(async () => readThread(server, thread.thread_id).catch(() => undefined), 120_000, 'the thread read after the restore'),
  ).toEqual(thread);
  expect(await readThread(server, second.thread_id)).toEqual(second);
  // The SDK's own error for a 404 (langgraph_sdk.errors.NotFoundError).
  expect(
    await readThread(server, third.thread_id).then(
      () => 'read',
      (error: Error) => error.message,
    ),
  ).toMatch(/NotFoundError/);
}

/** On a failure, what Berth's pods said last. */
function printBerthLogs(): void {
  onTestFailed(async () => {
    for (const pod of await releasePods(namespace)) {
      console.error(`--- ${pod.name}\n${(await kubectlOk(['logs', '-n', namespace, pod.name, '--tail', '40']).catch(() => '')).trim()}`);
    }
  });
}

describe('helm install onto the real node', () => {
  it('brings Berth up as two Ready pods of the built image, one leading, with the CRDs from the chart', async () => {
    printBerthLogs();
    await install();
    const pods = await releasePods(namespace);
    expect(pods).toHaveLength(2);
    expect(pods.every((pod) => pod.ready && pod.image === inject('berthImage'))).toBe(true);
    expect(pods.map((pod) => pod.name)).toContain(await eventually(() => leader(namespace), 30_000, 'a leader'));
    const crd = JSON.parse(await kubectlOk(['get', 'crd', 'deployments.berth.dev', '-o', 'json'])) as {
      metadata: { annotations: Record<string, string> };
    };
    expect(crd.metadata.annotations['meta.helm.sh/release-name']).toBe(release);
    expect(crd.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    const clusterIp = (await kubectlOk(['get', 'service', '-n', namespace, release, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    api = httpApi(`http://${clusterIp}`, { 'x-api-key': key });
    await eventually(
      async () => (await api.call('GET', '/v2/deployments')).status === 200,
      20_000,
      'the HTTP API through the chart Service',
    );
    const policyObjects = async () =>
      (await kubectlOk(['get', 'resourcequota,limitrange,networkpolicy', '-n', apps, '-o', 'name'])).trim().split('\n').sort();
    expect(
      await eventually(
        async () => ((await policyObjects()).length === 4 ? policyObjects() : undefined),
        20_000,
        'the organization policy in apps',
      ),
    ).toEqual([
      'limitrange/berth-organization',
      'networkpolicy.networking.k8s.io/berth-organization',
      'networkpolicy.networking.k8s.io/berth-organization-databases',
      'resourcequota/berth-organization',
    ]);
    // Its database pods reach the API server and the backup store inside the blocked networks (under the
    // chart's Role, which lets Berth read the API server's EndpointSlice); the agent's restore below
    // goes through both.
    const databaseEgress = JSON.parse(
      await kubectlOk(['get', 'networkpolicy', 'berth-organization-databases', '-n', apps, '-o', 'jsonpath={.spec.egress}']),
    ) as { to: { ipBlock: { cidr: string } }[] }[];
    expect(databaseEgress.map((rule) => rule.to[0]!.ipBlock.cidr).sort()).toEqual([`${nodeIp}/32`, `${storageNetworkIp}/32`]);
    // The cluster serves CloudNativePG: its operator's namespace is admitted, as the Gateway's is.
    const admitted = JSON.parse(
      await kubectlOk(['get', 'networkpolicy', 'berth-organization', '-n', apps, '-o', 'jsonpath={.spec.ingress[0].from}']),
    ) as { namespaceSelector?: { matchLabels?: Record<string, string> } }[];
    expect(admitted.map((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'])).toEqual(
      expect.arrayContaining([nodeGateway.namespace, 'cnpg-system']),
    );
  });

  it('serves a Deployment created through the chart Service, with Postgres, Redis, a queue worker and an https:// URL, and deletes it with its volume', async () => {
    printBerthLogs();
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'shop',
      source: 'external_docker',
      source_config: {
        // Its data goes with it (the default keeps it).
        database_retention: 'delete',
        custom_url: 'http://shop.example.test',
        resource_spec: {
          min_scale: 1,
          max_scale: 2,
          cpu: 0.1,
          memory_mb: 64,
          queue_min_scale: 1,
          queue_max_scale: 1,
          queue_cpu: 0.05,
          queue_memory_mb: 32,
          db_storage_gi: 1,
          db_cpu: 0.1,
          db_memory_mb: 128,
          redis_memory_mb: 64,
        },
      },
      source_revision_config: { image_uri: images.v1 },
      secrets: [{ name: 'GREETING', value: 'hello' }],
    });
    await revisionReaches(api, created.id, created.latest_revision_id, ['DEPLOYED'], { timeoutMs: 180_000 });
    const clusterIp = (await kubectlOk(['get', 'service', '-n', apps, 'shop', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    expect(await eventually(async () => (await httpGet(`http://${clusterIp}/`)).body, 20_000, 'the app')).toBe('berth-example helm-v1\n');
    // DEPLOYED means its pods run, and they start only once the database answers.
    expect((await httpGet(`http://${clusterIp}/db`)).body).toBe('db 42\n');
    expect(await kubectlOk(['get', 'httproute,hpa,statefulset,pvc', '-n', apps, '-o', 'name'])).toMatch(/httproute[^\n]*\/shop/);
    // Engine auto on a cluster that serves CloudNativePG: the database is a Cluster.
    expect(await kubectlOk(['get', 'clusters.postgresql.cnpg.io', '-n', apps, '-o', 'name'])).toMatch(/\/shop-db-1$/m);
    // Its autoscaler is KEDA's, from the ScaledObject Berth applied under the chart's Role.
    expect(await kubectlOk(['get', 'scaledobject', 'shop', '-n', apps, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}'])).toBe(
      'Deployment',
    );
    await eventually(
      async () =>
        (await kubectlOk(['get', 'hpa', 'shop', '-n', apps, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}'])) === 'ScaledObject',
      60_000,
      "KEDA's autoscaler",
    );
    const url = (await api.ok('GET', `/v2/deployments/${created.id}`)).url as string;
    expect(url).toBe(`https://shop.${apps}.localhost:${gatewayHttpsAddress.port}`);
    const ca = await appsCaCertificate();
    // Until its endpoints reach the Gateway, the route answers 503 "no available server": wait for a 200.
    const served = async () => {
      const answer = await httpsGet(`${url}/`, ca);
      return answer.status === 200 ? answer.body : undefined;
    };
    expect(await eventually(served, 120_000, 'the app over TLS')).toBe('berth-example helm-v1\n');
    // Served from a shard of the node's Gateway, which the chart's Role let Berth make: the route names it.
    const sections = await kubectlOk(['get', 'httproute', 'shop', '-n', apps, '-o', 'jsonpath={.spec.parentRefs[*].sectionName}']);
    expect(sections).toBe(`https-${apps}`);

    expect((await api.call('DELETE', `/v2/deployments/${created.id}`)).status).toBe(204);
    await eventually(async () => (await api.call('GET', `/v2/deployments/${created.id}`)).status === 404, 60_000, 'the deployment gone');
    await nothingLeft(['pvc', 'statefulsets', 'deployments.apps', 'clusters.postgresql.cnpg.io']);
  });

  it('runs every other reconcile path under the chart RBAC without one forbidden: update, scale, rollback, providers, integrations, builds', async () => {
    printBerthLogs();
    await organizationRegistry();
    const created = await api.ok('POST', '/v2/deployments', smallDeployment('web', 1));
    const first = created.latest_revision_id;
    await revisionReaches(api, created.id, first, ['DEPLOYED']);
    const updated = await api.ok('PATCH', `/v2/deployments/${created.id}`, { source_revision_config: { image_uri: images.v2 } });
    await revisionReaches(api, created.id, updated.latest_revision_id, ['DEPLOYED']);
    await api.ok('PATCH', `/v2/deployments/${created.id}`, { source_config: { resource_spec: { min_scale: 2, max_scale: 2 } } });
    await eventually(
      async () => (await kubectlOk(['get', 'deployments.apps', '-n', apps, 'web', '-o', 'jsonpath={.status.readyReplicas}'])) === '2',
      60_000,
      'two Ready replicas',
    );
    await api.ok('POST', `/v2/deployments/${created.id}/revisions/${first}/redeploy`);
    await eventually(
      async () => (await api.ok('GET', `/v2/deployments/${created.id}`)).active_revision_id === first,
      90_000,
      'the first revision serving again',
    );

    // An OAuth provider through the API; a code-host integration whose code host the pods reach.
    const provider = await api.ok('POST', '/v2/auth/providers', {
      provider_id: 'helm-idp',
      name: 'IdP',
      client_id: 'c',
      client_secret: 'helm-client-secret',
      auth_url: 'https://idp.example.test/authorize',
      token_url: 'https://idp.example.test/token',
    });
    expect((await api.ok('GET', '/v2/auth/providers/helm-idp')).id).toBe(provider.id);
    const owner = github.account('helm-user');
    github.addRepositories(owner, 3);
    await kubectlOk([
      'create',
      'secret',
      'generic',
      '-n',
      apps,
      'github-token',
      `--from-literal=token=${github.issuePersonalToken(owner)}`,
    ]);
    await kubectlOk(shareSecretArgs(apps, 'github-token'));
    await kubectlOk(
      ['apply', '-n', apps, '-f', '-'],
      JSON.stringify({
        apiVersion: 'berth.dev/v1alpha1',
        kind: 'CodeHostIntegration',
        metadata: { name: 'github' },
        spec: { baseUrl: github.url, credentialsSecretRef: { name: 'github-token' } },
      }),
    );
    await eventually(
      async () =>
        (await kubectlOk(['get', 'codehost', '-n', apps, 'github', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])) ===
        'True',
      60_000,
      'the integration Ready',
    );
    const integrationId = (await kubectlOk(['get', 'codehost', '-n', apps, 'github', '-o', 'jsonpath={.metadata.uid}'])).trim();
    expect(await api.ok('GET', `/v1/integrations/codehost/${integrationId}/repos`)).toHaveLength(3);

    // A codehost deployment: its revision is built by a Job (whose builder cannot run here: no image).
    const built = await api.ok('POST', '/v2/deployments', {
      name: 'from-source',
      source: 'codehost',
      source_config: {
        integration_id: integrationId,
        repo_url: `${github.url}/helm-user/repo-1`,
        resource_spec: { min_scale: 1, max_scale: 1 },
      },
      source_revision_config: { repo_ref: 'main' },
    });
    await eventually(
      async () =>
        (await kubectlOk(['get', 'jobs', '-n', buildNamespace, '-l', `berth.dev/build-for-namespace=${apps}`, '-o', 'name'])).trim() !== '',
      60_000,
      'a build Job in the build namespace',
    );
    expect((await kubectlOk(['get', 'jobs', '-n', apps, '-o', 'name'])).trim()).toBe('');
    for (const id of [created.id, built.id]) expect((await api.call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    expect((await api.call('DELETE', '/v2/auth/providers/helm-idp')).status).toBe(204);
    await nothingLeft(['deployments.berth.dev', 'jobs']);
    await nothingLeft(['jobs', 'secrets'], buildNamespace);

    expect(await forbiddenInLogs(namespace)).toEqual([]);
    expect(await forbiddenEvents()).toEqual([]);
  });

  // Its restore of a lost database to a point in time takes about 75 s of its own.
  it(
    'builds and serves an agent server deployed by the reference client through the chart Service, the Dockerfile made from langgraph.json',
    { timeout: 600_000 },
    async () => {
      printBerthLogs();
      await organizationRegistry();
      const created = await api.ok('POST', '/v2/deployments', {
        name: 'agent',
        source: 'internal_source',
        source_config: {
          resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 256, memory_limit_mb: 1024, db_cpu: 0.1, db_memory_mb: 128 },
        },
        source_revision_config: {},
      });
      const home = mkdtempSync(join(tmpdir(), 'berth-helm-agent-'));
      try {
        const project = copyAgentProject(home);
        const user = { api: `${api.url}/api-host`, key, organization, home };
        await runLanggraph(user, project, ['deploy', '--remote', '--name', 'agent', '--no-input', '-c', 'langgraph.json']);
        // The build log, read by the client as it reads it (the level upper-cased), from either replica.
        expect(
          await runLanggraph(user, project, ['deploy', 'logs', '--name', 'agent', '--type', 'build', '--level', 'info', '--limit', '500']),
        ).toContain('making the Dockerfile from langgraph.json');
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
      const deployment = await api.ok('GET', `/v2/deployments/${created.id}`);
      const revision = await api.ok('GET', `/v2/deployments/${created.id}/revisions/${deployment.latest_revision_id}`);
      expect(revision.status, revision.status_message).toBe('DEPLOYED');
      await eventually(
        async () => (await httpsGet(`${deployment.url}/ok`, await appsCaCertificate())).status === 200,
        120_000,
        'the agent server answering /ok',
      );
      const run = await httpsPostJson(`${deployment.url}/runs/wait`, await appsCaCertificate(), {
        assistant_id: 'agent',
        input: { text: 'under the chart' },
      });
      expect(run).toEqual({ text: 'UNDER THE CHART!' });
      // Its threads live in its Postgres, read back with the reference's SDK at the https URL (that one
      // outlives the server's pod is the node suite's: test/node/agent-server.test.ts).
      const caDir = mkdtempSync(join(tmpdir(), 'berth-helm-ca-'));
      try {
        const caFile = join(caDir, 'apps-ca.pem');
        writeFileSync(caFile, await appsCaCertificate());
        const server = { url: deployment.url as string, caFile };
        const thread = await createThread(server, { text: 'kept under the chart' });
        expect(await readThread(server, thread.thread_id)).toEqual(thread);
        await restoresLostDatabase(created.id, server, thread);
      } finally {
        rmSync(caDir, { recursive: true, force: true });
      }
      expect((await api.call('DELETE', `/v2/deployments/${created.id}`)).status).toBe(204);
      await nothingLeft(['deployments.berth.dev', 'jobs']);
      await nothingLeft(['jobs', 'secrets'], buildNamespace);
      expect(await forbiddenInLogs(namespace)).toEqual([]);
    },
  );

  it("deploys agent servers by the client's default path (a local build, pushed with the push token) and by --image-uri through the chart Service", async () => {
    printBerthLogs();
    await organizationRegistry();
    const home = mkdtempSync(join(tmpdir(), 'berth-helm-local-'));
    try {
      const project = copyAgentProject(home);
      const user = { api: `${api.url}/api-host`, key, organization, home };
      const serves = async (id: string, text: string) => {
        const deployment = await api.ok('GET', `/v2/deployments/${id}`);
        const revision = await api.ok('GET', `/v2/deployments/${id}/revisions/${deployment.latest_revision_id}`);
        expect(revision.status, revision.status_message).toBe('DEPLOYED');
        await eventually(
          async () => (await httpsGet(`${deployment.url}/ok`, await appsCaCertificate())).status === 200,
          120_000,
          `${deployment.name} answering /ok`,
        );
        const run = await httpsPostJson(`${deployment.url}/runs/wait`, await appsCaCertificate(), {
          assistant_id: 'agent',
          input: { text },
        });
        expect(run).toEqual({ text: `${text.toUpperCase()}!` });
        return deployment;
      };
      const local =
        /Deployment ID: (\S+)/.exec(
          await runLanggraph(user, project, ['deploy', '--name', 'agent-local', '--no-input', '-c', 'langgraph.json']),
        )?.[1] ?? '';
      const built = await serves(local, 'built locally');
      // The client's default tier is dev_zero: served through the activator, ready to go to zero when idle.
      const zero = await kubeRequest<{ status?: { conditions?: { type: string; status: string; reason?: string }[] } }>(testKubeConfig(), {
        method: 'GET',
        path: `/apis/berth.dev/v1alpha1/namespaces/${apps}/deployments/agent-local`,
      });
      expect(zero.status?.conditions?.find((c) => c.type === 'ScaleToZero')).toMatchObject({ status: 'True', reason: 'Activated' });
      expect(built.source_revision_config.image_uri).toMatch(new RegExp(`^${pushRegistryAddress}/${apps}/agent-local@sha256:`));
      expect(JSON.parse(await runLanggraph(user, project, ['deploy', 'list', '--json']))).toContainEqual({
        id: local,
        name: 'agent-local',
      });
      expect(await runLanggraph(user, project, ['deploy', 'revisions', 'list', local])).toContain('DEPLOYED');
      const listeners = JSON.parse(await runLanggraph(user, project, ['deploy', 'listeners', 'list', '--json'])) as {
        compute_config: { k8s_namespaces: string[] };
      }[];
      expect(listeners.flatMap((listener) => listener.compute_config.k8s_namespaces)).toContain(apps);
      // One at a time on the node's two cores.
      await runLanggraph(user, project, ['deploy', 'delete', local, '--force']);
      const published =
        /Deployment ID: (\S+)/.exec(
          await runLanggraph(user, project, [
            'deploy',
            '--image-uri',
            built.source_revision_config.image_uri,
            '--name',
            'agent-image',
            '--no-input',
          ]),
        )?.[1] ?? '';
      expect((await serves(published, 'by uri')).source).toBe('external_docker');
      await runLanggraph(user, project, ['deploy', 'delete', published, '--force']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    await nothingLeft(['deployments.berth.dev']);
    expect(await forbiddenInLogs(namespace)).toEqual([]);
  });

  let steady: string;

  it('hands leadership over when the leader pod is deleted, and within the lease duration plus a retry when it crashes; no Revision is made twice', async () => {
    printBerthLogs();
    const created = await api.ok('POST', '/v2/deployments', smallDeployment('steady', 2));
    steady = created.id;
    await revisionReaches(api, steady, created.latest_revision_id, ['DEPLOYED']);

    // A deleted pod hands the Lease over on SIGTERM, before its HTTP API drains.
    const deleted = (await leader(namespace))!;
    const deletedAt = Date.now();
    await kubectlOk(['delete', 'pod', '-n', namespace, deleted, '--wait=false']);
    const successor = await eventually(
      async () => {
        const holder = await leader(namespace);
        return holder && holder !== deleted ? holder : undefined;
      },
      60_000,
      'another replica leading after the delete',
    );
    console.error(`[helm] leader ${deleted} deleted; ${successor} leads ${((Date.now() - deletedAt) / 1000).toFixed(1)} s later`);

    // A crash releases nothing: the gap runs from the dead leader's last renewal to its successor's
    // acquisition, both read on the Lease. The successor may be the other pod or the crashed pod's
    // restarted container: a new process, so a new identity.
    const crashed = (await readLease(namespace)).holderIdentity!;
    expect(crashed.startsWith(`${successor}_`)).toBe(true);
    const crashedAt = Date.now();
    await crashContainer(namespace, successor);
    let lastRenewal = '';
    const lease = await eventually(
      async () => {
        const current = await readLease(namespace);
        if (current.holderIdentity === crashed) lastRenewal = current.renewTime ?? lastRenewal;
        return current.holderIdentity && current.holderIdentity !== crashed ? current : undefined;
      },
      60_000,
      'another process leading after the crash',
    );
    const gapSeconds = (Date.parse(lease.acquireTime!) - Date.parse(lastRenewal)) / 1000;
    console.error(
      `[helm] leader ${crashed} killed (SIGKILL); ${lease.holderIdentity} leads ${((Date.now() - crashedAt) / 1000).toFixed(1)} s later, ` +
        `${gapSeconds.toFixed(1)} s after the last renewal (lease ${lease.leaseDurationSeconds} s + retry period 2 s)`,
    );

    const patched = await api.ok('PATCH', `/v2/deployments/${steady}`, { source_revision_config: { image_uri: images.v2 } });
    await revisionReaches(api, steady, patched.latest_revision_id, ['DEPLOYED']);
    const revisions = (await kubectlOk(['get', 'brev', '-n', apps, '-l', 'berth.dev/deployment=steady', '-o', 'name'])).trim().split('\n');
    expect(revisions).toHaveLength(2);
    await eventually(
      async () => {
        const pods = await releasePods(namespace);
        return pods.length === 2 && pods.every((pod) => pod.ready && !pod.terminating);
      },
      120_000,
      'two Ready replicas again',
    );
  });

  let upgradedImage: string;

  it('upgrades to a new image with no failed request and no lost write while a client reads and PATCHes', async () => {
    printBerthLogs();
    // The same build under a new digest: what a release pipeline's next image is to the Deployment.
    const reference = `${inject('registry')}/berth/berth:upgrade`;
    await crane(['mutate', '--insecure', inject('berthImage'), '--label', 'dev.berth.test/upgrade=1', '-t', reference]);
    upgradedImage = `${reference.replace(/:[^:/]+$/, '')}@${(await crane(['digest', '--insecure', reference])).trim()}`;

    const failures: string[] = [];
    let requests = 0;
    let acknowledged: number | undefined;
    let stopping = false;
    const attempt = async (what: string, send: () => Promise<{ status: number; body: unknown }>, ok: () => void) => {
      try {
        const response = await send();
        requests++;
        if (response.status === 200) ok();
        else failures.push(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        failures.push(`${what}: ${String(error)}${cause ? ` (${cause.code ?? cause.message})` : ''}`);
      }
    };
    const reads = (async () => {
      while (!stopping) {
        await attempt(
          'GET',
          () => api.call('GET', `/v2/deployments/${steady}`),
          () => {},
        );
        await sleep(20);
      }
    })();
    const writes = (async () => {
      for (let n = 0; !stopping; n++) {
        const maxScale = 2 + (n % 8);
        const body = { source_config: { resource_spec: { min_scale: 1, max_scale: maxScale, cpu: 0.1, memory_mb: 64 } } };
        await attempt(
          'PATCH',
          () => api.call('PATCH', `/v2/deployments/${steady}`, body),
          () => (acknowledged = maxScale),
        );
        await sleep(100);
      }
    })();
    const started = Date.now();
    await helm([
      'upgrade',
      release,
      chart,
      '--namespace',
      namespace,
      ...imageValues(upgradedImage),
      ...values,
      '--wait',
      '--timeout',
      '5m',
    ]);
    await eventually(
      async () => {
        const pods = await releasePods(namespace);
        return pods.length === 2 && pods.every((pod) => pod.ready && !pod.terminating && pod.image === upgradedImage);
      },
      120_000,
      'two Ready replicas of the new image, the old ones gone',
    );
    await sleep(3000);
    stopping = true;
    await Promise.all([reads, writes]);
    console.error(
      `[helm] upgrade in ${((Date.now() - started) / 1000).toFixed(0)} s: ${requests} requests answered, ${failures.length} failed`,
    );
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(100);
    expect((await api.ok('GET', `/v2/deployments/${steady}`)).source_config.resource_spec.max_scale).toBe(acknowledged);
    await eventually(
      async () => Number(await kubectlOk(['get', 'hpa', '-n', apps, 'steady', '-o', 'jsonpath={.spec.maxReplicas}'])) === acknowledged,
      30_000,
      'the last write on the autoscaler',
    );
  });

  it('uninstall keeps the CRDs and what users made; a reinstall adopts it with no new Revision and no write at rest', async () => {
    printBerthLogs();
    // Every object as Berth left it: its resourceVersion, but an autoscaler's generation, since the HPA
    // controller writes its status at each metrics reading (metrics-server's) while Berth writes nothing.
    const snapshot = async () =>
      (await kubectlOk([
        'get',
        'deployments.berth.dev,brev,deployments.apps,services,tproj',
        '-n',
        apps,
        '-o',
        'jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion}{"\\n"}{end}',
      ])) +
      (await kubectlOk([
        'get',
        'hpa',
        '-n',
        apps,
        '-o',
        'jsonpath={range .items[*]}{.kind}/{.metadata.name}@{.metadata.generation}{"\\n"}{end}',
      ]));
    // At rest means the autoscaler too: its reading (what status.scaling reports) the same for longer than
    // its scale-down window, so that a reason bound to time (ScaleDownStabilized after the last test's
    // scale change) does not turn over between the two snapshots and rightly make Berth write it.
    const reading = () =>
      kubectlOk([
        'get',
        'hpa',
        '-n',
        apps,
        'steady',
        '-o',
        'jsonpath={.status.currentReplicas}/{.status.desiredReplicas}{range .status.conditions[*]} {.type}={.status}:{.reason}{end}',
      ]);
    let last = await reading();
    let since = Date.now();
    await eventually(
      async () => {
        await sleep(2000);
        const now = await reading();
        if (now !== last) [last, since] = [now, Date.now()];
        return Date.now() - since >= (scaleDownWindowSeconds + 5) * 1000;
      },
      180_000,
      'the autoscaler at rest',
    );
    await helm(['uninstall', release, '--namespace', namespace, '--wait']);
    await eventually(async () => (await releasePods(namespace)).length === 0, 60_000, "the release's pods gone");
    expect(await kubectlOk(['get', 'crd', '-o', 'name'])).toContain('deployments.berth.dev');
    const before = await snapshot();
    expect(before).toContain('Deployment/steady=');
    expect(before).toMatch(/HorizontalPodAutoscaler\/steady@\d+/);

    await helm([
      'install',
      release,
      chart,
      '--namespace',
      namespace,
      ...imageValues(upgradedImage),
      ...values,
      '--wait',
      '--timeout',
      '5m',
    ]);
    await eventually(() => leader(namespace), 30_000, 'a leader');
    // The new leader reconciles every Deployment once at start; give it time to (not) write.
    await sleep(10_000);
    expect(await snapshot()).toBe(before);
    expect(await forbiddenInLogs(namespace)).toEqual([]);
  });
});

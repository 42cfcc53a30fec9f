// What node tests share: images pushed to the node's registry, objects applied with kubectl, pods
// waited for by their status, and HTTP requests that are always bounded in time.
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import { eventually } from '../../workbench/support/poll.ts';
import { randomUUID } from 'node:crypto';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { metricsStoreUrl } from '../../workbench/node/metrics-store.ts';
import { httpApi, type Api } from '../support/http-api.ts';
import { runArgs, spawnBerth, waitReady } from '../support/berth-process.ts';
import { loopbackLookup } from '../../workbench/support/loopback.ts';
import type { BerthProcess } from '../support/berth-process.ts';
import { pushExampleApp } from '../../workbench/node/example-app.ts';
import { appsCaSecret, nodeTlsIssuer } from '../../workbench/node/certificates.ts';
import { nodeAppUrlTemplate, nodeGateway, nodeTlsAppUrlTemplate } from '../../workbench/node/gateway.ts';
import { nodeIp, pushRegistryAddress, secondPushRegistryAddress } from '../../workbench/node/network.ts';
import { heldSlot } from './locks.ts';
import { gatewayShardIndex } from '../../src/api/gateway-shards.ts';
import { startPushRegistry, type PushRegistry } from '../../workbench/node/push-registry.ts';
import { pushBuildImages, pushServiceImages, type BuildImages } from '../../workbench/node/node.ts';

export const crane = () => join(inject('nodeBin'), 'crane');

const pushed = new Map<string, Promise<string>>();

/** The example app answering `version`, pushed once per test file: <registry>/berth-example@sha256:... */
export function exampleImage(version: string): Promise<string> {
  const key = `example:${version}`;
  if (!pushed.has(key)) pushed.set(key, pushExampleApp(crane(), inject('registry'), version));
  return pushed.get(key)!;
}

let serviceImages: ReturnType<typeof pushServiceImages> | undefined;

/** One of the node's service images (postgres, redis), pushed once per test file as `berth dev` pushes them. */
export async function serviceImage(name: 'postgres' | 'redis'): Promise<string> {
  serviceImages ??= pushServiceImages(inject('nodeBin'));
  return (await serviceImages)[name];
}

let buildImages: Promise<BuildImages> | undefined;

/** The images of a build (BuildKit, git, the tools, the agent tools), built and pushed once per test
 * file as `berth dev` pushes them. */
export function nodeBuildImages(): Promise<BuildImages> {
  buildImages ??= pushBuildImages(inject('nodeBin'));
  return buildImages;
}

/** The images of a build as Berth's flags. */
export async function buildImageFlags(): Promise<string[]> {
  const images = await nodeBuildImages();
  return [
    '--builder-image',
    images.builder,
    '--git-image',
    images.git,
    '--build-tools-image',
    images.buildTools,
    '--agent-tools-image',
    images.agentTools,
    '--agent-server-image',
    images.agentServer,
  ];
}

/** The registry for pushed images of the running file's Berth: one for each of the node suite's two slots
 * (./locks.ts), so that the two files that run at once never share one. Called once the file's setup
 * holds its slot (in a hook or a test). */
export function filePushRegistry(): string {
  return heldSlot() === 'beside' ? secondPushRegistryAddress : pushRegistryAddress;
}

/**
 * Flags of a Berth that builds on the node as `berth dev` runs it: organizations' sources and images in
 * the registry whose tokens Berth issues (each organization's only with its own credential), the HTTP
 * API also on the node's address (where the kubelet and build pods reach the registry's realm), the
 * service images (a built app gets its Postgres) and the build images. Start the registry once Berth
 * answers: startOrganizationRegistry.
 */
export async function sourceBuildFlags(): Promise<string[]> {
  return [
    '--push-registry',
    filePushRegistry(),
    '--facade-node-address',
    `${nodeIp}:0`,
    '--postgres-image',
    await serviceImage('postgres'),
    '--redis-image',
    await serviceImage('redis'),
    '--network-wait-image',
    await serviceImage('postgres'),
    ...(await buildImageFlags()),
  ];
}

/** The registry for organizations' sources and images, its realm the running Berth at the node's address. */
export async function startOrganizationRegistry(berth: BerthProcess, operatorNamespace: string, dir: string): Promise<PushRegistry> {
  const nodeUrl = (await berth.logged('serving the HTTP API')).nodeUrl;
  if (typeof nodeUrl !== 'string') throw new Error('Berth serves no HTTP API on the node address (--facade-node-address)');
  return startPushRegistry({ dir, address: filePushRegistry(), kubeConfig: testKubeConfig(), operatorNamespace, berthUrl: nodeUrl });
}

/** The pods of one component of a Berth Deployment (terminating ones included), as `T` says they look. */
export async function componentPods<T>(namespace: string, deployment: string, component = 'application'): Promise<T[]> {
  const selector = `berth.dev/deployment=${deployment},app.kubernetes.io/component=${component}`;
  return (JSON.parse(await kubectlOk(['get', 'pods', '-n', namespace, '-l', selector, '-o', 'json'])) as { items: T[] }).items;
}

/** kubectl that fails the test with kubectl's own message. */
export async function kubectlOk(args: string[], input?: string): Promise<string> {
  const result = await kubectl(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

export async function apply(namespace: string, ...objects: object[]): Promise<void> {
  await kubectlOk(
    ['apply', '--server-side', '-n', namespace, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  );
}

export interface PodStatus {
  phase?: string;
  podIP?: string;
  conditions?: { type: string; status: string }[];
  containerStatuses?: {
    name: string;
    ready: boolean;
    restartCount: number;
    state?: { waiting?: { reason?: string; message?: string }; running?: object; terminated?: { reason?: string; exitCode?: number } };
  }[];
}

export async function podStatus(namespace: string, name: string): Promise<PodStatus> {
  return (JSON.parse(await kubectlOk(['get', 'pod', '-n', namespace, name, '-o', 'json'])) as { status: PodStatus }).status;
}

/** The pod's Ready condition. */
export function isReady(status: PodStatus): boolean {
  return status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Waits until the pod's first container is waiting for one of these reasons; returns the reason. */
export async function waitingReason(namespace: string, name: string, reasons: string[], timeoutMs = 60_000): Promise<string> {
  return eventually(
    async () => {
      const reason = (await podStatus(namespace, name)).containerStatuses?.[0]?.state?.waiting?.reason;
      return reason && reasons.includes(reason) ? reason : undefined;
    },
    timeoutMs,
    `pod ${name} waiting with ${reasons.join(' or ')}`,
  );
}

export async function waitForReadyPod(namespace: string, name: string, timeoutMs = 60_000): Promise<PodStatus> {
  try {
    return await eventually(
      async () => {
        const status = await podStatus(namespace, name);
        if (isReady(status)) return status;
        // Not an answer yet: what the pod was doing ends the timeout's message.
        const states = JSON.stringify(status.containerStatuses?.map((c) => c.state) ?? []);
        throw new Error(`phase ${status.phase}, address ${status.podIP ?? 'none'}, containers ${states}`);
      },
      timeoutMs,
      `pod ${name} Ready`,
    );
  } catch (error) {
    // Why its probes failed, as the kubelet says: refused, or no answer at all.
    throw new Error(`${(error as Error).message}\nits warnings:\n${await podWarnings(namespace, name)}`, { cause: error });
  }
}

/** The pod's Warning events, a line each. */
async function podWarnings(namespace: string, name: string): Promise<string> {
  const selector = `involvedObject.kind=Pod,involvedObject.name=${name},type=Warning`;
  const { stdout, stderr } = await kubectl([
    'get',
    'events',
    '-n',
    namespace,
    '--field-selector',
    selector,
    '-o',
    'custom-columns=COUNT:.count,REASON:.reason,MESSAGE:.message',
  ]);
  return stdout || stderr;
}

/** A Gateway of the node's, its own or one of its shards (src/api/gateway-shards.ts), as stored. */
export interface NodeGateway {
  metadata: { name: string };
  spec: {
    listeners: { name: string; hostname?: string; allowedRoutes?: { namespaces?: { selector?: { matchLabels?: object } } } }[];
  };
  status?: { listeners?: { name: string; conditions: { type: string; status: string }[] }[] };
}

/** The node's Gateway and its shards. */
export async function nodeGateways(): Promise<NodeGateway[]> {
  const list = JSON.parse(await kubectlOk(['-n', nodeGateway.namespace, 'get', 'gateways', '-o', 'json'])) as { items: NodeGateway[] };
  return list.items.filter((g) => gatewayShardIndex(nodeGateway.name, g.metadata.name) !== undefined);
}

/** Whether Traefik reports the Gateway's listener Programmed. */
export function listenerProgrammed(gateway: NodeGateway | undefined, listener: string): boolean {
  const status = gateway?.status?.listeners?.find((l) => l.name === listener);
  return !!status?.conditions.some((c) => c.type === 'Programmed' && c.status === 'True');
}

/** Berth's flags for apps at URLs through the node's Gateway, as `berth dev` gives them: over plain
 * HTTP on port 18080, or with `tls`, over TLS on 18443 with certificates from the node's local CA. */
export function gatewayFlags(options: { tls?: boolean } = {}): string[] {
  const gateway = ['--gateway', `${nodeGateway.namespace}/${nodeGateway.name}`];
  if (!options.tls) return ['--app-url-template', nodeAppUrlTemplate, ...gateway];
  return ['--app-url-template', nodeTlsAppUrlTemplate, ...gateway, '--tls-issuer', `${nodeTlsIssuer.kind}/${nodeTlsIssuer.name}`];
}

/** Berth on the node for one test file, as `berth dev` runs it: apps at URLs through the Gateway, their
 * requests measured in the node's metrics store (KEDA scales on them, canaries are judged on them), an
 * organization of its own. */
export async function berthWithMetrics(name: string): Promise<{ berth: BerthProcess; api: Api; namespace: string }> {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace(`berth-${name}-op`);
  const namespace = await useNamespace(name);
  const org = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, org);
  const berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    ...gatewayFlags(),
    '--concurrency-metrics',
    metricsStoreUrl,
  ]);
  await waitReady(berth);
  const key = (await ensureApiKey(kc, operatorNamespace, [org])).key;
  return { berth, api: httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': key }), namespace };
}

/** GET with a 3 s bound (or `timeoutMs`), never a request that could wait on a route off this machine;
 * `headers` may name another Host (a custom URL's, sent to the Gateway). */
export function httpGet(url: string, headers: Record<string, string> = {}, timeoutMs?: number): Promise<{ status: number; body: string }> {
  return send(url, { headers, ...(timeoutMs ? { timeoutMs } : {}) });
}

/** GET over TLS trusting only `ca`, with the same bound; resolves with the certificate the server showed.
 * `connectTo` sends it to that address instead of the URL host's (a custom URL's host, on the Gateway),
 * still asking for the URL's host by name (SNI) and in the Host header. */
export function httpsGet(url: string, ca: string, connectTo?: string): Promise<HttpsAnswer> {
  return send(url, { ca, ...(connectTo ? { connectTo } : {}) }) as Promise<HttpsAnswer>;
}

/** POST of JSON over TLS trusting only `ca`, bounded by `timeoutMs` (an agent server's run takes a while). */
export async function httpsPostJson(url: string, ca: string, body: unknown, timeoutMs = 30_000): Promise<unknown> {
  const answer = await send(url, { ca, method: 'POST', body: JSON.stringify(body), timeoutMs });
  if (answer.status !== 200) throw new Error(`POST ${url}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body) as unknown;
}

type HttpsAnswer = { status: number; body: string; certificate: PeerCertificate };

/** One bounded request, over TLS (with `ca`, the certificate shown) for an https:// URL. */
function send(
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string>; ca?: string; connectTo?: string; timeoutMs?: number },
): Promise<{ status: number; body: string; certificate?: PeerCertificate }> {
  const target = new URL(url);
  const tls = target.protocol === 'https:';
  const method = options.method ?? 'GET';
  const timeout = options.timeoutMs ?? 3000;
  const headers = {
    ...options.headers,
    ...(options.connectTo ? { host: target.host } : {}),
    ...(options.body ? { 'content-type': 'application/json' } : {}),
  };
  const direct = options.connectTo ? { hostname: options.connectTo, ...(tls ? { servername: target.hostname } : {}) } : {};
  const open = (tls ? httpsRequest : request) as typeof request;
  return new Promise((resolve, reject) => {
    const req = open(
      url,
      { method, timeout, lookup: loopbackLookup, headers, ...(options.ca ? { ca: options.ca } : {}), ...direct },
      (res) => {
        const certificate = tls ? (res.socket as TLSSocket).getPeerCertificate() : undefined;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ...(certificate ? { certificate } : {}) }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeout / 1000} s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

let appsCa: Promise<string> | undefined;

/** The local apps CA's certificate, as the node's Issuer signs with it (and `berth dev` writes it): read
 * once per test process, since the node keeps its CA while it runs. */
export function appsCaCertificate(): Promise<string> {
  appsCa ??= kubectlOk(['-n', appsCaSecret.namespace, 'get', 'secret', appsCaSecret.name, '-o', "jsonpath={.data['tls\\.crt']}"]).then(
    (pem) => Buffer.from(pem, 'base64').toString('utf8'),
    (error: unknown) => {
      appsCa = undefined;
      throw error;
    },
  );
  return appsCa;
}

/** A pod running one container of the example app. */
export function examplePod(
  name: string,
  image: string,
  extra: { args?: string[]; readinessPath?: string; labels?: Record<string, string> } = {},
): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name, ...extra.labels } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'app',
          image,
          ...(extra.args ? { args: extra.args } : {}),
          ports: [{ containerPort: 8000 }],
          ...(extra.readinessPath ? { readinessProbe: { httpGet: { path: extra.readinessPath, port: 8000 }, periodSeconds: 1 } } : {}),
        },
      ],
    },
  };
}

export function service(name: string, selector: Record<string, string>, port: number): object {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector, ports: [{ port, targetPort: port }] } };
}

/** A service account `tenant` bound to Kubernetes' admin role in `namespace`, as a team that administers
 * its namespace is; answers the kubectl flag that acts as it, once the binding is in force. */
export async function namespaceAdmin(namespace: string): Promise<string> {
  const tenant = `--as=system:serviceaccount:${namespace}:tenant`;
  for (const args of [
    ['create', 'serviceaccount', 'tenant', '-n', namespace],
    ['create', 'rolebinding', 'tenant-admin', '-n', namespace, '--clusterrole=admin', `--serviceaccount=${namespace}:tenant`],
  ])
    expect((await kubectl(args)).code).toBe(0);
  await eventually(
    async () => (await kubectl(['auth', 'can-i', 'create', 'deployments.apps', '-n', namespace, tenant])).stdout.trim() === 'yes',
    20_000,
    'the admin role bound',
  );
  return tenant;
}

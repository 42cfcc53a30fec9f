// A deployment's notifications against the real API server: its Events sent as signed JSON to a real HTTP
// server on loopback (retried when it answers 503), and nothing sent to an origin the installation does
// not list. No kubelet runs: the test plays the apps/v1 controller's part by marking a rollout done, and
// the kubelet's by writing a pod's container status (a crash loop, and the runs between its back-offs).
// Cost: about 8 s of the control-plane suite (one manager, four deployments).
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, NotificationBody } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, kubeRequest, Manager } from '../src/runtime/index.ts';
import { parseMetrics, sumOf } from '../workbench/support/berth-metrics.ts';
import { eventually } from '../workbench/support/poll.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { markRolledOut } from './support/rollout.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const core = kc.makeApiClient(CoreV1Api);
const signingKey = 'hook-signing-key-value';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

let namespace: string;
let manager: Manager;
let receiver: Server;
let hookUrl: string;
const deliveries: Delivery[] = [];
/** What the receiver answers next, oldest first; 200 once none is left. */
const answers: number[] = [];

beforeAll(async () => {
  namespace = await useNamespace('notify');
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body });
      response.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'hook', labels: sharedSecretLabels }, stringData: { key: signingKey } },
  });
  manager = new Manager({
    kubeConfig: kc,
    healthPort: false,
    logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    processMetrics: false,
  });
  registerDeploymentControllers(manager, {
    namespaces: [namespace],
    registry: 'registry.test:5000',
    notificationOrigins: ['http://127.0.0.1:*'],
    notificationRetryBaseMs: 50,
  });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
  receiver?.close();
});

async function createDeployment(name: string, notifications: object): Promise<void> {
  await custom.createNamespacedCustomObject({
    group: 'berth.dev',
    version: 'v1alpha1',
    namespace,
    plural: 'deployments',
    body: {
      apiVersion: 'berth.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        source: 'external_docker',
        sourceConfig: { notifications },
        sourceRevisionConfig: { imageUri: 'registry.test:5000/app:1' },
      },
    },
  });
}

function stalledReason(name: string): Promise<string | undefined> {
  return custom
    .getNamespacedCustomObject({ group: 'berth.dev', version: 'v1alpha1', namespace, plural: 'deployments', name })
    .then((object) => {
      const stalled = (object as Deployment).status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');
      return stalled && `${stalled.reason}: ${stalled.message}`;
    });
}

/** The signature's check a receiver makes: HMAC-SHA256 of "<t>.<body>" with the shared key. */
function signedWith(key: string, delivery: Delivery): boolean {
  const [t, v1] = String(delivery.headers['berth-signature'])
    .split(',')
    .map((part) => part.split('=')[1]);
  return v1 === createHmac('sha256', key).update(`${t}.${delivery.body}`).digest('hex');
}

/** A pod of the application Deployment `name`'s template, as its ReplicaSet would make it (none runs here). */
async function podOf(name: string): Promise<string> {
  const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`;
  const workload = await kubeRequest<{ spec: { template: { metadata: { labels: Record<string, string> } } } }>(kc, { method: 'GET', path });
  const pod = `${name}-7c9d8b5f4d-x2kqz`;
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: pod, labels: workload.spec.template.metadata.labels },
      spec: { containers: [{ name: 'app', image: 'registry.test:5000/app:1' }] },
    },
  });
  return pod;
}

/** What the kubelet says of the pod's one container: waiting in its back-off, or running again after
 * a failed exit, `restarts` times restarted. */
async function containerSays(pod: string, state: 'backOff' | 'runningAgain', restarts: number): Promise<void> {
  const lastState = {
    terminated: { exitCode: 1, reason: 'Error', message: 'cannot open the config', startedAt: new Date(), finishedAt: new Date() },
  };
  const now =
    state === 'backOff'
      ? { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${10 * restarts}s` } }
      : { running: { startedAt: new Date() } };
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/api/v1/namespaces/${namespace}/pods/${pod}/status`,
    contentType: 'application/merge-patch+json',
    body: {
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'app', image: 'registry.test:5000/app:1', imageID: '', ready: false, restartCount: restarts, state: now, lastState },
        ],
      },
    },
  });
}

/** Until the manager's queues stayed empty for 1.5 s: a pod's update reaches it in milliseconds, and
 * a pass it asks for starts at once. */
async function untilIdle(): Promise<void> {
  let emptySince: number | undefined;
  await eventually(
    async () => {
      const samples = parseMetrics(await manager.metrics.registry.metrics());
      emptySince = sumOf(samples, 'berth_workqueue_depth') === 0 ? (emptySince ?? Date.now()) : undefined;
      return emptySince !== undefined && Date.now() - emptySince >= 1500;
    },
    30_000,
    'the manager at rest',
    100,
  );
}

const crashLoopings = () => deliveries.filter((delivery) => delivery.headers['berth-event'] === 'crash_looping');

describe('notifications', () => {
  it('posts a signed deployed notification once a revision serves, again after a 503, never with the key in it', async () => {
    answers.push(503);
    await createDeployment('shop', { url: hookUrl, signingSecret: { name: 'hook', key: 'key' }, events: ['deployed'] });
    await eventually(() => markRolledOut(kc, namespace, 'shop').catch(() => false), 30_000, 'the application Deployment');
    const [first, second] = await eventually(async () => (deliveries.length >= 2 ? deliveries : undefined), 30_000, 'two attempts');
    expect(deliveries).toHaveLength(2);
    // The same notification twice: the first attempt was answered 503.
    expect(second!.headers['berth-delivery']).toBe(first!.headers['berth-delivery']);
    const body = JSON.parse(second!.body) as NotificationBody;
    expect(body).toMatchObject({
      event: 'deployed',
      deployment: { name: 'shop', namespace },
      reason: 'RevisionActive',
      id: first!.headers['berth-delivery'],
    });
    expect(body.message).toMatch(/^Revision shop-[a-z0-9]+ is now serving\.$/);
    expect(second!.headers['berth-event']).toBe('deployed');
    expect(second!.headers['content-type']).toBe('application/json');
    expect(signedWith(signingKey, second!)).toBe(true);
    expect(signedWith('another-key', second!)).toBe(false);
    expect(second!.body).not.toContain(signingKey);
  });

  it('posts crash_looping once for a serving revision whose pod keeps crashing, the runs between its back-offs included', async () => {
    await createDeployment('looping', { url: hookUrl, signingSecret: { name: 'hook', key: 'key' }, events: ['crash_looping'] });
    await eventually(() => markRolledOut(kc, namespace, 'looping').catch(() => false), 30_000, 'the application Deployment');
    const pod = await podOf('looping');
    await containerSays(pod, 'backOff', 1);
    const [first] = await eventually(
      async () => (crashLoopings().length > 0 ? crashLoopings() : undefined),
      30_000,
      'a crash_looping notification',
    );
    const body = JSON.parse(first!.body) as NotificationBody;
    expect(body).toMatchObject({ event: 'crash_looping', deployment: { name: 'looping', namespace }, reason: 'CrashLooping' });
    expect(body.message).toContain(`pod ${pod}, container app: CrashLoopBackOff (last exit code 1, Error)`);
    // The kubelet runs it again, it fails again, its back-off grows: the same loop, told once.
    for (const [state, restarts] of [
      ['runningAgain', 2],
      ['backOff', 2],
      ['runningAgain', 3],
      ['backOff', 3],
    ] as const) {
      await containerSays(pod, state, restarts);
      await untilIdle();
    }
    expect(crashLoopings()).toHaveLength(1);
  });

  it('is Stalled for an origin the installation does not list, or a signing key that is not there, and sends nothing', async () => {
    const before = deliveries.length;
    await createDeployment('elsewhere', { url: 'http://10.0.0.1:8080/hook', signingSecret: { name: 'hook', key: 'key' } });
    await createDeployment('unsigned', { url: hookUrl, signingSecret: { name: 'no-such-secret', key: 'key' } });
    expect(await eventually(() => stalledReason('elsewhere'), 30_000, 'elsewhere Stalled')).toBe(
      'NotificationOriginNotAllowed: spec.sourceConfig.notifications.url: http://10.0.0.1:8080 is not among the origins this installation sends notifications to ' +
        '(only http://127.0.0.1:*); a platform team adds one with --notification-origins.',
    );
    expect(await eventually(() => stalledReason('unsigned'), 30_000, 'unsigned Stalled')).toMatch(
      /^SecretNotFound: Secret "no-such-secret" not found .* \(for spec\.sourceConfig\.notifications\.signingSecret\)\.$/,
    );
    expect(deliveries.length).toBe(before);
  });
});

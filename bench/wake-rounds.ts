// Scale to zero from the client's side: a dev_zero Berth Deployment with no pod, behind the node's
// activator (KEDA's HTTP add-on), gets one request through its URL; the time until that request is
// answered, against the same pod as a plain apps/v1 Deployment behind a hand-written HTTPRoute, taken
// from zero to one replica by hand at the same moment (an activator that costs nothing: the pod's start,
// its endpoint and the Gateway alone), alternated. Each side is put at zero by hand (Berth's once KEDA no
// longer sees the last request) and waits until its last pod is gone: the idle window (60 s) is not what
// is measured. Requests go to loopback only.
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { fieldManager } from '../src/api/group.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { until, type PodList } from './node-steps.ts';
import { answer, plainRoute, plainService, removeSide, urlOf, type SideBySideInput } from './url-rounds.ts';

export interface WakeTimes {
  /** From the request (Berth) or the scale to one (plain) until the URL answers 200. */
  berth: number[];
  plain: number[];
}

/** `berthDeployment`: of the dev_zero tier. */
export interface WakeRoundsInput extends SideBySideInput {
  image: string;
}

const sides = {
  berth: { name: 'wake-berth', selector: 'berth.dev/deployment=wake-berth,app.kubernetes.io/component=application' },
  plain: { name: 'wake-plain', selector: 'app=wake-plain' },
} as const;

/** How long a request at zero may wait: the interceptor's own bound is 120 s. */
const wakeTimeoutMs = 120_000;

export async function wakeRounds(input: WakeRoundsInput): Promise<WakeTimes> {
  const { kc, namespace, log } = input;
  const apply = (object: object) =>
    applyObject(kc, { ...object, metadata: { ...(object as { metadata: object }).metadata, namespace } } as never, fieldManager);
  await apply(input.berthDeployment(sides.berth.name, input.image));
  for (const object of [plainService(sides.plain.name, namespace), plainRoute(sides.plain.name, namespace)]) await apply(object);
  await apply(input.plainDeployment(sides.plain.name, input.image));
  // Both answer at their URLs once: routes programmed, the activator's routing table read.
  for (const side of Object.values(sides)) await until(async () => answer(`${urlOf(side.name, namespace)}ok`), 180_000);

  const times: WakeTimes = { berth: [], plain: [] };
  try {
    for (let i = 0; i < input.rounds; i++) {
      const order = i % 2 === 0 ? (['plain', 'berth'] as const) : (['berth', 'plain'] as const);
      for (const kind of order) {
        const { name, selector } = sides[kind];
        // KEDA takes an app it still sees wanted (the last wake's request) straight back to one.
        if (kind === 'berth') await until(async () => ((await kedaSeesActive(kc, namespace, name)) === false ? true : undefined), 60_000);
        await scaleTo(kc, namespace, name, 0);
        await until(async () => ((await podCount(kc, namespace, selector)) === 0 ? true : undefined), 60_000);
        // The interceptor polls the endpoints every 250 ms: it has seen the last one go.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const began = performance.now();
        if (kind === 'berth') {
          if ((await answer(`${urlOf(name, namespace)}ok`, wakeTimeoutMs)) === undefined) throw new Error('the request at zero failed');
        } else {
          await scaleTo(kc, namespace, name, 1);
          await until(async () => answer(`${urlOf(name, namespace)}ok`), 60_000);
        }
        times[kind].push(performance.now() - began);
      }
      log(
        `wake round ${i + 1}/${input.rounds}: zero to answered, plain scaled by hand ${(times.plain.at(-1)! / 1000).toFixed(2)} s, Berth through the activator ${(times.berth.at(-1)! / 1000).toFixed(2)} s`,
      );
    }
  } finally {
    await removeSide(kc, namespace, 'berth', sides.berth.name);
    await removeSide(kc, namespace, 'plain', sides.plain.name);
  }
  return times;
}

async function scaleTo(kc: KubeConfig, namespace: string, name: string, replicas: number): Promise<void> {
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}/scale`,
    body: { spec: { replicas } },
    contentType: 'application/merge-patch+json',
  });
}

/** KEDA's Active condition on the app's ScaledObject: whether its trigger says the app is wanted. */
async function kedaSeesActive(kc: KubeConfig, namespace: string, name: string): Promise<boolean | undefined> {
  const scaledObject = await kubeRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(kc, {
    method: 'GET',
    path: `/apis/keda.sh/v1alpha1/namespaces/${namespace}/scaledobjects/${name}`,
  });
  const active = scaledObject.status?.conditions?.find((condition) => condition.type === 'Active');
  return active ? active.status === 'True' : undefined;
}

async function podCount(kc: KubeConfig, namespace: string, selector: string): Promise<number> {
  const list = await kubeRequest<PodList>(kc, {
    method: 'GET',
    path: `/api/v1/namespaces/${namespace}/pods`,
    query: { labelSelector: selector },
  });
  return list.items.length;
}

// A canary rollout through the node's Gateway, from an image change until only the new image answers:
// Berth's sourceConfig.canary (its steps judged on the Gateway's metrics) against the same steps done by
// hand, as a platform engineer would without it: a second Deployment and Service for the new image, the
// HTTPRoute's backend weights moved step by step with the same pauses, the first Deployment's image
// changed, and the route and the second Deployment taken away. Both sides carry the same light, steady
// load (the analysis needs requests), to loopback only; the failed requests of each are reported too.
import { fieldManager } from '../src/api/group.ts';
import { applyObject, deleteObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { steadyClient } from '../workbench/support/steady-client.ts';
import { setImage, until } from './node-steps.ts';
import { answer, plainRoute, plainService, removeSide, setBerthImage, urlOf, type SideBySideInput } from './url-rounds.ts';

export interface CanaryTimes {
  berth: number[];
  plain: number[];
  /** Requests of the steady load that failed during each side's rollouts, all rounds together. */
  failed: { berth: number; plain: number };
}

export interface CanaryRoundsInput extends SideBySideInput {
  images: [{ image: string; body: string }, { image: string; body: string }];
  steps: number[];
  pauseSeconds: number;
}

const deploymentKind = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' };
const serviceKind = { apiVersion: 'v1', kind: 'Service', plural: 'services' };

/** Until `url` answers `expected` ten times in a row (a quarter second): nothing else serves. */
async function answersOnly(url: string, expected: string): Promise<void> {
  let streak = 0;
  await until(async () => {
    streak = (await answer(url)) === expected ? streak + 1 : 0;
    return streak >= 10 ? true : undefined;
  }, 600_000);
}

export async function canaryRounds(input: CanaryRoundsInput): Promise<CanaryTimes> {
  const { kc, namespace, images, log } = input;
  const times: CanaryTimes = { berth: [], plain: [], failed: { berth: 0, plain: 0 } };
  const apply = (object: object) =>
    applyObject(kc, { ...object, metadata: { ...(object as { metadata: object }).metadata, namespace } } as never, fieldManager);
  for (let i = 0; i < input.rounds; i++) {
    const order = i % 2 === 0 ? (['plain', 'berth'] as const) : (['berth', 'plain'] as const);
    for (const kind of order) {
      const name = `canary-${kind}-${i}`;
      const url = urlOf(name, namespace);
      if (kind === 'berth') await apply(input.berthDeployment(name, images[0].image));
      else
        for (const object of [plainService(name, namespace), plainRoute(name, namespace), input.plainDeployment(name, images[0].image)])
          await apply(object);
      await answersOnly(url, images[0].body);
      // A canary follows a revision that served: Berth's first one is recorded active first.
      if (kind === 'berth') await activeRevision(kc, namespace, name);
      // Two loops, one request each 50 ms: at most 40 requests a second.
      const load = steadyClient(url, { concurrency: 2, intervalMs: 50, accept: (status) => status === 200 });
      const began = performance.now();
      const since = Date.now();
      try {
        if (kind === 'berth') await setBerthImage(kc, namespace, name, images[1].image);
        else await canaryByHand(input, apply, name, images[1].image);
        await answersOnly(url, images[1].body);
        times[kind].push(performance.now() - began);
      } finally {
        await load.stop();
      }
      times.failed[kind] += load.samples.filter((sample) => sample.at >= since && !sample.ok).length;
    }
    log(
      `canary round ${i + 1}/${input.rounds}: image change to only the new image answering, steps ${input.steps.join(', ')} % with ${input.pauseSeconds} s pauses: by hand ${(times.plain.at(-1)! / 1000).toFixed(1)} s, Berth ${(times.berth.at(-1)! / 1000).toFixed(1)} s`,
    );
    for (const kind of order) await removeSide(kc, namespace, kind, `canary-${kind}-${i}`);
  }
  return times;
}

async function activeRevision(kc: CanaryRoundsInput['kc'], namespace: string, name: string): Promise<void> {
  await until(async () => {
    const found = await kubeRequest<{ status?: { activeRevisionName?: string } }>(kc, {
      method: 'GET',
      path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${name}`,
    });
    return found.status?.activeRevisionName ? true : undefined;
  });
}

/** The same steps by hand: what a platform engineer writes and waits for at each one. */
async function canaryByHand(input: CanaryRoundsInput, apply: (object: object) => Promise<unknown>, name: string, image: string) {
  const { kc, namespace } = input;
  const canary = `${name}-canary`;
  await apply(plainService(canary, namespace));
  await apply(input.plainDeployment(canary, image));
  await until(async () => {
    const found = await kubeRequest<{ status?: { availableReplicas?: number } }>(kc, {
      method: 'GET',
      path: `/apis/apps/v1/namespaces/${namespace}/deployments/${canary}`,
    });
    return (found.status?.availableReplicas ?? 0) >= 1 ? true : undefined;
  });
  const route = plainRoute(name, namespace) as { spec: { rules: { backendRefs: object[] }[] } };
  const weighted = (weight: number) => ({
    ...route,
    spec: {
      ...route.spec,
      rules: [
        {
          backendRefs: [
            { name, port: 80, weight: 100 - weight },
            { name: canary, port: 80, weight },
          ],
        },
      ],
    },
  });
  for (const weight of input.steps) {
    await apply(weighted(weight));
    await new Promise((resolve) => setTimeout(resolve, input.pauseSeconds * 1000));
  }
  await setImage(kc, namespace, name, image);
  await until(async () => {
    const found = await kubeRequest<{
      metadata: { generation: number };
      spec: { replicas: number };
      status?: { observedGeneration?: number; updatedReplicas?: number; availableReplicas?: number; replicas?: number };
    }>(kc, { method: 'GET', path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}` });
    const status = found.status ?? {};
    const done =
      (status.observedGeneration ?? 0) >= found.metadata.generation &&
      (status.updatedReplicas ?? 0) >= found.spec.replicas &&
      (status.availableReplicas ?? 0) >= found.spec.replicas &&
      (status.replicas ?? 0) === (status.updatedReplicas ?? 0);
    return done ? true : undefined;
  });
  await apply(plainRoute(name, namespace));
  // The Gateway takes the route before the canary's Service goes, as Berth waits too.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await deleteObject(kc, deploymentKind, { namespace, name: canary });
  await deleteObject(kc, serviceKind, { namespace, name: canary });
}

// A deployment's URL through the node's Gateway, from the user's side: from the create until its URL
// answers, and from an image change until its URL answers only the new image, for a Berth Deployment
// (its HTTPRoute rendered by Berth) against a plain apps/v1 Deployment with the same pod, a Service and
// a hand-written HTTPRoute on the same Gateway, alternated. Requests go to loopback only.
import { request } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { fieldManager } from '../src/api/group.ts';
import { nodeGateway } from '../workbench/node/gateway.ts';
import { gatewayHttpAddress } from '../workbench/node/network.ts';
import { applyObject, deleteObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import type { ResourceKind } from '../src/runtime/types.ts';
import { loopbackLookup } from '../workbench/support/loopback.ts';
import { setImage, until } from './node-steps.ts';

export interface UrlTimes {
  create: { berth: number[]; plain: number[] };
  change: { berth: number[]; plain: number[] };
}

/** What answers at `url` (one GET, bounded by `timeoutMs` of silence), or undefined. */
export function answer(url: string, timeoutMs = 1000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { lookup: loopbackLookup, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(res.statusCode === 200 ? body : undefined));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** Until `url` answers `expected` `times` times in a row (one GET each 25 ms): only that version serves. */
async function answersOnly(url: string, expected: string, times: number): Promise<void> {
  let streak = 0;
  await until(async () => {
    streak = (await answer(url)) === expected ? streak + 1 : 0;
    return streak >= times ? true : undefined;
  });
}

export const hostOf = (name: string, namespace: string) => `${name}.${namespace}.localhost`;
export const urlOf = (name: string, namespace: string) => `http://${hostOf(name, namespace)}:${gatewayHttpAddress.port}/`;

/** The baseline's route, as a user writes one: its host to its Service, on the same Gateway. */
export function plainRoute(name: string, namespace: string): object {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace },
    spec: {
      parentRefs: [{ namespace: nodeGateway.namespace, name: nodeGateway.name }],
      hostnames: [hostOf(name, namespace)],
      rules: [{ backendRefs: [{ name, port: 80 }] }],
    },
  };
}

export function plainService(name: string, namespace: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  };
}

/** What a bench of rounds is given, Berth's side beside the same pod as a plain apps/v1 Deployment. */
export interface SideBySideInput {
  kc: KubeConfig;
  namespace: string;
  rounds: number;
  /** Berth's Deployment of `image`, as the bench wants it (its tier, its bounds). */
  berthDeployment(name: string, image: string): object;
  /** The same pod as Berth renders, as apps/v1. */
  plainDeployment(name: string, image: string): object;
  log(message: string): void;
}

export interface UrlRoundsInput extends SideBySideInput {
  /** Two images and what each answers. */
  images: [{ image: string; body: string }, { image: string; body: string }];
}

export async function urlRounds(input: UrlRoundsInput): Promise<UrlTimes> {
  const { kc, namespace, images, log } = input;
  const times: UrlTimes = { create: { berth: [], plain: [] }, change: { berth: [], plain: [] } };
  const apply = (object: object) =>
    applyObject(kc, { ...object, metadata: { ...(object as { metadata: object }).metadata, namespace } } as never, fieldManager);
  for (let i = 0; i < input.rounds; i++) {
    const order = i % 2 === 0 ? (['plain', 'berth'] as const) : (['berth', 'plain'] as const);
    for (const kind of order) {
      const name = `url-${kind}-${i}`;
      const url = urlOf(name, namespace);
      let began = performance.now();
      if (kind === 'berth') await apply(input.berthDeployment(name, images[0].image));
      else
        for (const object of [plainService(name, namespace), plainRoute(name, namespace), input.plainDeployment(name, images[0].image)])
          await apply(object);
      await answersOnly(url, images[0].body, 1);
      times.create[kind].push(performance.now() - began);

      began = performance.now();
      if (kind === 'berth') await setBerthImage(kc, namespace, name, images[1].image);
      else await setImage(kc, namespace, name, images[1].image);
      // Ten answers in a row (a quarter second) from the new image: the old one no longer serves.
      await answersOnly(url, images[1].body, 10);
      times.change[kind].push(performance.now() - began);
    }
    log(
      `url round ${i + 1}/${input.rounds}: create to answering plain ${(times.create.plain.at(-1)! / 1000).toFixed(2)} s, Berth ${(times.create.berth.at(-1)! / 1000).toFixed(2)} s; image change plain ${(times.change.plain.at(-1)! / 1000).toFixed(2)} s, Berth ${(times.change.berth.at(-1)! / 1000).toFixed(2)} s`,
    );
    for (const kind of order) await removeSide(kc, namespace, kind, `url-${kind}-${i}`);
  }
  return times;
}

/** A Berth Deployment's new image: a new revision, as `kubectl patch` would make it. */
export async function setBerthImage(kc: KubeConfig, namespace: string, name: string, image: string): Promise<void> {
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${name}`,
    body: { spec: { sourceRevisionConfig: { imageUri: image } } },
    contentType: 'application/merge-patch+json',
  });
}

/** Each round's objects go before the next, so every round finds the node as empty as the first;
 * `alsoPlain` names further kinds the plain side made under the same name (its autoscaler). */
export async function removeSide(
  kc: KubeConfig,
  namespace: string,
  kind: 'berth' | 'plain',
  name: string,
  alsoPlain: ResourceKind[] = [],
): Promise<void> {
  if (kind === 'berth') {
    await deleteObject(kc, { apiVersion: 'berth.dev/v1alpha1', kind: 'Deployment', plural: 'deployments' }, { namespace, name });
    return;
  }
  for (const resource of alsoPlain) await deleteObject(kc, resource, { namespace, name });
  await deleteObject(kc, { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' }, { namespace, name });
  await deleteObject(kc, { apiVersion: 'v1', kind: 'Service', plural: 'services' }, { namespace, name });
  await deleteObject(kc, { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', plural: 'httproutes' }, { namespace, name });
}

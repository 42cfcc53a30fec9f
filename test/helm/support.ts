// What the helm suite's steps share: helm and kubectl against the local cluster, the release's pods,
// and revisions polled through Berth's HTTP API (test/support/http-api.ts).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { kubectlOk } from '../node/support.ts';

export const chart = join(import.meta.dirname, '../../charts/berth');

/** Kills the pod's Berth container with SIGKILL through containerd, as a crash or an OOM kill would:
 * no signal handler runs, so nothing is released. */
export async function crashContainer(namespace: string, pod: string): Promise<void> {
  const id = (await kubectlOk(['get', 'pod', '-n', namespace, pod, '-o', 'jsonpath={.status.containerStatuses[0].containerID}'])).replace(
    /^containerd:\/\//,
    '',
  );
  await promisify(execFile)(join(inject('nodeBin'), 'ctr'), [
    '--address',
    inject('containerdSocket'),
    '--namespace',
    'k8s.io',
    'task',
    'kill',
    '--signal',
    'SIGKILL',
    id,
  ]);
}

/** The node's crane; answers its stdout. */
export async function crane(args: string[]): Promise<string> {
  return (await promisify(execFile)(join(inject('nodeBin'), 'crane'), args, { encoding: 'utf8' })).stdout;
}

/** helm with its own state out of the user's home; fails with helm's message. */
export async function helm(args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(inject('helmBin'), [...args, '--kubeconfig', inject('kubeconfigPath')], {
      encoding: 'utf8',
      env: {
        ...process.env,
        HELM_CACHE_HOME: '/tmp/berth-helm/cache',
        HELM_CONFIG_HOME: '/tmp/berth-helm/config',
        HELM_DATA_HOME: '/tmp/berth-helm/data',
      },
    });
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`helm ${args.join(' ')}: ${e.stderr?.trim() || e.message}`, { cause: error });
  }
}

export interface PodView {
  name: string;
  ready: boolean;
  terminating: boolean;
  image: string;
  restarts: number;
}

export async function releasePods(namespace: string): Promise<PodView[]> {
  const list = JSON.parse(await kubectlOk(['get', 'pods', '-n', namespace, '-l', 'app.kubernetes.io/name=berth', '-o', 'json'])) as {
    items: {
      metadata: { name: string; deletionTimestamp?: string };
      spec: { containers: { image: string }[] };
      status: { conditions?: { type: string; status: string }[]; containerStatuses?: { restartCount: number }[] };
    }[];
  };
  return list.items.map((pod) => ({
    name: pod.metadata.name,
    ready: pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    terminating: pod.metadata.deletionTimestamp !== undefined,
    image: pod.spec.containers[0]!.image,
    restarts: pod.status.containerStatuses?.[0]?.restartCount ?? 0,
  }));
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
}

export async function readLease(namespace: string): Promise<LeaseSpec> {
  return (JSON.parse(await kubectlOk(['get', 'lease', '-n', namespace, 'berth-controller', '-o', 'json'])) as { spec: LeaseSpec }).spec;
}

/** The holder of Berth's leader Lease, without the identity's random suffix: the pod's name. */
export async function leader(namespace: string): Promise<string | undefined> {
  const holder = await kubectlOk(['get', 'lease', '-n', namespace, 'berth-controller', '-o', 'jsonpath={.spec.holderIdentity}']).catch(
    () => '',
  );
  return holder ? holder.replace(/_[^_]+$/, '') : undefined;
}

/** Lines mentioning `forbidden` in the logs of every container of the release's pods (previous ones too). */
export async function forbiddenInLogs(namespace: string): Promise<string[]> {
  const lines: string[] = [];
  for (const pod of await releasePods(namespace)) {
    for (const previous of [false, true]) {
      const log = await kubectlOk(['logs', '-n', namespace, pod.name, ...(previous ? ['--previous'] : [])]).catch(() => '');
      lines.push(
        ...log
          .split('\n')
          .filter((line) => /forbidden/i.test(line))
          .map((line) => `${pod.name}: ${line}`),
      );
    }
  }
  return lines;
}

/** The kubelet's own refusals: the node authorizer answers "no relationship found" while its graph has
 * not yet seen a just-bound pod's volume. The kubelet retries; no chart RBAC is involved. */
const nodeAuthorizerLag = /User "system:node:[^"]+" .* no relationship found between node/;

/** Events anywhere in the cluster whose message says `forbidden`, but the node authorizer's lag. */
export async function forbiddenEvents(): Promise<string[]> {
  const list = JSON.parse(await kubectlOk(['get', 'events', '-A', '-o', 'json'])) as {
    items: { metadata: { namespace: string }; reason: string; message?: string }[];
  };
  return list.items
    .filter((event) => /forbidden/i.test(event.message ?? '') && !nodeAuthorizerLag.test(event.message ?? ''))
    .map((event) => `${event.metadata.namespace} ${event.reason}: ${event.message}`);
}

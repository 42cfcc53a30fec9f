// The first init container of a pod that may talk at once: it holds the pod until the node's network policy
// lets it out. A policy engine programs a new pod a moment after it starts; kube-router's default deny (the
// embedded node's) refuses its traffic until then, and peers' rules refuse it elsewhere. A server that
// connects once at start, or a build's first fetch, would fail in that moment. Pure.
import type { V1Container } from '@kubernetes/client-node';
import { waitContainerPrefix } from '../../../api/own-containers.ts';

export const networkReadyContainer = `${waitContainerPrefix}network`;

/** What a wait needs (this one and the app's waits for its services): a few millicores and megabytes,
 * whatever the app asks for. */
export const waitResources = { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } };

/** How long the wait tries before it lets the pod go on: a cluster whose DNS does not answer TCP must
 * not hold every pod longer. */
export const networkReadyLimitSeconds = 15;

/**
 * The wait: a TCP connection to the pod's DNS server (port 53, which every pod may reach) every 200 ms,
 * each try bounded to 1 s (an engine that drops rather than refuses), the whole by the clock;
 * the first one accepted means the pod's own rules and its peers' hold its address. Busybox's `nc`,
 * in every image Berth runs a wait in (an image without it is not held).
 */
export const networkReadyScript = [
  'command -v busybox >/dev/null || exit 0',
  `dns=$(busybox awk '/^nameserver/ { print $2; exit }' /etc/resolv.conf)`,
  `end=$(( $(busybox date +%s) + ${networkReadyLimitSeconds} ))`,
  `while [ "$(busybox date +%s)" -lt "$end" ]; do`,
  `  busybox timeout 1 busybox nc -w 1 "$dns" 53 </dev/null >/dev/null 2>&1 && exit 0`,
  `  busybox sleep 0.2`,
  `done`,
  `echo "the network did not answer within ${networkReadyLimitSeconds} s (DNS $dns on TCP 53); starting anyway" >&2`,
].join('\n');

/** The wait in `image` (with sh and busybox), as the pod's first init container; none without an image
 * (--network-wait-image unset: the cluster's policy engine programs a pod before it starts). */
export function networkReady(image: string | undefined): V1Container[] {
  if (!image) return [];
  return [
    {
      name: networkReadyContainer,
      image,
      command: ['sh', '-c', networkReadyScript],
      resources: waitResources,
    },
  ];
}

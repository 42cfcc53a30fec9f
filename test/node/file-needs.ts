// What each file of the node suite needs beyond the node's core (containerd, the kubelet, DNS, the
// registry, the Gateway): the node's parts it uses (workbench/node/parts.ts) and the builds it reads
// itself. Listed in the order the files run (./sequencer.ts): those that need least first, then by how
// late their parts come up on a fresh machine, so that they run while the other parts still build (in
// CI every build is done before the suite starts, and every part is up in about a minute). A
// file not listed needs every part (but those only a file that names them waits for, namedOnlyParts)
// and starts first: the longest chain, agent-server, which runs beside the others (besideFiles below)
// while they take turns.
import type { BuildName } from '../../workbench/builds.ts';
import type { NodePartName } from '../../workbench/node/parts.ts';

export interface FileNeeds {
  parts: NodePartName[];
  builds?: BuildName[];
  /** It needs the node to itself (it takes all of the node's free CPU): no file runs beside it. */
  alone?: true;
}

const none: FileNeeds = { parts: [] };

export const fileNeeds: ReadonlyArray<readonly [file: string, needs: FileNeeds]> = [
  ['serving.test.ts', none],
  ['gateway.test.ts', none],
  ['rollout-traffic.test.ts', none],
  ['push.test.ts', none],
  ['tls.test.ts', { parts: ['TLS'] }],
  ['gateway-shards.test.ts', { parts: ['TLS'] }],
  // Their Postgres and Redis images are the ones the databases part pushes.
  ['node.test.ts', { parts: ['databases'] }],
  ['berth-deployment.test.ts', { parts: ['databases'] }],
  ['autoscaling.test.ts', { parts: ['resource metrics'] }],
  ['canary.test.ts', { parts: ['autoscaling'] }],
  // The console's charts read the node's metrics store.
  ['browser.test.ts', { parts: ['TLS', 'autoscaling'] }],
  ['concurrency-scaling.test.ts', { parts: ['resource metrics', 'autoscaling'] }],
  // The longest of the files after it: it starts about when agent-server ends (17-18 minutes in), so
  // that the two slots then share the shorter files below and end together (before, it came last and
  // ran four minutes with the other slot idle). Started on a fresh machine before its builds are done
  // (not CI's way), it would hold its slot until they are.
  ['postgres-operator.test.ts', { parts: ['backups', 'Postgres operator'] }],
  ['network-policy.test.ts', { parts: ['network policy', 'autoscaling'] }],
  ['scale-to-zero.test.ts', { parts: ['network policy', 'scale to zero'] }],
  // The kinds its admission policy guards are cert-manager's, KEDA's and the HTTP add-on's.
  ['steering-policy.test.ts', { parts: ['TLS', 'scale to zero'] }],
  // Their build images are the ones the builds part pushes (BuildKit's build read at once).
  ['builds.test.ts', { parts: ['databases', 'builds'] }],
  ['uploads.test.ts', { parts: ['databases', 'builds'] }],
  ['gitops.test.ts', { parts: [], builds: ['flux'] }],
  // Last: by then the files beside the others have ended, and it need not wait for them.
  ['capacity.test.ts', { parts: ['network policy'], alone: true }],
];

/** The files that run beside the others (vitest.node.config.ts runs two files at once; the others take
 * turns, ./locks.ts): each starts a Berth with a registry for pushed images of its own, and shares with
 * the others only what is safe to share (the node's parts, each organization in its own namespaces and
 * with its own Gateway listeners). Not listed above: they need every part, and start first. */
export const besideFiles: readonly string[] = ['agent-server.test.ts'];

/** Whether the file at `path` runs beside the others. */
export function runsBeside(path: string): boolean {
  return besideFiles.some((file) => path.endsWith(`/${file}`));
}

/** Parts no Deployment of Berth uses yet: only a file that names one waits for it, not those not listed. */
export const namedOnlyParts: readonly NodePartName[] = ['Postgres operator'];

/** What the file at `path` needs: its entry above; undefined for a file not listed (every part but the
 * named-only ones). */
export function needsOf(path: string): FileNeeds | undefined {
  return fileNeeds.find(([file]) => path.endsWith(`/${file}`))?.[1];
}

/** Where the file at `path` comes in the run: the unlisted first, then the listed in their order above. */
export function runOrder(path: string): number {
  return fileNeeds.findIndex(([file]) => path.endsWith(`/${file}`));
}

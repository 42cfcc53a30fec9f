// The local cluster of the tests and `berth dev`: the embedded control plane, and a real node beside it
// where the machine allows one. Every build is asked for at once, in the order the parts need them
// (./builds.ts runs two at a time, the control plane's first), so that on a fresh machine the node's
// parts are built while the control plane is. The control plane starts as soon as its build is done;
// the node's core (containerd, the kubelet, DNS, the Gateway) once its builds are; then each of the
// node's parts (./node/parts.ts) as its build is done. The node suite waits for the node's core, each
// test file for the parts it needs; `berth dev` waits for the control plane only and is told as each
// part comes up. Stops in reverse, undoing every host
// change last.
import { join } from 'node:path';
import { Builds, coldBuildMinutes, type BuildName } from './builds.ts';
import { startControlPlane, type ControlPlane } from './controlplane.ts';
import { nodeAppUrlTemplate } from './node/gateway.ts';
import {
  ensureNodePrerequisites,
  NodePrerequisitesError,
  prepareNodeHost,
  releaseNodeHost,
  startNode,
  type LocalNode,
} from './node/node.ts';
import { nodeParts, type NodeOffers, type NodePart, type NodePartName } from './node/parts.ts';

export interface LocalClusterOptions {
  dataDir: string;
  ephemeral?: boolean;
  /** `required`: fail when the machine cannot run a node; `auto`: run without one and say why;
   * `none`: the control plane only. */
  node: 'required' | 'auto' | 'none';
  /** Cluster DNS forwards other names to the host's resolver (`berth dev`); tests keep every query local. */
  forwardDns: boolean;
  log?: (message: string) => void;
  /** Where the build progress goes (what builds, how far; then that every part runs): `building` lines
   * supersede each other, `done` ends them (a terminal shows them as one status line). Default: log. */
  progress?: (message: string, state: 'building' | 'done') => void;
  /** `everything` (the default): resolve once the node and all its parts run, or reject with the first
   * that failed. `node`: resolve once the node's core runs (or reject as it fails); its parts come up
   * behind it (`parts`). `control plane`: resolve once the API server answers; the node and its parts
   * come up behind it, each announced through onChange and the log. */
  waitFor?: 'everything' | 'node' | 'control plane';
  /** Called as the node, then each of its parts, starts to run: with all that the node offers so far. */
  onChange?: (offers: NodeOffers) => void;
}

export interface LocalCluster {
  controlPlane: ControlPlane;
  /** Set once the node's core runs. Never set when the machine cannot run a node (`auto`); `withoutNode`
   * says why. */
  node?: LocalNode;
  withoutNode?: string;
  /** Everything the node's core and its running parts offer. */
  offers: NodeOffers;
  /** Resolves when the node and every part run (at once without a node); rejects with the first failure. */
  ready: Promise<void>;
  /** Each of the node's parts by name: resolves when it runs, rejects as it fails (empty without a node). */
  parts: ReadonlyMap<NodePartName, Promise<void>>;
  stop(): Promise<void>;
}

/** What a build waits for until the node's builds part runs. */
const awaitedBuilderMessage =
  "The node's builder (BuildKit and the build images) is still being built on this machine: the build starts once it is ready.";

/** The builds of the node's core, after the control plane's. */
const coreBuilds: BuildName[] = ['node', 'gateway'];

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  const log = options.log ?? (() => {});
  const builds = new Builds({ logDir: join(options.dataDir, 'logs') });
  const progress = new Progress(log, options.progress ?? log, builds);
  const kubeBin = builds.bin('controlplane');
  const withoutNode = await nodeUnavailable(options, log);
  if (withoutNode) {
    const controlPlane = await startControlPlane({ dataDir: options.dataDir, ephemeral: options.ephemeral, log, binDir: await kubeBin });
    progress.done();
    return { controlPlane, withoutNode, offers: {}, ready: Promise.resolve(), parts: new Map(), stop: () => controlPlane.stop() };
  }
  // Every build asked for now, in the order needed: they run while the control plane is built.
  for (const name of [...coreBuilds, ...nodeParts.flatMap((part) => part.builds)]) builds.bin(name).catch(() => {});
  progress.expect(['control plane', 'node', ...nodeParts.map((part) => part.name)]);
  let controlPlane: ControlPlane | undefined;
  let node: LocalNode | undefined;
  let nodeStarting: Promise<unknown> = Promise.resolve();
  const stop = async () => {
    progress.done();
    await builds.cancel();
    await nodeStarting.catch(() => {});
    await node?.stop();
    await controlPlane?.stop();
    await releaseNodeHost(await kubeBin);
  };
  try {
    await prepareNodeHost(options.dataDir, {
      masquerade: options.forwardDns,
      keepVolumes: !options.ephemeral,
      kubeBin: await kubeBin,
      log,
    });
    controlPlane = await startControlPlane({
      dataDir: options.dataDir,
      ephemeral: options.ephemeral,
      forNode: true,
      log,
      binDir: await kubeBin,
    });
    progress.ready('control plane');
  } catch (error) {
    await stop();
    throw error;
  }
  const cluster: LocalCluster = { controlPlane, offers: {}, ready: Promise.resolve(), parts: new Map(), stop };
  const offer = (offers: NodeOffers) => {
    if (Object.entries(offers).every(([key, value]) => cluster.offers[key as keyof NodeOffers] === value)) return;
    Object.assign(cluster.offers, offers);
    options.onChange?.({ ...cluster.offers });
  };
  const nodeRunning = (async () => {
    const [kube, nodeBin, gateway] = await Promise.all([kubeBin, ...coreBuilds.map((name) => builds.bin(name))]);
    const started = startNode({
      dataDir: options.dataDir,
      controlPlane,
      binaries: { kube, node: nodeBin!, gateway: gateway! },
      forwardDns: options.forwardDns,
      log,
    });
    nodeStarting = started;
    node = cluster.node = await started;
    progress.ready('node');
    offer({ appUrlTemplate: nodeAppUrlTemplate, awaitedBuilder: awaitedBuilderMessage });
    return node;
  })();
  // Its failure is the parts' to report (they await it once their builds are done), never an unhandled one.
  nodeRunning.catch(() => {});
  cluster.parts = startParts(nodeRunning, builds, progress, offer);
  cluster.ready = allRunning(cluster.parts, progress);
  const awaited = { everything: cluster.ready, node: nodeRunning, 'control plane': undefined }[options.waitFor ?? 'everything'];
  if (awaited) {
    await awaited.catch(async (error: unknown) => {
      await cluster.stop();
      throw error;
    });
  }
  if (options.waitFor !== 'everything') {
    cluster.ready.catch((error: unknown) => log(`${(error as Error).message}; the cluster runs without it`));
  }
  return cluster;
}

/** Why the node will not run (undefined when it will): not asked for, or, under `auto`, what the
 * machine lacks. */
async function nodeUnavailable(options: LocalClusterOptions, log: (m: string) => void): Promise<string | undefined> {
  if (options.node === 'none') return 'no node asked for';
  try {
    await ensureNodePrerequisites(log);
    return undefined;
  } catch (error) {
    if (options.node === 'auto' && error instanceof NodePrerequisitesError) {
      log(`${error.message}; running the control plane only (Pods will not run)`);
      return error.message;
    }
    throw error;
  }
}

/** Starts each part once the node runs and the part's builds are done (after the parts it needs), each
 * said ready in the progress lines. */
function startParts(
  node: Promise<LocalNode>,
  builds: Builds,
  progress: Progress,
  offer: (offers: NodeOffers) => void,
): Map<NodePartName, Promise<void>> {
  const started = new Map<NodePartName, Promise<void>>();
  const start = async (part: NodePart) => {
    const bins = await Promise.all(part.builds.map((name) => builds.bin(name)));
    const running = await node;
    for (const name of part.after ?? []) await started.get(name);
    try {
      offer(await part.start(running.context, bins));
    } catch (error) {
      throw new Error(`the node's ${part.name} did not start: ${(error as Error).message}`, { cause: error });
    }
    progress.ready(part.name, part.gives);
  };
  for (const part of nodeParts) started.set(part.name, start(part));
  // Each failure is reported by allRunning (and to whoever awaits that part), never as an unhandled one.
  for (const running of started.values()) running.catch(() => {});
  return started;
}

/** Resolves once every part runs; rejects with the first that failed, once none is still starting. */
async function allRunning(parts: ReadonlyMap<NodePartName, Promise<void>>, progress: Progress): Promise<void> {
  const outcomes = await Promise.allSettled(parts.values());
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  progress.done();
}

/** What is ready, what is building and how far: a line for each part that comes up, and every 30 s
 * while something builds, one on the builds under way. */
class Progress {
  private readonly startedAt = Date.now();
  private expected: string[] = [];
  private readonly readyParts: string[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly log: (message: string) => void;
  private readonly status: NonNullable<LocalClusterOptions['progress']>;
  private readonly builds: Builds;
  private last = '';
  private finished = false;

  constructor(log: (message: string) => void, status: NonNullable<LocalClusterOptions['progress']>, builds: Builds) {
    this.log = log;
    this.status = status;
    this.builds = builds;
    this.timer = setInterval(() => this.report(), 30_000).unref();
  }

  expect(parts: string[]): void {
    this.expected = parts;
  }

  /** Says that `part` runs, and what it brings. */
  ready(part: string, gives?: string): void {
    this.readyParts.push(part);
    this.log(`ready ${this.readyParts.length}/${this.expected.length}: ${part} (${this.elapsed()})${gives ? `: ${gives}` : ''}`);
  }

  /** Ends the reports; says so, once, when every part came up. */
  done(): void {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.timer);
    if (this.expected.length > 0 && this.readyParts.length === this.expected.length) {
      this.status(`all parts ready in ${this.elapsed()}: ${this.readyParts.join(', ')}`, 'done');
    }
  }

  private report(): void {
    const states = this.builds.list();
    const building = states.flatMap((build) =>
      build.state === 'building'
        ? [`${build.name} ${Math.floor((Date.now() - build.startedAt) / 60_000)}m of ~${coldBuildMinutes[build.name]}m`]
        : [],
    );
    if (building.length === 0) return;
    const queued = states.filter((build) => build.state === 'waiting').map((build) => build.name);
    const line = [
      `parts ready ${this.readyParts.length}/${this.expected.length}`,
      `building ${building.join(', ')}`,
      ...(queued.length > 0 ? [`then ${queued.join(', ')}`] : []),
    ].join('; ');
    if (line === this.last) return;
    this.last = line;
    this.status(`${line} (${this.elapsed()})`, 'building');
  }

  private elapsed(): string {
    return minutes(Date.now() - this.startedAt);
  }
}

function minutes(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

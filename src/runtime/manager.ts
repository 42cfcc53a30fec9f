// The Manager owns what a controller process shares: one KubeConfig, one informer per resource
// (shared by controllers and the HTTP facade), the controllers, leader election, metrics, Events and
// the health server. Informers and the health server run on every replica; controllers run only
// while this replica leads.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { onKubeApiRequest } from './api-request-counter.ts';
import { backoffDelay, sleep, withTimeout } from './backoff.ts';
import { Controller, type ControllerOptions } from './controller.ts';
import { createEventRecorder, type EventRecorder } from './events.ts';
import { startHealthServer, type HealthServer } from './health-server.ts';
import { createInformer, type Informer, type InformerOptions } from './informer.ts';
import { closeKubeConnections } from './kube-request.ts';
import { LeaderElector, type LeaderElectionConfig } from './leader-election.ts';
import { createLogger, type Logger } from './logger.ts';
import { createRuntimeMetrics, type RuntimeMetrics } from './metrics.ts';
import type { KubeObject, ResourceKind } from './types.ts';

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  logger?: Logger;
  /** Port of /healthz, /readyz and /metrics: 0 picks a free one, false serves none. Default 8081. */
  healthPort?: number | false;
  healthHost?: string;
  /** Off when absent. `identity` defaults to `<hostname>_<random>`, `leaseName` to `berth-controller`. */
  leaderElection?: Omit<LeaderElectionConfig, 'identity' | 'leaseName'> & { identity?: string; leaseName?: string };
  /** Event source. Default `berth-controller`. */
  component?: string;
  /** Bound on waiting for reconciles in flight at stop(). Default 30 s. */
  shutdownTimeoutMs?: number;
  /** Aggregation window of identical Events. Default 60 s. */
  eventAggregateWindowMs?: number;
  /** Node.js process metrics on /metrics. Default true. */
  processMetrics?: boolean;
}

/** A leader task's retries: from 1 s, doubling, at most 30 s apart. */
const leaderTaskBackoff = { initialMs: 1000, maxMs: 30_000 };

export class Manager {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  readonly metrics: RuntimeMetrics;
  readonly recorder: EventRecorder;
  readonly identity: string;
  readonly #options: ManagerOptions;
  readonly #informers = new Map<string, Informer>();
  readonly #controllers: Controller[] = [];
  readonly #leaderTasks: { name: string; run: () => Promise<void> }[] = [];
  readonly #elector: LeaderElector | undefined;
  readonly #stopCounting: () => void;
  readonly #lifetime = new AbortController();
  #server: HealthServer | undefined;
  #started = false;
  #stopping = false;
  #stopped = false;
  #stopLeading: Promise<void> | undefined;
  #leading = false;
  #leaderTerm = 0;

  constructor(options: ManagerOptions) {
    this.#options = options;
    this.kubeConfig = options.kubeConfig;
    this.logger = options.logger ?? createLogger();
    this.metrics = createRuntimeMetrics({ processMetrics: options.processMetrics });
    const election = options.leaderElection;
    this.identity = election?.identity ?? `${hostname()}_${randomUUID().slice(0, 8)}`;
    this.recorder = createEventRecorder(this.kubeConfig, {
      component: options.component ?? 'berth-controller',
      instance: this.identity,
      aggregateWindowMs: options.eventAggregateWindowMs,
      logger: this.logger,
    });
    const server = this.kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig has no current cluster');
    this.#stopCounting = onKubeApiRequest(server, (labels) => this.metrics.kubeApiRequests.inc({ ...labels }));
    if (election) {
      this.#elector = new LeaderElector(
        this.kubeConfig,
        { ...election, identity: this.identity, leaseName: election.leaseName ?? 'berth-controller' },
        { onStartedLeading: () => this.#startedLeading(), onStoppedLeading: () => this.#stoppedLeading() },
        this.logger,
      );
    }
    this.metrics.leader.set(0);
  }

  /** The informer of a resource (one per resource, namespaces and label selector): created once, then shared. */
  informer<T extends KubeObject = KubeObject>(resource: ResourceKind, options: Omit<InformerOptions<T>, 'logger'> = {}): Informer<T> {
    const id = JSON.stringify([resource.apiVersion, resource.plural, [...(options.namespaces ?? [])].sort(), options.labelSelector ?? '']);
    // One informer per id, so the one kept under it is of the kind asked for.
    const shared = this.#informers.get(id) as Informer<T> | undefined;
    if (shared) {
      for (const label of options.labelIndexes ?? []) shared.addIndex(label);
      for (const [name, indexer] of Object.entries(options.indexes ?? {})) shared.addIndex(name, indexer);
      return shared;
    }
    const informer = createInformer<T>(this.kubeConfig, resource, { ...options, logger: this.logger });
    this.#informers.set(id, informer);
    if (this.#started && !this.#stopping) informer.start();
    return informer;
  }

  addController<T extends KubeObject>(options: ControllerOptions<T>): Controller<T> {
    const controller = new Controller<T>(options, { logger: this.logger, metrics: this.metrics, recorder: this.recorder });
    this.#controllers.push(controller);
    if (this.#leading) void this.#startControllers(this.#leaderTerm);
    return controller;
  }

  /**
   * Work only the leader does, once per term, before or beside its controllers (keeping an object of
   * the installation as rendered): a standby writes nothing. A failure is retried with backoff until it
   * succeeds or the term ends.
   */
  whenLeading(name: string, run: () => Promise<void>): void {
    const task = { name, run };
    this.#leaderTasks.push(task);
    if (this.#leading) void this.#runLeaderTask(task, this.#leaderTerm);
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  get healthPort(): number | undefined {
    return this.#server?.port;
  }

  hasSynced(): boolean {
    return [...this.#informers.values()].every((informer) => informer.hasSynced());
  }

  /** Why /readyz answers 503; empty when ready. */
  notReadyReasons(): string[] {
    const reasons: string[] = [];
    if (!this.#started) reasons.push('not started');
    if (this.#stopping) reasons.push('shutting down');
    for (const informer of this.#informers.values()) {
      if (!informer.hasSynced()) reasons.push(`cache of ${informer.resource.plural} not synced`);
    }
    if (this.#elector && !this.#elector.leadershipKnown) reasons.push('leadership not known yet');
    return reasons;
  }

  /** Starts informers, the health server and leader election (or the controllers, without it). */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const informer of this.#informers.values()) informer.start();
    if (this.#options.healthPort !== false) {
      this.#server = await startHealthServer({
        port: this.#options.healthPort ?? 8081,
        host: this.#options.healthHost,
        registry: this.metrics.registry,
        notReadyReasons: () => this.notReadyReasons(),
      });
      this.logger.info({ port: this.#server.port }, 'serving /healthz, /readyz and /metrics');
    }
    if (this.#elector) this.#elector.start();
    else this.#startedLeading();
  }

  /**
   * Graceful stop: stops intake, lets reconciles in flight finish (bounded), releases the lease,
   * closes the watches and the health server.
   */
  /**
   * The first half of stop: reconciles finish, no new one starts, and the Lease is released so another
   * replica leads at once. The informer caches keep serving readers (an HTTP API draining meanwhile).
   */
  async stopLeading(): Promise<void> {
    this.#stopLeading ??= this.#releaseLeadership();
    return this.#stopLeading;
  }

  async #releaseLeadership(): Promise<void> {
    this.#stopping = true;
    this.#lifetime.abort();
    this.#leading = false;
    this.#leaderTerm += 1;
    const timeout = this.#options.shutdownTimeoutMs ?? 30_000;
    await Promise.all(this.#controllers.map((controller) => withTimeout(controller.stop(), timeout)));
    await this.#elector?.stop();
    this.metrics.leader.set(0);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.stopLeading();
    await Promise.all([...this.#informers.values()].map((informer) => informer.stop()));
    await withTimeout(this.recorder.flush(), 5_000);
    await this.#server?.close();
    this.#stopCounting();
    closeKubeConnections(this.kubeConfig);
    this.logger.info('stopped');
  }

  #startedLeading(): void {
    if (this.#stopping) return;
    this.#leading = true;
    this.#leaderTerm += 1;
    this.metrics.leader.set(1);
    for (const task of this.#leaderTasks) void this.#runLeaderTask(task, this.#leaderTerm);
    void this.#startControllers(this.#leaderTerm);
  }

  async #runLeaderTask(task: { name: string; run: () => Promise<void> }, term: number): Promise<void> {
    for (let failures = 0; term === this.#leaderTerm && this.#leading && !this.#stopping;) {
      try {
        await task.run();
        return;
      } catch (error) {
        failures += 1;
        const delayMs = backoffDelay(leaderTaskBackoff, failures);
        this.logger.warn({ err: error, task: task.name, retryInMs: delayMs }, 'a leader task failed; retrying');
        await sleep(delayMs, this.#lifetime.signal);
      }
    }
  }

  #stoppedLeading(): void {
    if (!this.#leading) return;
    this.#leading = false;
    this.#leaderTerm += 1;
    this.metrics.leader.set(0);
    for (const controller of this.#controllers) void controller.stop({ abortInFlight: true });
  }

  /**
   * Starts the controllers once every cache has synced, unless the term ended meanwhile: not only those
   * whose events a controller maps, since a reconcile also reads others (an integration, a Secret), and
   * one that read a cache before its sync would find nothing there and say so (a Warning Event after
   * every restart). /readyz waits for the same caches.
   */
  async #startControllers(term: number): Promise<void> {
    try {
      await Promise.all([...this.#informers.values()].map((informer) => informer.waitForSync(this.#lifetime.signal)));
    } catch {
      // waitForSync rejects only once the lifetime signal aborts: Berth is stopping, nothing to start.
      return;
    }
    if (term !== this.#leaderTerm || !this.#leading || this.#stopping) return;
    for (const controller of this.#controllers) controller.start();
  }
}

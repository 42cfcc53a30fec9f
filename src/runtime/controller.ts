// A controller turns cache events into keys and keys into reconcile calls. Sources: the primary
// informer (its objects' keys), owned informers (an owned object's event enqueues its owner when the
// ownerReference names the primary kind), custom mappings, and a periodic resync of every key. Each
// source may say which of its updates matter (an UpdateFilter); adds and deletes always do.
import { performance } from 'node:perf_hooks';
import type { BackoffPolicy } from './backoff.ts';
import type { EventRecorder } from './events.ts';
import type { Informer } from './informer.ts';
import type { Logger } from './logger.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { staleCacheRetryMs, StaleObjectError } from './status-write.ts';
import {
  groupOf,
  keyString,
  objectKey,
  parseKeyString,
  type DeepReadonly,
  type KubeObject,
  type ObjectKey,
  type ResourceKind,
} from './types.ts';
import { WorkQueue, type ProcessResult } from './work-queue.ts';

export type ReconcileResult = ProcessResult;

export interface ReconcileContext {
  /** Carries `controller`, `namespace` and `name` on every line. */
  logger: Logger;
  /** Fires when this replica stops reconciling (lost leadership, shutdown past its bound). */
  signal: AbortSignal;
  recorder: EventRecorder;
}

/**
 * Makes the world match the object named by `key` (which may no longer exist: read it from the
 * cache). Throwing retries the key with backoff, but a StaleObjectError (status-write.ts) runs it
 * again after staleCacheRetryMs; `requeueAfter` runs it again later.
 */
export type Reconcile = (key: ObjectKey, context: ReconcileContext) => Promise<ReconcileResult | void>;

/** A reconcile that records its Events through `wrap(recorder)` (one wrapper per recorder). */
export function withRecorder(reconcile: Reconcile, wrap: (recorder: EventRecorder) => EventRecorder): Reconcile {
  const wrapped = new WeakMap<EventRecorder, EventRecorder>();
  return (key, context) => {
    let recorder = wrapped.get(context.recorder);
    if (!recorder) wrapped.set(context.recorder, (recorder = wrap(context.recorder)));
    return reconcile(key, { ...context, recorder });
  };
}

/** Whether an update of a source's object can matter to the objects it maps to. Default: every update does. */
export type UpdateFilter<T extends KubeObject = KubeObject> = (object: DeepReadonly<T>, previous: DeepReadonly<T>) => boolean;

/** Another kind's informer, and the primary objects each of its objects concerns. Its map and filter see
 * the informer's own kind (methods, so that sources of several kinds make one list): write one with
 * watch(), which infers that kind from the informer. */
export interface WatchSource<T extends KubeObject = KubeObject> {
  informer: Informer<T>;
  /** Keys of primary objects to reconcile when this object changes. */
  map(object: DeepReadonly<T>): ObjectKey[];
  changed?(object: DeepReadonly<T>, previous: DeepReadonly<T>): boolean;
}

/** A watch source typed by its informer's kind. */
export function watch<T extends KubeObject>(source: WatchSource<T>): WatchSource<T> {
  return source;
}

/** An owned informer whose updates are filtered (a plain informer: every update enqueues the owner). */
export interface OwnedSource<T extends KubeObject = KubeObject> {
  informer: Informer<T>;
  changed?(object: DeepReadonly<T>, previous: DeepReadonly<T>): boolean;
}

/** An owned source typed by its informer's kind. */
export function owned<T extends KubeObject>(source: OwnedSource<T>): OwnedSource<T> {
  return source;
}

export interface ControllerOptions<T extends KubeObject = KubeObject> {
  /** Names the controller in logs and metrics, e.g. `deployment`. */
  name: string;
  informer: Informer<T>;
  /** Which updates of the primary objects enqueue them. Default: every update. */
  changed?: UpdateFilter;
  /** Informers of child objects whose ownerReferences point to the primary kind. */
  owns?: (Informer | OwnedSource)[];
  watches?: WatchSource[];
  reconcile: Reconcile;
  /** Keys reconciled in parallel. Default 2. */
  concurrency?: number;
  /** Every key is enqueued this often; 0 turns it off. Default 10 minutes. */
  resyncPeriodMs?: number;
  /** Retry backoff. Default 5 ms doubling to 5 minutes. */
  backoff?: BackoffPolicy;
  /** How long stop() waits for reconciles in flight. Default 30 s. */
  drainTimeoutMs?: number;
}

export interface ControllerDependencies {
  logger: Logger;
  metrics: RuntimeMetrics;
  recorder: EventRecorder;
}

/** Keys of the owners of `object` that are of `owner`'s kind. */
export function ownerKeys(object: DeepReadonly<KubeObject>, owner: Pick<ResourceKind, 'apiVersion' | 'kind'>): ObjectKey[] {
  const ownerGroup = groupOf(owner.apiVersion);
  return (object.metadata?.ownerReferences ?? [])
    .filter((ref) => ref.kind === owner.kind && groupOf(ref.apiVersion) === ownerGroup)
    .map((ref) => ({ namespace: object.metadata?.namespace ?? '', name: ref.name }));
}

function ownedSources(owns: ControllerOptions['owns']): OwnedSource[] {
  return (owns ?? []).map((owned) => ('informer' in owned ? owned : { informer: owned }));
}

export class Controller<T extends KubeObject = KubeObject> {
  readonly name: string;
  readonly informer: Informer<T>;
  readonly #options: ControllerOptions<T>;
  readonly #deps: ControllerDependencies;
  readonly #logger: Logger;
  #queue: WorkQueue | undefined;
  #resync: NodeJS.Timeout | undefined;

  constructor(options: ControllerOptions<T>, deps: ControllerDependencies) {
    this.name = options.name;
    this.informer = options.informer;
    this.#options = options;
    this.#deps = deps;
    this.#logger = deps.logger.child({ controller: options.name });
    // Handlers are registered once; they enqueue only while the controller runs.
    const enqueueObject = (object: DeepReadonly<KubeObject>) => this.enqueue(objectKey(object));
    options.informer.onAdd(enqueueObject);
    options.informer.onUpdate((object, previous) => {
      if (options.changed && !options.changed(object, previous)) return;
      enqueueObject(object);
    });
    options.informer.onDelete(enqueueObject);
    const primary = options.informer.resource;
    for (const { informer: owned, changed } of ownedSources(options.owns)) {
      const enqueueOwners = (object: DeepReadonly<KubeObject>) => ownerKeys(object, primary).forEach((key) => this.enqueue(key));
      owned.onAdd(enqueueOwners);
      owned.onUpdate((object, previous) => {
        if (changed && !changed(object, previous)) return;
        enqueueOwners(object);
        enqueueOwners(previous);
      });
      owned.onDelete(enqueueOwners);
    }
    for (const source of options.watches ?? []) {
      const enqueueMapped = (object: DeepReadonly<KubeObject>) => source.map(object).forEach((key) => this.enqueue(key));
      source.informer.onAdd(enqueueMapped);
      source.informer.onUpdate((object, previous) => {
        if (source.changed && !source.changed(object, previous)) return;
        enqueueMapped(object);
        enqueueMapped(previous);
      });
      source.informer.onDelete(enqueueMapped);
    }
  }

  get running(): boolean {
    return this.#queue !== undefined;
  }

  enqueue(key: ObjectKey): void {
    this.#queue?.add(keyString(key));
  }

  enqueueAfter(key: ObjectKey, delayMs: number): void {
    this.#queue?.addAfter(keyString(key), delayMs);
  }

  /** Starts reconciling: every object in the primary cache is enqueued (events may have been missed while stopped). */
  start(): void {
    if (this.#queue) return;
    const { metrics } = this.#deps;
    const queueName = this.name;
    this.#queue = new WorkQueue({
      concurrency: this.#options.concurrency ?? 2,
      backoff: this.#options.backoff,
      process: (key, signal) => this.#reconcileKey(key, signal),
      onDepth: (depth) => metrics.workqueueDepth.set({ name: queueName }, depth),
      onRetry: () => metrics.workqueueRetries.inc({ name: queueName }),
    });
    this.#enqueueAll();
    const period = this.#options.resyncPeriodMs ?? 10 * 60_000;
    if (period > 0) this.#resync = setInterval(() => this.#enqueueAll(), period);
    this.#logger.info('controller started');
  }

  /**
   * Stops intake. `abortInFlight` (lost leadership) signals reconciles in flight at once; otherwise
   * they get up to drainTimeoutMs to finish. Resolves true when all finished.
   */
  async stop(options: { abortInFlight?: boolean } = {}): Promise<boolean> {
    const queue = this.#queue;
    if (!queue) return true;
    this.#queue = undefined;
    clearInterval(this.#resync);
    const drained = await queue.shutdown({ drainTimeoutMs: this.#options.drainTimeoutMs ?? 30_000, abortInFlight: options.abortInFlight });
    this.#logger.info({ drained }, 'controller stopped');
    return drained;
  }

  #enqueueAll(): void {
    for (const object of this.#options.informer.list()) this.enqueue(objectKey(object));
  }

  async #reconcileKey(keyText: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { metrics, recorder } = this.#deps;
    const key = parseKeyString(keyText);
    // The logger with the object's bindings is made when a pass first logs: most passes never do.
    let keyLogger: Logger | undefined;
    const keyed = () => (keyLogger ??= this.#logger.child({ namespace: key.namespace || undefined, object: key.name }));
    const started = performance.now();
    try {
      const result = await this.#options.reconcile(key, {
        get logger() {
          return keyed();
        },
        signal,
        recorder,
      });
      metrics.reconcileTotal.inc({ controller: this.name, result: result?.requeueAfter !== undefined ? 'requeue' : 'success' });
      return result;
    } catch (error) {
      // A pass that decided from a cache behind the object is no failure: it runs again, soon.
      if (error instanceof StaleObjectError) {
        keyed().debug({ err: error.message }, 'the cache lags the object: deciding again');
        metrics.reconcileTotal.inc({ controller: this.name, result: 'requeue' });
        return { requeueAfter: staleCacheRetryMs };
      }
      metrics.reconcileTotal.inc({ controller: this.name, result: 'error' });
      metrics.reconcileErrors.inc({ controller: this.name });
      keyed().error({ err: error instanceof Error ? error.message : String(error) }, 'reconcile failed; retrying with backoff');
      throw error;
    } finally {
      metrics.reconcileDuration.observe({ controller: this.name }, (performance.now() - started) / 1000);
    }
  }
}

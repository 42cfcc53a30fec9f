// Kubernetes Events (core/v1) on the objects controllers reconcile. A hot loop repeating the same
// event must not flood the API server: identical events (same object, type, reason and message) are
// aggregated into one Event whose count grows, written at most once per aggregation window.
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from './logger.ts';
import { isKubeApiError, kubeRequest } from './kube-request.ts';
import type { DeepReadonly, KubeObject } from './types.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Records an event; never throws, never blocks the caller. Messages must hold no secret. */
  event(object: DeepReadonly<KubeObject> | KubeObject, type: EventType, reason: string, message: string): void;
  /** Writes pending aggregated counts and waits for writes in flight. */
  flush(): Promise<void>;
}

export interface EventRecorderOptions {
  /** `source.component` / `reportingComponent`, e.g. `berth-controller`. */
  component: string;
  /** `reportingInstance`: which replica. */
  instance?: string;
  /** Minimum time between two writes of one aggregated event. Default 60 s. */
  aggregateWindowMs?: number;
  /** Distinct events remembered for aggregation. Default 4096. */
  maxTracked?: number;
  logger: Logger;
}

interface Tracked {
  namespace: string;
  name: string;
  count: number;
  writtenCount: number;
  lastWriteAt: number;
  lastTimestamp: string;
  /** Settles when the Event has been created: count updates wait for it. */
  created: Promise<unknown>;
  timer?: NodeJS.Timeout;
  /** The count write in flight: one at a time, so repeats never write the same count twice. */
  writing?: Promise<void>;
  /** Dropped from the tracked set (expired by the API server, or too many tracked): never written again. */
  forgotten?: boolean;
}

const maxMessageLength = 1024;

interface Occurrence {
  namespace: string;
  type: EventType;
  reason: string;
  message: string;
  at: Date;
}

/** The core/v1 Event of an occurrence on `object`. Pure. */
function eventBody(
  object: DeepReadonly<KubeObject> | KubeObject,
  name: string,
  occurrence: Occurrence,
  reporter: { component: string; instance: string },
) {
  const meta = object.metadata!;
  const timestamp = occurrence.at.toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: occurrence.namespace },
    involvedObject: {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
    },
    type: occurrence.type,
    reason: occurrence.reason,
    message: occurrence.message,
    count: 1,
    firstTimestamp: timestamp,
    lastTimestamp: timestamp,
    source: { component: reporter.component },
    reportingComponent: reporter.component,
    reportingInstance: reporter.instance,
  };
}

export function createEventRecorder(kc: KubeConfig, options: EventRecorderOptions): EventRecorder {
  return new AggregatingEventRecorder(kc, options);
}

/** Each distinct event is created once; its repeats grow its count, written at most once per window. */
class AggregatingEventRecorder implements EventRecorder {
  readonly #kc: KubeConfig;
  readonly #options: EventRecorderOptions;
  readonly #window: number;
  readonly #maxTracked: number;
  /** Most recently seen last: the oldest is the one forgotten when too many are tracked. */
  readonly #tracked = new Map<string, Tracked>();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(kc: KubeConfig, options: EventRecorderOptions) {
    this.#kc = kc;
    this.#options = options;
    this.#window = options.aggregateWindowMs ?? 60_000;
    this.#maxTracked = options.maxTracked ?? 4096;
  }

  event(object: DeepReadonly<KubeObject> | KubeObject, type: EventType, reason: string, message: string): void {
    const meta = object.metadata;
    if (!meta?.name) return;
    const namespace = meta.namespace || 'default';
    const text = message.length > maxMessageLength ? `${message.slice(0, maxMessageLength - 3)}...` : message;
    const key = [meta.uid ?? `${namespace}/${meta.name}`, type, reason, text].join('\u0000');
    const existing = this.#tracked.get(key);
    const now = new Date();
    if (existing) this.#repeat(key, existing, now);
    else this.#create(key, object, { namespace, type, reason, message: text, at: now });
  }

  async flush(): Promise<void> {
    do {
      for (const entry of this.#tracked.values()) {
        if (entry.timer) {
          clearTimeout(entry.timer);
          entry.timer = undefined;
          this.#startWrite(entry);
        }
      }
      await Promise.all([...this.#inFlight]);
    } while (this.#inFlight.size > 0 || [...this.#tracked.values()].some((entry) => entry.timer));
  }

  /** The first occurrence: a new Event, created in the background. */
  #create(key: string, object: DeepReadonly<KubeObject> | KubeObject, occurrence: Occurrence): void {
    const entry: Tracked = {
      namespace: occurrence.namespace,
      name: `${object.metadata!.name}.${occurrence.at.getTime().toString(16)}${randomBytes(3).toString('hex')}`,
      count: 1,
      writtenCount: 1,
      lastWriteAt: Date.now(),
      lastTimestamp: occurrence.at.toISOString(),
      created: Promise.resolve(),
    };
    this.#remember(key, entry);
    const created = kubeRequest(this.#kc, {
      method: 'POST',
      path: `/api/v1/namespaces/${encodeURIComponent(occurrence.namespace)}/events`,
      body: eventBody(object, entry.name, occurrence, { component: this.#options.component, instance: this.#options.instance ?? '' }),
    });
    // Count updates only wait for the create to settle; #track below logs its failure.
    entry.created = created.catch(() => {});
    this.#track(
      created.then(
        () => {},
        (error: unknown) => {
          // Not written (say, the namespace is going away): the next occurrence tries again.
          entry.forgotten = true;
          if (this.#tracked.get(key) === entry) this.#tracked.delete(key);
          throw error;
        },
      ),
    );
  }

  /** Another occurrence of a tracked event: its count grows, written at most once per window. */
  #repeat(key: string, entry: Tracked, now: Date): void {
    entry.count += 1;
    entry.lastTimestamp = now.toISOString();
    this.#tracked.delete(key);
    this.#tracked.set(key, entry);
    this.#schedule(entry);
  }

  /** The next count write: now if the window has passed, else when it does. A write already in flight
   * or waiting reads the newest count when it runs; one that read it too early schedules another. */
  #schedule(entry: Tracked): void {
    if (entry.timer || entry.writing || entry.forgotten) return;
    const wait = entry.lastWriteAt + this.#window - Date.now();
    if (wait <= 0) {
      this.#startWrite(entry);
      return;
    }
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.#startWrite(entry);
    }, wait);
    entry.timer.unref();
  }

  #startWrite(entry: Tracked): void {
    // A failed write is not retried on its own: the next occurrence schedules one.
    const writing = this.#writeCount(entry).then(
      () => {
        entry.writing = undefined;
        if (entry.count > entry.writtenCount) this.#schedule(entry);
      },
      (error: unknown) => {
        entry.writing = undefined;
        throw error;
      },
    );
    entry.writing = writing;
    this.#track(writing);
  }

  #remember(key: string, entry: Tracked): void {
    this.#tracked.set(key, entry);
    while (this.#tracked.size > this.#maxTracked) {
      const oldest = this.#tracked.keys().next().value as string;
      const forgotten = this.#tracked.get(oldest)!;
      clearTimeout(forgotten.timer);
      forgotten.forgotten = true;
      this.#tracked.delete(oldest);
    }
  }

  async #writeCount(entry: Tracked): Promise<void> {
    await entry.created;
    if (entry.count === entry.writtenCount) return;
    const count = entry.count;
    entry.lastWriteAt = Date.now();
    try {
      await kubeRequest(this.#kc, {
        method: 'PATCH',
        path: `/api/v1/namespaces/${encodeURIComponent(entry.namespace)}/events/${encodeURIComponent(entry.name)}`,
        contentType: 'application/merge-patch+json',
        body: { count, lastTimestamp: entry.lastTimestamp },
      });
      entry.writtenCount = Math.max(entry.writtenCount, count);
    } catch (error) {
      // The API server expires Events (1 h by default): forget it, the next occurrence starts anew.
      if (!isKubeApiError(error, 404)) throw error;
      entry.forgotten = true;
      for (const [key, value] of this.#tracked) if (value === entry) this.#tracked.delete(key);
    }
  }

  /** A write in the background: its failure is logged, and flush() waits for it. */
  #track(work: Promise<void>): void {
    const settled = work.catch((error: unknown) => {
      this.#options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not write an event');
    });
    this.#inFlight.add(settled);
    void settled.finally(() => this.#inFlight.delete(settled));
  }
}

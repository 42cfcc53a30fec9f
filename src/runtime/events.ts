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
}

const maxMessageLength = 1024;

export function createEventRecorder(kc: KubeConfig, options: EventRecorderOptions): EventRecorder {
  const window = options.aggregateWindowMs ?? 60_000;
  const maxTracked = options.maxTracked ?? 4096;
  const tracked = new Map<string, Tracked>();
  const inFlight = new Set<Promise<void>>();

  const track = (work: Promise<void>) => {
    const settled = work.catch((error: unknown) => {
      options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not write an event');
    });
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };

  const writeCount = async (entry: Tracked) => {
    await entry.created;
    if (entry.count === entry.writtenCount) return;
    const count = entry.count;
    entry.lastWriteAt = Date.now();
    try {
      await kubeRequest(kc, {
        method: 'PATCH',
        path: `/api/v1/namespaces/${encodeURIComponent(entry.namespace)}/events/${encodeURIComponent(entry.name)}`,
        contentType: 'application/merge-patch+json',
        body: { count, lastTimestamp: entry.lastTimestamp },
      });
      entry.writtenCount = Math.max(entry.writtenCount, count);
    } catch (error) {
      // The API server expires Events (1 h by default): forget it, the next occurrence starts anew.
      if (isKubeApiError(error, 404)) {
        for (const [key, value] of tracked) if (value === entry) tracked.delete(key);
        return;
      }
      throw error;
    }
  };

  return {
    event(object, type, reason, message) {
      const meta = object.metadata;
      if (!meta?.name) return;
      const namespace = meta.namespace || 'default';
      const now = new Date();
      const text = message.length > maxMessageLength ? `${message.slice(0, maxMessageLength - 3)}...` : message;
      const key = [meta.uid ?? `${namespace}/${meta.name}`, type, reason, text].join('\u0000');
      const existing = tracked.get(key);
      if (existing) {
        existing.count += 1;
        existing.lastTimestamp = now.toISOString();
        tracked.delete(key);
        tracked.set(key, existing);
        const wait = existing.lastWriteAt + window - Date.now();
        if (wait <= 0) {
          track(writeCount(existing));
        } else if (!existing.timer) {
          existing.timer = setTimeout(() => {
            existing.timer = undefined;
            track(writeCount(existing));
          }, wait);
          existing.timer.unref();
        }
        return;
      }
      const entry: Tracked = {
        namespace,
        name: `${meta.name}.${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`,
        count: 1,
        writtenCount: 1,
        lastWriteAt: Date.now(),
        lastTimestamp: now.toISOString(),
        created: Promise.resolve(),
      };
      tracked.set(key, entry);
      while (tracked.size > maxTracked) {
        const oldest = tracked.keys().next().value as string;
        clearTimeout(tracked.get(oldest)?.timer);
        tracked.delete(oldest);
      }
      const create = kubeRequest(kc, {
        method: 'POST',
        path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: entry.name, namespace },
          involvedObject: {
            apiVersion: object.apiVersion,
            kind: object.kind,
            name: meta.name,
            namespace: meta.namespace,
            uid: meta.uid,
            resourceVersion: meta.resourceVersion,
          },
          type,
          reason,
          message: text,
          count: 1,
          firstTimestamp: entry.lastTimestamp,
          lastTimestamp: entry.lastTimestamp,
          source: { component: options.component },
          reportingComponent: options.component,
          reportingInstance: options.instance ?? '',
        },
      });
      entry.created = create.catch(() => {});
      track(
        create.then(
          () => {},
          (error: unknown) => {
            // Not written (say, the namespace is going away): the next occurrence tries again.
            if (tracked.get(key) === entry) tracked.delete(key);
            throw error;
          },
        ),
      );
    },
    async flush() {
      for (const entry of tracked.values()) {
        if (entry.timer) {
          clearTimeout(entry.timer);
          entry.timer = undefined;
          track(writeCount(entry));
        }
      }
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

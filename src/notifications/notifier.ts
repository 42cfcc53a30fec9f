// Delivers a deployment's notifications (src/api/notifications.ts): each a signed JSON POST to its URL,
// on an origin the installation allows, with no redirect followed. A network error, a 429 or a 5xx is
// retried with exponential backoff, a bounded number of times; any other answer ends the delivery. The
// signing key is read from the cache at each attempt and goes nowhere but into the signature.
import { randomUUID } from 'node:crypto';
import {
  notificationSignature,
  notificationSignatureHeader,
  type Deployment,
  type NotificationBody,
  type NotificationEvent,
} from '../api/index.ts';
import type { DeepReadonly, Logger } from '../runtime/index.ts';
import { notificationUrlRefusal } from './origins.ts';

export interface NotifierOptions {
  logger: Logger;
  /** The value of a key of a Secret Berth reads (its cache), or undefined. */
  secretValue: (namespace: string, name: string, key: string) => string | undefined;
  /** The origins a notification may go to (--notification-origins). */
  origins: readonly string[];
  /** The first retry's wait; each next one doubles it (default 2 s: 2, 4, 8, 16, 32 s). */
  retryBaseMs?: number;
  /** Attempts per notification, the first included (default 6). */
  attempts?: number;
  /** Each attempt's bound (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface Notifier {
  /** Queues a notification of `event` about `deployment`, if it names where to send one. Never throws. */
  notify(deployment: DeepReadonly<Deployment>, event: NotificationEvent, reason: string, message: string): void;
  /** Ends the waits between retries and waits for the attempts in flight. */
  close(): Promise<void>;
}

type Outcome = { done: true; status?: number } | { done: false; why: string };

export function createNotifier(options: NotifierOptions): Notifier {
  const { logger, retryBaseMs = 2_000, attempts = 6, timeoutMs = 10_000, fetch: send = fetch } = options;
  const closing = new AbortController();
  const inFlight = new Set<Promise<void>>();

  async function attempt(deployment: DeepReadonly<Deployment>, body: NotificationBody, text: string): Promise<Outcome> {
    const target = deployment.spec.sourceConfig?.notifications;
    if (!target || notificationUrlRefusal(target.url, options.origins)) return { done: true };
    const { namespace = '' } = deployment.metadata;
    const key = options.secretValue(namespace, target.signingSecret.name, target.signingSecret.key);
    if (key === undefined) return { done: false, why: `Secret ${target.signingSecret.name} has no key ${target.signingSecret.key}` };
    const response = await send(target.url, {
      method: 'POST',
      body: text,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), closing.signal]),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'berth',
        'berth-event': body.event,
        'berth-delivery': body.id,
        [notificationSignatureHeader]: notificationSignature(key, text, new Date()),
      },
    }).catch((error: Error) => error);
    if (response instanceof Error) return { done: false, why: response.message };
    await response.body?.cancel();
    if (response.status === 429 || response.status >= 500) return { done: false, why: `HTTP ${response.status}` };
    return { done: true, status: response.status };
  }

  async function deliver(deployment: DeepReadonly<Deployment>, body: NotificationBody): Promise<void> {
    const text = JSON.stringify(body);
    const log = logger.child({
      namespace: body.deployment.namespace,
      name: body.deployment.name,
      notification: body.id,
      event: body.event,
    });
    for (let tries = 1; ; tries++) {
      const outcome = await attempt(deployment, body, text);
      if (outcome.done) {
        if (outcome.status !== undefined) log.info({ status: outcome.status, tries }, 'notification delivered');
        return;
      }
      if (tries >= attempts || closing.signal.aborted) {
        log.warn({ tries, why: outcome.why }, 'notification not delivered: giving up');
        return;
      }
      log.debug({ tries, why: outcome.why }, 'notification not delivered yet: retrying');
      await wait(retryBaseMs * 2 ** (tries - 1), closing.signal);
    }
  }

  return {
    notify(deployment, event, reason, message) {
      if (!deployment.spec.sourceConfig?.notifications || closing.signal.aborted) return;
      const { name = '', namespace = '', uid = '' } = deployment.metadata;
      const body: NotificationBody = {
        id: randomUUID(),
        event,
        deployment: { id: uid, name, namespace },
        reason,
        message,
        at: new Date().toISOString(),
      };
      const delivery = deliver(deployment, body)
        .catch((error: Error) => logger.warn({ err: error, notification: body.id }, 'notification not delivered'))
        .finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    },
    async close() {
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // A retry never holds a stopping process: what is still to deliver then is dropped, and logged as dropped.
    const timer = setTimeout(done, ms).unref();
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

// A list+watch cache of one resource.
//
// Why our own list/watch instead of client-node's makeInformer/Watch (2.0.x): its informer never asks
// for bookmarks, so a quiet watch cannot advance its resourceVersion and every reconnect risks a 410;
// it stops for good on any error but a timeout; and its Watch aborts a watch that has been quiet for
// 30 s, while a half-open TCP connection can stay silent forever with no error at all. Here each
// watch asks for bookmarks and a server-side timeoutSeconds (so a healthy watch ends cleanly and is
// resumed), an inactivity timer of our own catches the silent ones, any failure reconnects with capped
// backoff from the last resourceVersion seen, and a 410 Gone relists and replaces the cache, emitting
// deletes for what vanished meanwhile.
import type { KubeConfig } from '@kubernetes/client-node';
import { backoffDelay, sleep, withJitter, type BackoffPolicy } from './backoff.ts';
import { stripManagedFields, type CacheTransform } from './cache-view.ts';
import { cacheSubtreePool } from './subtree-pool.ts';
import { createLogger, type Logger } from './logger.ts';
import { errorFromStatus, isKubeApiError, kubeRequest, openKubeRequest, readBody } from './kube-request.ts';
import { builtInIndexes, labelIndex, ObjectStore, type IndexFunction } from './object-store.ts';
import { collectionPath, type DeepReadonly, type KubeObject, type ResourceKind } from './types.ts';

/**
 * Objects per list page. Pages of 500 lifted a start's peak (restarts over 10,000 Deployments: a
 * median 223 MiB against 210 with 100; BENCHMARKS.md, section 5); pages of 10, 25 and 50 peaked no lower.
 */
const defaultPageSize = 100;

/** A list page: its items, and where the next page starts. */
interface KubeList {
  items?: KubeObject[];
  metadata?: { resourceVersion?: string; continue?: string };
}

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Watch only these namespaces (one list+watch each). Default: all namespaces. */
  namespaces?: string[];
  labelSelector?: string;
  /** Label keys to index: `byIndex(labelKey, value)`. */
  labelIndexes?: string[];
  /** Further indexes by name. 'namespace' and 'owner' (owner uid) are always there. */
  indexes?: Record<string, IndexFunction<T>>;
  /** Server-side end of each watch; default a random 300-600 s so many watches do not end together. */
  watchTimeoutSeconds?: number;
  /** A watch with no byte (event or bookmark) for this long is presumed dead. Default 120 s: bookmarks come about once a minute. */
  inactivityTimeoutMs?: number;
  /** Reconnect backoff. Default 250 ms doubling to 30 s. */
  backoff?: BackoffPolicy;
  /** Objects per list page. Default 100 (defaultPageSize). */
  pageSize?: number;
  /**
   * What the cache keeps of each listed or watched object (cache-view.ts); it may change the object,
   * which is fresh from the wire. Default: everything but metadata.managedFields. What it keeps then
   * shares its strings and equal parts with the other cached objects (subtree-pool.ts).
   */
  transform?: CacheTransform;
  logger?: Logger;
}

export type AddHandler<T> = (object: DeepReadonly<T>) => void;
export type UpdateHandler<T> = (object: DeepReadonly<T>, previous: DeepReadonly<T>) => void;
export type DeleteHandler<T> = (object: DeepReadonly<T>) => void;

export interface Informer<T extends KubeObject = KubeObject> {
  readonly resource: ResourceKind;
  start(): void;
  stop(): Promise<void>;
  hasSynced(): boolean;
  /** Resolves once every namespace has been listed; rejects when the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /** Cluster-scoped objects live under namespace ''. */
  get(namespace: string, name: string): DeepReadonly<T> | undefined;
  list(namespace?: string): DeepReadonly<T>[];
  byIndex(indexName: string, value: string): DeepReadonly<T>[];
  /** Adds an index (a label key's, or a function's) at any time; existing objects are indexed. */
  addIndex(indexName: string, indexer?: IndexFunction<T>): void;
  /** Each returns a function that removes the handler. Handlers run synchronously, in order. */
  onAdd(handler: AddHandler<T>): () => void;
  onUpdate(handler: UpdateHandler<T>): () => void;
  onDelete(handler: DeleteHandler<T>): () => void;
}

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject & { code?: number; reason?: string; message?: string };
}

export function createInformer<T extends KubeObject = KubeObject>(
  kc: KubeConfig,
  resource: ResourceKind,
  options: InformerOptions<T> = {},
): Informer<T> {
  return new CachingInformer<T>(kc, resource, options);
}

class CachingInformer<T extends KubeObject> implements Informer<T> {
  readonly resource: ResourceKind;
  readonly #kc: KubeConfig;
  readonly #options: InformerOptions<T>;
  readonly #store: ObjectStore<T>;
  readonly #logger: Logger;
  readonly #transform: CacheTransform;
  readonly #addHandlers = new Set<AddHandler<T>>();
  readonly #updateHandlers = new Set<UpdateHandler<T>>();
  readonly #deleteHandlers = new Set<DeleteHandler<T>>();
  readonly #unsynced: Set<string>;
  readonly #syncWaiters = new Set<() => void>();
  #abort: AbortController | undefined;
  #loops: Promise<void>[] = [];

  constructor(kc: KubeConfig, resource: ResourceKind, options: InformerOptions<T>) {
    this.#kc = kc;
    this.resource = resource;
    this.#options = options;
    const transform = options.transform ?? stripManagedFields;
    this.#transform = (object) => cacheSubtreePool.shareParts(transform(object));
    const indexers: Record<string, IndexFunction<T>> = { ...builtInIndexes, ...options.indexes };
    for (const key of options.labelIndexes ?? []) indexers[key] = labelIndex(key);
    this.#store = new ObjectStore<T>(indexers);
    this.#logger = (options.logger ?? createLogger()).child({ informer: `${resource.plural}.${resource.apiVersion}` });
    this.#unsynced = new Set(this.#scopes());
  }

  /** '' stands for all namespaces. */
  #scopes(): string[] {
    const namespaces = this.#options.namespaces;
    return namespaces && namespaces.length > 0 && this.resource.namespaced !== false ? [...new Set(namespaces)] : [''];
  }

  start(): void {
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#loops = this.#scopes().map((scope) => this.#run(scope, abort.signal));
  }

  async stop(): Promise<void> {
    this.#abort?.abort();
    await Promise.all(this.#loops);
    this.#loops = [];
    this.#abort = undefined;
  }

  hasSynced(): boolean {
    return this.#unsynced.size === 0;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.hasSynced()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#syncWaiters.delete(done);
        reject(new Error(`stopped before ${this.resource.plural} synced`));
      };
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.add(done);
    });
  }

  get(namespace: string, name: string): DeepReadonly<T> | undefined {
    return this.#store.get(namespace, name);
  }

  list(namespace?: string): DeepReadonly<T>[] {
    if (namespace === undefined || (namespace === '' && this.resource.namespaced === false)) return [...this.#store.values()];
    return this.#store.inNamespace(namespace);
  }

  byIndex(indexName: string, value: string): DeepReadonly<T>[] {
    return this.#store.byIndex(indexName, value);
  }

  addIndex(indexName: string, indexer?: IndexFunction<T>): void {
    this.#store.addIndex(indexName, indexer ?? labelIndex(indexName));
  }

  onAdd(handler: AddHandler<T>): () => void {
    this.#addHandlers.add(handler);
    return () => this.#addHandlers.delete(handler);
  }

  onUpdate(handler: UpdateHandler<T>): () => void {
    this.#updateHandlers.add(handler);
    return () => this.#updateHandlers.delete(handler);
  }

  onDelete(handler: DeleteHandler<T>): () => void {
    this.#deleteHandlers.add(handler);
    return () => this.#deleteHandlers.delete(handler);
  }

  #emit<A extends unknown[]>(handlers: Set<(...args: A) => void>, ...args: A): void {
    for (const handler of handlers) {
      try {
        handler(...args);
      } catch (error) {
        this.#logger.error({ err: error }, 'informer event handler failed');
      }
    }
  }

  #markSynced(scope: string): void {
    if (!this.#unsynced.delete(scope) || this.#unsynced.size > 0) return;
    for (const waiter of this.#syncWaiters) waiter();
    this.#syncWaiters.clear();
  }

  /** One namespace's list+watch loop; runs until stopped. */
  async #run(scope: string, signal: AbortSignal): Promise<void> {
    const policy = this.#options.backoff ?? { initialMs: 250, maxMs: 30_000 };
    let resourceVersion: string | undefined;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          resourceVersion = await this.#relist(scope, signal);
          failures = 0;
          this.#markSynced(scope);
        }
        const watchStarted = Date.now();
        let delivered = false;
        const outcome = await this.#watch(scope, resourceVersion, signal, (rv) => {
          resourceVersion = rv;
          delivered = true;
          failures = 0;
        });
        if (outcome === 'silent') {
          // A quiet resource (no objects, so no bookmarks either) looks like this too: resume at once,
          // from the same resourceVersion. A dead server fails the next request, which is a failure.
          this.#logger.debug({ namespace: scope || undefined }, 'watch silent; resuming it');
        } else if (outcome === 'expired') {
          this.#logger.info({ namespace: scope || undefined }, 'watch resourceVersion expired (410 Gone): relisting');
          resourceVersion = undefined;
        } else if (!delivered && Date.now() - watchStarted < 1_000) {
          // A watch that ends at once with nothing in it would otherwise reconnect in a hot loop.
          failures += 1;
          await sleep(withJitter(backoffDelay(policy, failures)), signal);
        }
      } catch (error) {
        if (signal.aborted) break;
        if (isKubeApiError(error, 410)) {
          this.#logger.info({ namespace: scope || undefined }, 'resourceVersion expired (410 Gone): relisting');
          resourceVersion = undefined;
          continue;
        }
        failures += 1;
        const delay = withJitter(backoffDelay(policy, failures));
        this.#logger.warn(
          { namespace: scope || undefined, err: describeError(error), retryInMs: delay },
          'list/watch failed; reconnecting',
        );
        await sleep(delay, signal);
      }
    }
  }

  async #relist(scope: string, signal: AbortSignal): Promise<string> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const query = {
        limit: this.#options.pageSize ?? defaultPageSize,
        continue: continueToken,
        labelSelector: this.#options.labelSelector,
      };
      const page = await kubeRequest<KubeList>(this.#kc, { method: 'GET', path: collectionPath(this.resource, scope), query, signal });
      for (const item of page.items ?? []) {
        // List items come without apiVersion and kind; watch events carry them. Readers expect them.
        item.apiVersion ??= this.resource.apiVersion;
        item.kind ??= this.resource.kind;
        items.push(this.#transform(item) as T);
      }
      continueToken = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    } while (continueToken);
    this.#replace(scope, items);
    return resourceVersion;
  }

  /** Makes the cache of one scope equal to a fresh list, emitting what changed since the last one. */
  #replace(scope: string, items: T[]): void {
    const listed = new Set<DeepReadonly<T>>();
    for (const item of items) {
      const object = item as DeepReadonly<T>;
      listed.add(object);
      const previous = this.#store.upsert(object);
      if (!previous) this.#emit(this.#addHandlers, object);
      else if (previous.metadata?.resourceVersion !== object.metadata?.resourceVersion) this.#emit(this.#updateHandlers, object, previous);
    }
    // What the store holds in this scope and the list did not bring: the listed objects replaced the rest.
    const held = scope === '' ? [...this.#store.values()] : this.#store.inNamespace(scope);
    for (const object of held.filter((candidate) => !listed.has(candidate))) {
      const gone = this.#store.delete(object.metadata?.namespace ?? '', object.metadata?.name ?? '');
      if (gone) this.#emit(this.#deleteHandlers, gone);
    }
  }

  #apply(event: WatchEvent): void {
    const object = this.#transform(event.object) as DeepReadonly<T>;
    if (event.type === 'DELETED') {
      const gone = this.#store.delete(object.metadata?.namespace ?? '', object.metadata?.name ?? '');
      this.#emit(this.#deleteHandlers, gone ?? object);
      return;
    }
    const previous = this.#store.upsert(object);
    if (!previous) this.#emit(this.#addHandlers, object);
    else this.#emit(this.#updateHandlers, object, previous);
  }

  /**
   * One watch request; resolves when it ends cleanly ('ended'), stays silent past the inactivity timeout
   * ('silent'), or its resourceVersion is too old ('expired').
   */
  async #watch(
    scope: string,
    resourceVersion: string,
    signal: AbortSignal,
    advance: (resourceVersion: string) => void,
  ): Promise<'ended' | 'silent' | 'expired'> {
    const timeoutSeconds = this.#options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    const inactivityMs = this.#options.inactivityTimeoutMs ?? 120_000;
    const { request, response } = await openKubeRequest(this.#kc, {
      method: 'GET',
      path: collectionPath(this.resource, scope),
      query: { watch: 'true', resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds, labelSelector: this.#options.labelSelector },
      // A socket idle timeout: it also catches a pooled connection that died silently before the answer.
      // Past the inactivity timer, so that a silent watch that was answered ends as 'silent'.
      timeoutMs: inactivityMs + 5_000,
      signal,
    });
    if (response.statusCode !== 200) throw errorFromStatus(response.statusCode ?? 0, await readBody(response));
    return new Promise((resolve, reject) => {
      let settled = false;
      let pending = '';
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: 'ended' | 'silent' | 'expired' | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
        if (!response.complete) request.destroy();
      };
      const armInactivityTimer = () => {
        clearTimeout(timer);
        timer = setTimeout(() => settle('silent'), inactivityMs);
      };
      armInactivityTimer();
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        armInactivityTimer();
        pending += chunk;
        let newline: number;
        while (!settled && (newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (!line) continue;
          let event: WatchEvent;
          try {
            event = JSON.parse(line) as WatchEvent;
          } catch {
            // Not the parser's message: it quotes the line, which may hold a Secret's data.
            settle(new Error('watch sent a line that is not JSON'));
            return;
          }
          if (event.type === 'ERROR') {
            const status = event.object;
            if (status.code === 410) settle('expired');
            else settle(errorFromStatus(status.code ?? 500, JSON.stringify(status)));
            return;
          }
          if (event.type !== 'BOOKMARK') this.#apply(event);
          const rv = event.object.metadata?.resourceVersion;
          if (rv) advance(rv);
        }
      });
      response.once('end', () => settle('ended'));
      response.once('error', (error) => settle(error));
      response.once('close', () => settle(new Error('watch connection closed')));
      request.once('error', (error) => settle(error));
    });
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// A write answers once the controller has acted on it: the facade waits, bounded, until the cache
// shows what the caller asks for, then answers with whatever the cache holds.
export interface WaitOptions {
  timeoutMs: number;
  /** How often the cache is looked at; reading it costs a map lookup. */
  intervalMs?: number;
}

/** Resolves with the first value `look` returns that `done` accepts, or with its last look at the deadline. */
export async function waitForCache<T>(
  look: () => T | undefined,
  done: (value: T) => boolean,
  options: WaitOptions,
): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = look();
    if (value !== undefined && done(value)) return value;
    if (Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}

interface Versioned {
  metadata?: { uid?: string; resourceVersion?: string; generation?: number };
}

/**
 * Whether a cached object is the written one or newer: same uid and either the same resourceVersion or
 * a generation at least as high. Lets a write answer only once a following read will see it.
 */
export function reflects(cached: Versioned, written: Versioned): boolean {
  if (cached.metadata?.uid !== written.metadata?.uid) return false;
  if (cached.metadata?.resourceVersion === written.metadata?.resourceVersion) return true;
  return (
    (cached.metadata?.generation ?? 0) > (written.metadata?.generation ?? 0) ||
    Number(cached.metadata?.resourceVersion) > Number(written.metadata?.resourceVersion)
  );
}

/** Waits, bounded, until the cache no longer holds the object or shows it being deleted. */
export async function waitForGone(
  look: () => { metadata?: { deletionTimestamp?: unknown } } | undefined,
  timeoutMs: number,
): Promise<void> {
  await waitForCache(
    () => look() ?? null,
    (cached) => cached === null || cached.metadata?.deletionTimestamp !== undefined,
    { timeoutMs },
  );
}

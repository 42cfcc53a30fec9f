// Exponential backoff as pure arithmetic, so the queue and the informer share one rule.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** Delay before attempt `failures + 1`: initial doubling per failure, capped. `failures` >= 1. */
export function backoffDelay(policy: BackoffPolicy, failures: number): number {
  if (failures <= 0) return 0;
  // 2 ** 60 is past any cap; clamping the exponent keeps the arithmetic finite.
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(failures - 1, 60));
}

/** Spreads reconnects of many clients so a restarted API server is not hit at one instant. */
export function withJitter(delayMs: number, random: () => number = Math.random): number {
  return Math.round(delayMs * (0.5 + random() / 2));
}

/** Resolves after `ms`, or early (without error) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** What `promise` resolves to, or undefined once `ms` pass first (the promise goes on). */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  clearTimeout(timer);
  return result;
}

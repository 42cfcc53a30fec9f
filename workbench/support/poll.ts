// The one poller of the suites and benchmarks: ask until there is an answer or the time is up.

/** Thrown from a check, ends the wait at once with this error (a process that exited will never answer). */
export class GiveUp extends Error {}

/**
 * The check's first answer (anything but `undefined` or `false`), asked every `intervalMs`. A check that
 * throws has not answered yet; its last error is part of the timeout's message. A `GiveUp` ends the wait.
 */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  what = 'condition',
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

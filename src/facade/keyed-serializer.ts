// Runs work for one key at a time, in arrival order; different keys run in parallel. Concurrent
// read-modify-write requests to one object from this replica then queue instead of racing each other
// into conflicts (the conflict retries still cover writers elsewhere: other replicas, kubectl).
export type KeyedSerializer = <T>(key: string, work: () => Promise<T>) => Promise<T>;

export function createKeyedSerializer(): KeyedSerializer {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work, work);
    // The caller hears the failure through `run`; the tail only orders the next work for the key.
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

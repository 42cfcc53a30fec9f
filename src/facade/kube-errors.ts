// What the API server's refusals mean to a facade client. The API server is the last validator (CEL
// rules, immutability, uniqueness of names): its answer is passed on as a 4xx, never as a 500.
import { isKubeApiError } from '../runtime/kube-request.ts';
import { HttpError, badRequest, conflict, notFound } from './errors.ts';

/** Turns an API server refusal into the client's error; anything else is rethrown untouched. */
export function clientErrorFromKube(error: unknown, what: { notFound?: string; alreadyExists?: string } = {}): never {
  if (!isKubeApiError(error)) throw error;
  if (error.code === 404) throw notFound(what.notFound ?? 'Not found.');
  if (error.code === 409 && error.reason === 'AlreadyExists') throw conflict(what.alreadyExists ?? error.message);
  if (error.code === 409) throw conflict('The object changed while it was being written; try again.');
  if (error.code === 422) throw new HttpError(422, [{ loc: ['body'], msg: error.message, type: 'value_error' }]);
  if (error.code === 400) throw badRequest(error.message);
  // Not the client's fault, and not a crash: the API server asked for patience.
  if (error.code === 429) throw new HttpError(503, 'The Kubernetes API server is busy; try again.');
  throw error;
}

export function isConflict(error: unknown): boolean {
  return isKubeApiError(error, 409) && error.reason === 'Conflict';
}

/**
 * Read-modify-write with optimistic concurrency: `attempt` reads fresh, computes and writes with the
 * resourceVersion it read; a 409 Conflict (someone wrote in between) runs it again after a short,
 * jittered pause, so writers that collided do not collide again in lockstep.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, attempts = 12): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || tried >= attempts) throw error;
      const ceiling = Math.min(400, 10 * 2 ** tried);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
}

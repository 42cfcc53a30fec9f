// What the API server's refusals mean to a facade client. The API server is the last validator (CEL
// rules, immutability, uniqueness of names): its answer is passed on as a 4xx, never as a 500.
import { deploymentSpecSchema, oauthProviderSpecSchema } from '../api/index.ts';
import { snakeCase, wirePathOf } from '../api/wire.ts';
import { isKubeApiError, type KubeApiError, type KubeStatusCause } from '../runtime/kube-request.ts';
import { HttpError, badRequest, conflict, notFound, type ValidationProblem } from './errors.ts';

/** Turns an API server refusal into the client's error; anything else is rethrown untouched. */
export function clientErrorFromKube(error: unknown, what: { notFound?: string; alreadyExists?: string } = {}): never {
  if (!isKubeApiError(error)) throw error;
  if (error.code === 404) throw notFound(what.notFound ?? 'Not found.');
  if (error.code === 409 && error.reason === 'AlreadyExists') throw conflict(what.alreadyExists ?? error.message);
  if (error.code === 409) throw conflict('The object changed while it was being written; try again.');
  if (error.code === 422) throw new HttpError(422, refusedFields(error));
  if (error.code === 400) throw badRequest(error.message);
  // Not the client's fault, and not a crash: the API server asked for patience.
  if (error.code === 429) throw new HttpError(503, 'The Kubernetes API server is busy; try again.');
  throw error;
}

/**
 * The API server's 422 as the interface's validation problems: one per refused field (its causes),
 * located and worded in the interface's spelling. The CRDs' schemas and CEL rules are the rules; the
 * facade only translates their answer.
 */
function refusedFields(error: Pick<KubeApiError, 'message' | 'causes'>): ValidationProblem[] {
  const causes = error.causes.filter((cause) => cause.field || cause.message);
  if (causes.length === 0) return [{ loc: ['body'], msg: error.message, type: 'value_error' }];
  return causes.map((cause) => ({ loc: ['body', ...wirePath(cause.field ?? '')], msg: wireMessage(cause), type: problemType(cause) }));
}

/** The specs the facade writes: their top-level members differ, so a field's path names its kind. */
const specSchemas = [deploymentSpecSchema, oauthProviderSpecSchema];

/**
 * spec.sourceConfig.resourceSpec.minScale -> source_config, resource_spec, min_scale; [0] -> 0; members
 * the wire spells as Kubernetes does (a container's securityContext) keep their spelling.
 */
function wirePath(field: string): (string | number)[] {
  const path = field.replace(/^spec\.?/, '');
  if (!path) return [];
  const parts = path.split(/\.|(?=\[)/).map((part) => (/^\[\d+\]$/.test(part) ? Number(part.slice(1, -1)) : part.replace(/^\[|\]$/g, '')));
  for (const schema of specSchemas) {
    const wire = wirePathOf(schema, parts);
    if (wire) return wire;
  }
  return parts.map((part) => (typeof part === 'number' ? part : snakeCase(part)));
}

/** The cause's message without the API server's prefix, its field names spelled as on the wire. */
function wireMessage(cause: KubeStatusCause): string {
  const message = (cause.message ?? '')
    .replace(/^(Invalid value|Required value|Forbidden|Unsupported value): /, '')
    .replace(/^("[^"]*"|-?\d+(\.\d+)?|true|false|null): /, '');
  return message
    .replace(/\bspec\.([A-Za-z0-9.[\]]+)/g, (_, path: string) => wirePath(path).join('.'))
    .replace(/\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b/g, (word) => snakeCase(word));
}

function problemType(cause: KubeStatusCause): string {
  if (cause.reason === 'FieldValueRequired') return 'missing';
  if (/\bimmutable\b/.test(cause.message ?? '')) return 'immutable';
  return 'value_error';
}

function isConflict(error: unknown): boolean {
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

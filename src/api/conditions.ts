// kstatus-style conditions (Ready, Reconciling, Stalled) and the pure helpers every reconciler uses to
// set them, so that `kubectl wait --for=condition=Ready`, Flux and Argo CD read Berth objects alike.
import { z } from 'zod';
import { canonicalJson } from '../runtime/canonical-json.ts';

const conditionStatusSchema = z.enum(['True', 'False', 'Unknown']).describe('Status of the condition: True, False or Unknown.');

const conditionSchema = z
  .object({
    type: z.string().min(1).max(316).describe('Type of the condition, in CamelCase: Ready, Reconciling or Stalled.'),
    status: conditionStatusSchema,
    reason: z.string().max(1024).describe('Machine-readable reason for the last transition, in CamelCase.'),
    message: z.string().max(32768).describe('Human-readable message with details about the last transition.'),
    observedGeneration: z.number().int().min(0).optional().describe('metadata.generation of the object when the condition was set.'),
    lastTransitionTime: z.string().describe('When the condition last changed status (RFC 3339).').meta({ format: 'date-time' }),
  })
  .describe('One observation of the state of the object.');

export const conditionsSchema = z
  .array(conditionSchema)
  .max(16)
  .describe('Conditions of the object: Ready, Reconciling and Stalled (kstatus).')
  .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });

export type ConditionStatus = z.infer<typeof conditionStatusSchema>;
export type Condition = z.infer<typeof conditionSchema>;

export const conditionTypes = { ready: 'Ready', reconciling: 'Reconciling', stalled: 'Stalled' } as const;

/** What a caller says about a condition; the helper stamps the transition time. */
export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;
/** A condition as a decision names it: its generation and transition time are the status writer's. */
export type ConditionDecision = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/** RFC 3339 at second precision, as Kubernetes stores metav1.Time: a finer one would make every
 * write of a status look like a change. */
export function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * RFC 3339 text of a metav1.Time as an object holds it: the API client's types say Date, the caches
 * hold the string the API server sent.
 */
export function timestampText(value: Date | string | undefined | { readonly getTime: () => number }): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  return timestamp(new Date(value.getTime()));
}

/**
 * Returns the conditions with `next` set. lastTransitionTime moves only when the status changes, so a
 * reconcile that observes the same state again writes the same object.
 */
export function setCondition(conditions: readonly Condition[] | undefined, next: ConditionUpdate, now: Date): Condition[] {
  const list = conditions ?? [];
  const previous = list.find((c) => c.type === next.type);
  const lastTransitionTime = previous && previous.status === next.status ? previous.lastTransitionTime : timestamp(now);
  const updated: Condition = { ...next, lastTransitionTime };
  if (updated.observedGeneration === undefined) delete updated.observedGeneration;
  return previous ? list.map((c) => (c.type === next.type ? updated : c)) : [...list, updated];
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

type Observation = { reason: string; message: string; observedGeneration?: number };

/** The object reached its desired state: Ready=True, Reconciling=False, Stalled=False. */
export function markReady(conditions: readonly Condition[] | undefined, o: Observation, now: Date): Condition[] {
  let next = setCondition(conditions, { type: conditionTypes.ready, status: 'True', ...o }, now);
  next = setCondition(next, { type: conditionTypes.reconciling, status: 'False', ...o }, now);
  return setCondition(next, { type: conditionTypes.stalled, status: 'False', ...o }, now);
}

/** Work is under way: Ready=False (kstatus reads it as InProgress), Reconciling=True, Stalled=False. */
export function markReconciling(conditions: readonly Condition[] | undefined, o: Observation, now: Date): Condition[] {
  let next = setCondition(conditions, { type: conditionTypes.ready, status: 'False', ...o }, now);
  next = setCondition(next, { type: conditionTypes.reconciling, status: 'True', ...o }, now);
  return setCondition(next, { type: conditionTypes.stalled, status: 'False', ...o }, now);
}

/** Progress needs a change from outside: Ready=False, Reconciling=False, Stalled=True (kstatus: Failed). */
export function markStalled(conditions: readonly Condition[] | undefined, o: Observation, now: Date): Condition[] {
  let next = setCondition(conditions, { type: conditionTypes.ready, status: 'False', ...o }, now);
  next = setCondition(next, { type: conditionTypes.reconciling, status: 'False', ...o }, now);
  return setCondition(next, { type: conditionTypes.stalled, status: 'True', ...o }, now);
}

/** Not ready, with nothing under way and nothing for Kubernetes to change: Ready, Reconciling and
 * Stalled all False (a code host that refused credentials it may accept again, a revision passed over). */
export function markNotReady(conditions: readonly Condition[] | undefined, o: Observation, now: Date): Condition[] {
  let next = setCondition(conditions, { type: conditionTypes.ready, status: 'False', ...o }, now);
  next = setCondition(next, { type: conditionTypes.reconciling, status: 'False', ...o }, now);
  return setCondition(next, { type: conditionTypes.stalled, status: 'False', ...o }, now);
}

/** What a controller's pass concluded: ready, under way (heals by itself), stalled (needs a change), or
 * not ready with none of those (markNotReady). */
export interface Verdict {
  state: 'ready' | 'progressing' | 'stalled' | 'notReady';
  reason: string;
  message: string;
}

/** The conditions a verdict makes, observed at `generation` when there is one. */
export function markVerdict(
  conditions: readonly Condition[] | undefined,
  verdict: Verdict,
  generation: number | undefined,
  now: Date,
): Condition[] {
  const o = { reason: verdict.reason, message: verdict.message, ...(generation === undefined ? {} : { observedGeneration: generation }) };
  if (verdict.state === 'ready') return markReady(conditions, o, now);
  if (verdict.state === 'stalled') return markStalled(conditions, o, now);
  if (verdict.state === 'notReady') return markNotReady(conditions, o, now);
  return markReconciling(conditions, o, now);
}

/** Nothing is known yet: the first write on an object kstatus can read (Ready=Unknown). */
export function markUnknown(conditions: readonly Condition[] | undefined, o: Observation, now: Date): Condition[] {
  return setCondition(conditions, { type: conditionTypes.ready, status: 'Unknown', ...o }, now);
}

/**
 * True when both lists say the same thing, ignoring lastTransitionTime and order (a list holds one
 * condition of each type). Every pass asks this of the status it would write: no copies, no sort.
 */
export function conditionsEqual(a: readonly Condition[] | undefined, b: readonly Condition[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  if (left.length !== right.length) return false;
  for (const condition of left) {
    const other = right.find((c) => c.type === condition.type);
    if (!other || !sameObservation(condition, other)) return false;
  }
  return true;
}

function sameObservation(a: Condition, b: Condition): boolean {
  return (
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    (a.observedGeneration ?? null) === (b.observedGeneration ?? null)
  );
}

/**
 * True when two statuses say the same: their conditions as conditionsEqual compares them, every other
 * member by value (in any key order, absent and null alike), and `updatedAt`, which a write stamps,
 * left out. What every controller asks before it writes a status.
 */
export function statusesEqual<T extends { conditions?: readonly Condition[]; updatedAt?: string }>(
  a: T | undefined,
  b: T | undefined,
): boolean {
  if (!a || !b) return a === b;
  const rest = (status: T) => canonicalJson({ ...status, conditions: undefined, updatedAt: undefined });
  return rest(a) === rest(b) && conditionsEqual(a.conditions, b.conditions);
}

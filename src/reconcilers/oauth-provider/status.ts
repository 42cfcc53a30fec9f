// The OAuthProvider status as a pure function of what a reconcile found, and the comparison that
// decides whether it is worth a write: updatedAt moves only when something else did.
import {
  conditionTypes,
  statusesEqual,
  findCondition,
  markVerdict,
  timestamp,
  type Condition,
  type OAuthProviderStatus,
  type Verdict,
} from '../../api/index.ts';

/** What a reconcile concluded. `progressing` heals by itself or once something outside the spec appears. */
export type { Verdict };

/** The status fields resolved from the spec, discovery and registration. */
export type Resolution = Pick<
  OAuthProviderStatus,
  'authorizationEndpoint' | 'tokenEndpoint' | 'registrationEndpoint' | 'issuer' | 'dynamicClientId' | 'dynamicClientSecretRef'
>;

const resolutionFields = [
  'authorizationEndpoint',
  'tokenEndpoint',
  'registrationEndpoint',
  'issuer',
  'dynamicClientId',
  'dynamicClientSecretRef',
] as const satisfies readonly (keyof Resolution)[];

/** The status to hold after this reconcile; the current one, untouched, when nothing changed. */
export function nextStatus(
  current: OAuthProviderStatus | undefined,
  input: { generation: number | undefined; verdict: Verdict; resolution: Resolution; now: Date },
): OAuthProviderStatus {
  const candidate: OAuthProviderStatus = {
    ...(input.generation === undefined ? {} : { observedGeneration: input.generation }),
    conditions: markVerdict(current?.conditions, input.verdict, input.generation, input.now),
  };
  for (const field of resolutionFields) {
    const value = input.resolution[field];
    if (value !== undefined) Object.assign(candidate, { [field]: value });
  }
  if (current && statusesEqual(current, candidate)) return current;
  return { ...candidate, updatedAt: timestamp(input.now) };
}

export interface ReadyTransition {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The Event that a change of the Ready condition deserves, if it changed (status or reason). */
export function readyTransition(
  previous: readonly Condition[] | undefined,
  next: readonly Condition[] | undefined,
): ReadyTransition | undefined {
  const before = findCondition(previous, conditionTypes.ready);
  const after = findCondition(next, conditionTypes.ready);
  if (!after) return undefined;
  if (before && before.status === after.status && before.reason === after.reason) return undefined;
  return { type: after.status === 'True' ? 'Normal' : 'Warning', reason: after.reason, message: after.message };
}

/**
 * How long to wait before retrying a failure that may heal by itself: `base` at first, then as long as
 * the provider has already been failing (read from the Ready condition's lastTransitionTime, so the
 * pace survives a restart), capped at `max`. A peer down for an hour is asked every few minutes,
 * not every few seconds.
 */
export function retryDelay(conditions: readonly Condition[] | undefined, now: Date, base: number, max: number): number {
  const since = Date.parse(findCondition(conditions, conditionTypes.ready)?.lastTransitionTime ?? '');
  const failingFor = Number.isFinite(since) ? Math.max(0, now.getTime() - since) : 0;
  return Math.min(max, Math.max(base, failingFor));
}

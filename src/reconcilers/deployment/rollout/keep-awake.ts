// Whether an app that scales to zero keeps one pod: while a revision rolls out (so that it shows it
// starts before it is DEPLOYED), and for its idle window once it is DEPLOYED. KEDA counts the first idle
// window of a ScaledObject from its creation; an app whose first rollout took longer than that (a large
// image, a database to start) would otherwise go to zero the moment it turned DEPLOYED, and the first
// request after DEPLOYED would wait for a cold start. Pure.
import { findCondition, type Condition } from '../../../api/conditions.ts';

export interface KeepAwakeInput {
  /** The revision to serve is not the active one yet. */
  rollingOut: boolean;
  /** The active revision's conditions: its Ready one turned True when it was DEPLOYED. */
  activeConditions: readonly Condition[] | undefined;
  idleSeconds: number;
  now: Date;
}

export interface KeepAwake {
  keepOnePod: boolean;
  /** When to look again: the end of the window. */
  recheckMs?: number;
}

export function keepAwake({ rollingOut, activeConditions, idleSeconds, now }: KeepAwakeInput): KeepAwake {
  if (rollingOut) return { keepOnePod: true };
  const ready = findCondition(activeConditions, 'Ready');
  // The pass that made it DEPLOYED may not be in the cache yet: its window starts now.
  const since = ready?.status === 'True' ? Date.parse(ready.lastTransitionTime) : now.getTime();
  const left = since + idleSeconds * 1000 - now.getTime();
  return left > 0 ? { keepOnePod: true, recheckMs: left } : { keepOnePod: false };
}

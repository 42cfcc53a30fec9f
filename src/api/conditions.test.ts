// The condition helpers every reconciler uses: a status that does not change keeps its transition time,
// so observing the same state twice writes the same object.
import { describe, expect, it } from 'vitest';
import {
  conditionsEqual,
  markReady,
  markReconciling,
  markStalled,
  markUnknown,
  setCondition,
  statusesEqual,
  type Condition,
} from './index.ts';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T00:05:00Z');
const byType = (conditions: Condition[]) => Object.fromEntries(conditions.map((c) => [c.type, c]));

describe('conditions', () => {
  it('adds a condition with a second-precision transition time', () => {
    const [ready] = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Deployed', message: 'ok' }, t0);
    expect(ready).toEqual({ type: 'Ready', status: 'True', reason: 'Deployed', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' });
  });

  it('keeps lastTransitionTime when the status stays, moves it when the status changes', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Building', message: 'a' }, t0);
    const same = setCondition(first, { type: 'Ready', status: 'False', reason: 'Deploying', message: 'b', observedGeneration: 2 }, t1);
    expect(same).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Deploying',
        message: 'b',
        observedGeneration: 2,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    const changed = setCondition(same, { type: 'Ready', status: 'True', reason: 'Deployed', message: 'c' }, t1);
    expect(changed[0]?.lastTransitionTime).toBe('2026-01-01T00:05:00Z');
  });

  it('marks ready, reconciling and stalled the kstatus way', () => {
    const o = { reason: 'R', message: 'm', observedGeneration: 3 };
    const ready = byType(markReady(undefined, o, t0));
    expect([ready.Ready?.status, ready.Reconciling?.status, ready.Stalled?.status]).toEqual(['True', 'False', 'False']);
    const reconciling = byType(markReconciling(undefined, o, t0));
    expect([reconciling.Ready?.status, reconciling.Reconciling?.status, reconciling.Stalled?.status]).toEqual(['False', 'True', 'False']);
    const stalled = byType(markStalled(undefined, o, t0));
    expect([stalled.Ready?.status, stalled.Reconciling?.status, stalled.Stalled?.status]).toEqual(['False', 'False', 'True']);
    expect(byType(markUnknown(undefined, o, t0)).Ready?.status).toBe('Unknown');
    expect(stalled.Stalled?.observedGeneration).toBe(3);
  });

  it('compares conditions ignoring timestamps and order, not ignoring content', () => {
    const o = { reason: 'R', message: 'm' };
    const a = markReady(undefined, o, t0);
    const b = markReady(undefined, o, t1).reverse();
    expect(conditionsEqual(a, b)).toBe(true);
    expect(conditionsEqual(a, markReady(undefined, { ...o, message: 'other' }, t0))).toBe(false);
    expect(conditionsEqual(a, markStalled(undefined, o, t0))).toBe(false);
    expect(conditionsEqual(a, a.slice(1))).toBe(false);
    expect(conditionsEqual(undefined, [])).toBe(true);
  });
});

describe('statusesEqual', () => {
  const ready = (at: string) => markReady(undefined, { reason: 'Verified', message: 'ok', observedGeneration: 2 }, new Date(at));
  const status = {
    observedGeneration: 2,
    updatedAt: '2026-11-26T10:00:00Z',
    conditions: ready('2026-11-26T10:00:00Z'),
    account: 'acme',
    endpoint: { url: 'https://a', port: 1 },
  };

  it('leaves out updatedAt and transition times, and reads members in any key order, absent as null', () => {
    const later = {
      endpoint: { port: 1, url: 'https://a' },
      account: 'acme',
      conditions: ready('2026-11-26T11:00:00Z'),
      updatedAt: '2026-11-26T11:00:00Z',
      observedGeneration: 2,
      issuer: null,
    };
    expect(statusesEqual<object & { conditions?: readonly Condition[] }>(status, later)).toBe(true);
  });

  it('tells a changed member, generation or condition apart, and a missing status from one', () => {
    expect(statusesEqual(status, { ...status, account: 'other' })).toBe(false);
    expect(statusesEqual(status, { ...status, observedGeneration: 3 })).toBe(false);
    expect(
      statusesEqual(status, {
        ...status,
        conditions: markStalled(status.conditions, { reason: 'Refused', message: 'no', observedGeneration: 2 }, new Date()),
      }),
    ).toBe(false);
    expect(statusesEqual(undefined, status)).toBe(false);
    expect(statusesEqual(undefined, undefined)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { findCondition } from '../../api/index.ts';
import {
  CodeHostCredentialsError,
  CodeHostRateLimitedError,
  CodeHostUnauthorizedError,
  CodeHostUnreachableError,
} from '../../codehost/index.ts';
import { decide, defaultTiming, reasons, type Verification } from './status.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');
const verified: Verification = { ok: true, account: { login: 'alice', kind: 'user' } };
const rejected: Verification = { ok: false, error: new CodeHostUnauthorizedError('GitHub rejected the credentials: Bad credentials', 401) };

function conditionSummary(status: ReturnType<typeof decide>['status']) {
  return ['Ready', 'Reconciling', 'Stalled'].map((type) => {
    const condition = findCondition(status.conditions, type);
    return `${type}=${condition?.status}/${condition?.reason}`;
  });
}

describe('decide', () => {
  it('marks verified credentials Ready with the account, an Event and the periodic re-check', () => {
    const decision = decide(undefined, { generation: 3, providerName: 'GitHub', verification: verified, now: t0 });
    expect(decision.changed).toBe(true);
    expect(decision.status).toMatchObject({ observedGeneration: 3, account: 'alice', updatedAt: '2026-01-01T00:00:00Z' });
    expect(conditionSummary(decision.status)).toEqual([
      `Ready=True/${reasons.verified}`,
      `Reconciling=False/${reasons.verified}`,
      `Stalled=False/${reasons.verified}`,
    ]);
    expect(findCondition(decision.status.conditions, 'Ready')).toMatchObject({
      message: 'GitHub accepted the credentials; they act as user alice',
      observedGeneration: 3,
    });
    expect(decision.event).toEqual({
      type: 'Normal',
      reason: reasons.verified,
      message: 'GitHub accepted the credentials; they act as user alice',
    });
    expect(decision.requeueAfterMs).toBe(defaultTiming.verifyIntervalMs);
  });

  it('changes nothing, and records no Event, when the same answer comes again', () => {
    const first = decide(undefined, { generation: 3, providerName: 'GitHub', verification: verified, now: t0 });
    const again = decide(first.status, { generation: 3, providerName: 'GitHub', verification: verified, now: t1 });
    expect(again.changed).toBe(false);
    expect(again.status).toBe(first.status);
    expect(again.event).toBeUndefined();
  });

  it('turns a refusal into Ready=False with the host’s message, drops the account, and keeps checking', () => {
    const ready = decide(undefined, { generation: 1, providerName: 'GitHub', verification: verified, now: t0 }).status;
    const decision = decide(ready, { generation: 1, providerName: 'GitHub', verification: rejected, now: t1 });
    expect(decision.changed).toBe(true);
    expect(decision.status.account).toBeUndefined();
    expect(conditionSummary(decision.status)).toEqual([
      `Ready=False/${reasons.rejected}`,
      `Reconciling=False/${reasons.rejected}`,
      `Stalled=False/${reasons.rejected}`,
    ]);
    expect(findCondition(decision.status.conditions, 'Ready')).toMatchObject({
      message: 'GitHub rejected the credentials: Bad credentials',
      lastTransitionTime: '2026-01-01T00:05:00Z',
    });
    expect(decision.event).toMatchObject({ type: 'Warning', reason: reasons.rejected });
    expect(decision.requeueAfterMs).toBe(defaultTiming.verifyIntervalMs);
  });

  it('marks a missing or malformed Secret Stalled and waits for the Secret to change', () => {
    const error = new CodeHostCredentialsError('Secret "gh" is missing key "installationId" for a GitHub App');
    const decision = decide(undefined, { generation: 1, providerName: 'GitHub', verification: { ok: false, error }, now: t0 });
    expect(conditionSummary(decision.status)).toEqual([
      `Ready=False/${reasons.secretInvalid}`,
      `Reconciling=False/${reasons.secretInvalid}`,
      `Stalled=True/${reasons.secretInvalid}`,
    ]);
    expect(decision.requeueAfterMs).toBeUndefined();
  });

  it('keeps the account through a rate limit and comes back after the reset', () => {
    const ready = decide(undefined, { generation: 1, providerName: 'GitHub', verification: verified, now: t0 }).status;
    const resetAt = new Date(t1.getTime() + 120_000);
    const error = new CodeHostRateLimitedError('GitHub rate limit exceeded', 403, resetAt);
    const decision = decide(ready, { generation: 1, providerName: 'GitHub', verification: { ok: false, error }, now: t1 });
    expect(decision.status.account).toBe('alice');
    expect(conditionSummary(decision.status)[1]).toBe(`Reconciling=True/${reasons.rateLimited}`);
    expect(decision.requeueAfterMs).toBe(121_000);
  });

  it('retries an unreachable host soon', () => {
    const error = new CodeHostUnreachableError('GitHub at https://ghe.example.com/api/v3 is unreachable: ECONNREFUSED');
    const decision = decide(undefined, { generation: 1, providerName: 'GitHub', verification: { ok: false, error }, now: t0 });
    expect(findCondition(decision.status.conditions, 'Ready')).toMatchObject({ status: 'False', reason: reasons.unreachable });
    expect(decision.requeueAfterMs).toBe(defaultTiming.unreachableRetryMs);
  });

  it('records a new generation even when the verdict is the same', () => {
    const first = decide(undefined, { generation: 1, providerName: 'GitHub', verification: verified, now: t0 });
    const next = decide(first.status, { generation: 2, providerName: 'GitHub', verification: verified, now: t1 });
    expect(next.changed).toBe(true);
    expect(next.status.observedGeneration).toBe(2);
    expect(next.event).toBeUndefined();
    expect(findCondition(next.status.conditions, 'Ready')?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
  });
});

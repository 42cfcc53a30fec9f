// The CodeHostIntegration status as a pure function of what verifying its credentials found, when to
// look again, and which Event a change deserves. No I/O here: reconcile.ts asks the code host and
// writes; this decides.
import {
  conditionTypes,
  statusesEqual,
  findCondition,
  markReconciling,
  markVerdict,
  timestamp,
  type CodeHostIntegrationStatus,
  type Verdict,
} from '../../api/index.ts';
import { CodeHostRateLimitedError, type CodeHostAccount, type CodeHostError } from '../../codehost/index.ts';

/** What asking the code host found: whom the credentials act as, or why it could not tell. */
export type Verification = { ok: true; account: CodeHostAccount } | { ok: false; error: CodeHostError };

export const reasons = {
  verified: 'CredentialsVerified',
  secretInvalid: 'CredentialsSecretInvalid',
  notAllowed: 'BaseUrlNotAllowed',
  rejected: 'CredentialsRejected',
  notFound: 'CodeHostNotFound',
  rateLimited: 'RateLimited',
  unreachable: 'CodeHostUnreachable',
} as const;

export interface Timing {
  /** How often credentials that looked fine (or were refused) are asked about again: tokens get revoked. */
  verifyIntervalMs: number;
  /** How soon an unreachable host is tried again. */
  unreachableRetryMs: number;
}

export const defaultTiming: Timing = { verifyIntervalMs: 10 * 60_000, unreachableRetryMs: 30_000 };

export interface Decision {
  /** The status to hold; the current one, untouched, when nothing changed. */
  status: CodeHostIntegrationStatus;
  changed: boolean;
  /** When to verify again; undefined waits for a change of the integration or its Secret. */
  requeueAfterMs: number | undefined;
  event: { type: 'Normal' | 'Warning'; reason: string; message: string } | undefined;
}

function verdictOf(verification: Verification, providerName: string): Verdict {
  if (verification.ok) {
    const { login, kind } = verification.account;
    const who = kind === 'installation' ? `the App installation on ${login}` : `user ${login}`;
    return { state: 'ready', reason: reasons.verified, message: `${providerName} accepted the credentials; they act as ${who}` };
  }
  const { error } = verification;
  switch (error.reason) {
    case 'InvalidCredentials':
      return { state: 'stalled', reason: reasons.secretInvalid, message: error.message };
    case 'NotAllowed':
      return { state: 'stalled', reason: reasons.notAllowed, message: error.message };
    // The host said no: nothing will change until someone fixes the credentials, yet they may be fixed
    // on the host's side (token re-enabled, App reinstalled) without a Kubernetes change, so this is not
    // Stalled: the periodic check notices the fix.
    case 'Unauthorized':
      return { state: 'notReady', reason: reasons.rejected, message: error.message };
    case 'NotFound':
      return { state: 'notReady', reason: reasons.notFound, message: error.message };
    case 'RateLimited':
      return { state: 'progressing', reason: reasons.rateLimited, message: error.message };
    case 'Unreachable':
      return { state: 'progressing', reason: reasons.unreachable, message: error.message };
  }
}

function requeueAfter(verification: Verification, timing: Timing, now: Date): number | undefined {
  if (verification.ok) return timing.verifyIntervalMs;
  switch (verification.error.reason) {
    case 'InvalidCredentials':
    case 'NotAllowed':
      return undefined;
    case 'RateLimited': {
      const error = verification.error;
      const untilReset =
        error instanceof CodeHostRateLimitedError ? error.resetAt.getTime() - now.getTime() + 1000 : timing.unreachableRetryMs;
      return Math.min(timing.verifyIntervalMs, Math.max(1000, untilReset));
    }
    case 'Unreachable':
      return Math.min(timing.verifyIntervalMs, timing.unreachableRetryMs);
    default:
      return timing.verifyIntervalMs;
  }
}

export function decide(
  current: CodeHostIntegrationStatus | undefined,
  input: { generation: number | undefined; providerName: string; verification: Verification; now: Date; timing?: Timing },
): Decision {
  const { generation, verification, now } = input;
  const verdict = verdictOf(verification, input.providerName);
  // The account stays through a passing outage (rate limit, unreachable host): the credentials still
  // act as it. A refusal or a broken Secret means they act as nobody.
  const account = verification.ok ? verification.account.login : verdict.state === 'progressing' ? current?.account : undefined;
  const candidate: CodeHostIntegrationStatus = {
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: markVerdict(current?.conditions, verdict, generation, now),
    ...(account === undefined ? {} : { account }),
  };
  const changed = !statusesEqual(current, candidate);
  const status = changed ? { ...candidate, updatedAt: timestamp(now) } : (current ?? candidate);
  return {
    status,
    changed,
    requeueAfterMs: requeueAfter(verification, input.timing ?? defaultTiming, now),
    event: eventFor(current, verdict),
  };
}

/** The status of an integration no pass has verified yet: Reconciling, while the code host is asked. */
export function verifying(current: CodeHostIntegrationStatus | undefined, generation: number | undefined, now: Date): Decision {
  const observation = {
    reason: 'Verifying',
    message: 'Asking the code host whether the credentials work',
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  const status = { ...(current ?? {}), conditions: markReconciling(current?.conditions, observation, now) };
  return { status, changed: true, requeueAfterMs: undefined, event: undefined };
}

/** An Event when the Ready condition changes status or reason; repeats of the same state make none. */
function eventFor(current: CodeHostIntegrationStatus | undefined, verdict: Verdict): Decision['event'] {
  const previous = findCondition(current?.conditions, conditionTypes.ready);
  const readyStatus = verdict.state === 'ready' ? 'True' : 'False';
  if (previous && previous.status === readyStatus && previous.reason === verdict.reason) return undefined;
  return { type: verdict.state === 'ready' ? 'Normal' : 'Warning', reason: verdict.reason, message: verdict.message };
}

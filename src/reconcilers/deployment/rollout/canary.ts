// A canary rollout (spec.sourceConfig.canary), decided step by step from what the last pass recorded
// (status.canary) and what this one sees: the canary's pods, and the Gateway's figures once a step's
// pause is over. Pure; canary-pass.ts reads the caches and the metrics store for it.
//
//   Starting (pods come up, no traffic) ─ready─▶ Analyzing step 1 (weight w1) ─pause, pass─▶ step 2 ...
//   ... last step passes ─▶ Promoting (the application rolls out the new revision; the canary keeps its
//   share until that is done, then none) ─▶ DEPLOYED, the canary goes.
//   Any step that fails, or pods that cannot serve ─▶ Failed: all traffic back, the revision
//   DEPLOY_FAILED. Failed stays while the revision is the target: a new revision starts a new canary.
import {
  canaryDefaults,
  canaryLatencyNoiseSeconds,
  timestamp,
  type CanaryFigures,
  type CanarySpec,
  type ConditionDecision,
  type DeploymentStatus,
} from '../../../api/index.ts';
import type { TargetPhase } from './lifecycle.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { optional } from '../../../runtime/index.ts';

export type CanaryStatus = NonNullable<DeploymentStatus['canary']>;

/** The reason a revision that failed its canary is DEPLOY_FAILED with. */
export const canaryAnalysisFailed = 'CanaryAnalysisFailed';

/** How long a canary's pods stay, at no weight, after the routes stop sending them requests: the
 * Gateway takes the route change before their Service goes (one it could not resolve would answer 500). */
export const canaryTeardownMs = 10_000;

/** How often a step with too few requests to judge is looked at again. */
export const inconclusiveRecheckMs = 10_000;

export interface CanarySettings {
  steps: readonly number[];
  pauseMs: number;
  minRequests: number;
  minSuccessRatio: number;
  maxLatencyRatio: number;
  /** How long past its pause a step may wait for enough requests before it fails. */
  deadlineMs: number;
}

/** The spec's canary with its defaults, or undefined when it asks for none. */
export function canarySettings(spec: DeepReadonly<CanarySpec> | undefined, progressDeadlineSeconds: number): CanarySettings | undefined {
  if (!spec || spec.steps.length === 0) return undefined;
  return {
    steps: spec.steps,
    pauseMs: (spec.pauseSeconds ?? canaryDefaults.pauseSeconds) * 1000,
    minRequests: spec.minRequests ?? canaryDefaults.minRequests,
    minSuccessRatio: spec.minSuccessRatio ?? canaryDefaults.minSuccessRatio,
    maxLatencyRatio: spec.maxLatencyRatio ?? canaryDefaults.maxLatencyRatio,
    deadlineMs: progressDeadlineSeconds * 1000,
  };
}

export type CanaryVerdict = { kind: 'pass' | 'fail' | 'inconclusive'; message: string };

const percent = (ratio: number) => `${(ratio * 100).toFixed(2).replace(/\.?0+$/, '')}%`;
const secondsOf = (value: number) => `${value.toFixed(3).replace(/\.?0+$/, '')} s`;

/** Whether a step's figures pass its thresholds; too few requests decide nothing. */
export function judgeCanary(figures: CanaryFigures, settings: CanarySettings): CanaryVerdict {
  const counted = `${figures.requests} requests in ${figures.windowSeconds} s`;
  if (figures.requests < settings.minRequests)
    return { kind: 'inconclusive', message: `${counted}: fewer than the ${settings.minRequests} a step needs.` };
  const success = figures.successRatio ?? 1;
  if (success < settings.minSuccessRatio)
    return {
      kind: 'fail',
      message: `${counted}: ${percent(success)} answered other than 5xx, below the ${percent(settings.minSuccessRatio)} required.`,
    };
  const p99 = figures.latencyP99Seconds;
  const stableP99 = figures.stableLatencyP99Seconds;
  if (
    p99 !== undefined &&
    stableP99 !== undefined &&
    p99 > stableP99 * settings.maxLatencyRatio &&
    p99 - stableP99 > canaryLatencyNoiseSeconds
  )
    return {
      kind: 'fail',
      message: `${counted}: p99 latency ${secondsOf(p99)}, more than ${settings.maxLatencyRatio} times the stable revision's ${secondsOf(stableP99)}.`,
    };
  const latency = p99 === undefined ? '' : `, p99 latency ${secondsOf(p99)}`;
  return { kind: 'pass', message: `${counted}: ${percent(success)} answered other than 5xx${latency}.` };
}

export interface CanaryObservation {
  settings: CanarySettings;
  /** The revision on trial: the target. */
  revisionName: string;
  /** status.canary as the last pass recorded it. */
  previous: CanaryStatus | undefined;
  /** Every wanted pod of the canary runs the revision and is available. */
  ready: boolean;
  /** The application Deployment runs the revision everywhere (promotion done). */
  promoted: boolean;
  /** Why the revision's pods cannot serve: a pod's problem or the rollout's deadline. */
  failure?: { reason: string; message: string };
  /** The step's figures, read when analysisDue said so; undefined when the store did not answer. */
  figures?: CanaryFigures;
  now: Date;
}

export interface CanaryDecision {
  status: CanaryStatus;
  /** The canary's pods are rendered, at this weight (0: no requests); undefined: they go. */
  weight: number | undefined;
  /** The application Deployment runs the revision on trial rather than the one that served. */
  promoting: boolean;
  /** When to look again without any change to wait for. */
  recheckMs?: number;
  /** Why the revision failed: its phase is DEPLOY_FAILED with this reason. */
  failure?: { reason: string; message: string };
}

/** The recorded canary of this revision, if the last pass recorded one. */
export function recordedCanary(status: CanaryStatus | undefined, revisionName: string): CanaryStatus | undefined {
  return status?.revisionName === revisionName ? status : undefined;
}

/** A step's pause is over: its figures are to be read. */
export function analysisDue(previous: CanaryStatus | undefined, settings: CanarySettings, now: Date): boolean {
  return previous?.phase === 'Analyzing' && elapsedMs(previous, now) >= settings.pauseMs;
}

/** The seconds of requests a step's analysis reads: those since it began. */
export function analysisWindowSeconds(previous: CanaryStatus, now: Date): number {
  return Math.max(1, Math.round(elapsedMs(previous, now) / 1000));
}

function elapsedMs(status: CanaryStatus, now: Date): number {
  return now.getTime() - Date.parse(status.stepStartedAt);
}

export function decideCanary(o: CanaryObservation): CanaryDecision {
  const previous = recordedCanary(o.previous, o.revisionName);
  if (!previous) return starting(o);
  switch (previous.phase) {
    case 'Failed':
      return failed(previous, o.now);
    case 'Promoting':
      return promoting(previous, o);
    default:
      if (o.failure) return fail(previous, o.now, o.failure);
      return previous.phase === 'Starting' ? started(previous, o) : analyzing(previous, o);
  }
}

function starting(o: CanaryObservation): CanaryDecision {
  const status: CanaryStatus = {
    revisionName: o.revisionName,
    phase: 'Starting',
    step: 0,
    steps: o.settings.steps.length,
    weight: 0,
    stepStartedAt: timestamp(o.now),
    message: 'The new revision starts beside the one that serves, with no requests yet.',
  };
  return { status, weight: 0, promoting: false };
}

function started(previous: CanaryStatus, o: CanaryObservation): CanaryDecision {
  if (!o.ready) return { status: previous, weight: 0, promoting: false };
  return step(previous, o, 1, previous.message ?? '');
}

/** Step `index` (from 1) begins now. */
function step(previous: CanaryStatus, o: CanaryObservation, index: number, message: string, figures?: CanaryFigures): CanaryDecision {
  const weight = o.settings.steps[index - 1]!;
  const status: CanaryStatus = {
    ...previous,
    phase: 'Analyzing',
    step: index,
    weight,
    stepStartedAt: timestamp(o.now),
    message,
    ...optional('figures', figures),
  };
  return { status, weight, promoting: false, recheckMs: o.settings.pauseMs };
}

function analyzing(previous: CanaryStatus, o: CanaryObservation): CanaryDecision {
  const held = { status: previous, weight: previous.weight, promoting: false };
  const elapsed = elapsedMs(previous, o.now);
  if (elapsed < o.settings.pauseMs) return { ...held, recheckMs: o.settings.pauseMs - elapsed };
  const verdict: CanaryVerdict = o.figures
    ? judgeCanary(o.figures, o.settings)
    : { kind: 'inconclusive', message: 'The metrics store did not answer.' };
  const figures = o.figures ? { figures: o.figures } : {};
  const at = `Step ${previous.step} of ${previous.steps} (${previous.weight}%)`;
  if (verdict.kind === 'fail')
    return fail({ ...previous, ...figures }, o.now, { reason: canaryAnalysisFailed, message: `${at}: ${verdict.message}` });
  if (verdict.kind === 'inconclusive') {
    if (elapsed < o.settings.pauseMs + o.settings.deadlineMs)
      return { ...held, status: { ...previous, message: `${at}: ${verdict.message}`, ...figures }, recheckMs: inconclusiveRecheckMs };
    return fail({ ...previous, ...figures }, o.now, {
      reason: canaryAnalysisFailed,
      message: `${at}: ${verdict.message} The progress deadline passed.`,
    });
  }
  const passed = `${at} passed: ${verdict.message}`;
  if (previous.step < previous.steps) return step(previous, o, previous.step + 1, passed, o.figures);
  const status: CanaryStatus = { ...previous, phase: 'Promoting', stepStartedAt: timestamp(o.now), message: passed, ...figures };
  return promoting(status, o);
}

/** The application rolls out the revision while the canary keeps its share; once it has, the canary
 * takes none, and goes when the revision is active. */
function promoting(status: CanaryStatus, o: CanaryObservation): CanaryDecision {
  if (!o.promoted) return { status, weight: status.weight, promoting: true };
  return { status: { ...status, weight: 0 }, weight: 0, promoting: true, recheckMs: canaryTeardownMs };
}

function fail(previous: CanaryStatus, now: Date, failure: { reason: string; message: string }): CanaryDecision {
  const status: CanaryStatus = {
    ...previous,
    phase: 'Failed',
    weight: 0,
    stepStartedAt: timestamp(now),
    reason: failure.reason,
    message: failure.message,
  };
  return { status, weight: 0, promoting: false, failure, recheckMs: canaryTeardownMs };
}

/** All traffic went back; the canary's pods stay at no weight for the teardown time, then go. */
function failed(status: CanaryStatus, now: Date): CanaryDecision {
  const failure = { reason: status.reason ?? canaryAnalysisFailed, message: status.message ?? 'The canary failed.' };
  const left = canaryTeardownMs - elapsedMs(status, now);
  if (left > 0) return { status, weight: 0, promoting: false, failure, recheckMs: left };
  return { status, weight: undefined, promoting: false, failure };
}

/** The target's phase while its canary decides it; undefined once promoting (its rollout decides then). */
export function canaryTargetPhase(decision: CanaryDecision, image: string): TargetPhase | undefined {
  if (decision.failure) return { phase: 'DEPLOY_FAILED', reason: decision.failure.reason, message: decision.failure.message, image };
  const { status } = decision;
  if (status.phase === 'Promoting') return undefined;
  const at = status.step === 0 ? 'Canary starting' : `Canary step ${status.step} of ${status.steps}, ${status.weight}% of requests`;
  return { phase: 'DEPLOYING', reason: canaryStepReason, message: `${at}. ${status.message ?? ''}`.trim(), image };
}

/** The reason of a target on its way through a canary's steps. */
export const canaryStepReason = 'CanaryStep';

/** The condition that says whether a canary the spec asks for can run here. */
export const canaryConditionType = 'Canary';

export type CanaryAbility = 'Available' | 'NoGateway' | 'NoMetricsStore' | 'ScalesToZero';

const abilityMessages: Record<CanaryAbility, string> = {
  Available: 'A new revision goes out through the canary steps, judged on the Gateway metrics (a first revision and a rollback at once).',
  NoGateway: 'A canary needs the installation to route through a Gateway (--gateway); new revisions roll out at once.',
  NoMetricsStore: "A canary needs the installation's metrics store (--concurrency-metrics); new revisions roll out at once.",
  ScalesToZero: 'An app that scales to zero is reached through the activator, which splits no traffic; new revisions roll out at once.',
};

/** The Canary condition of a Deployment whose spec asks for one; undefined when it asks for none. */
export function canaryCondition(ability: CanaryAbility | undefined): ConditionDecision | undefined {
  if (!ability) return undefined;
  return {
    type: canaryConditionType,
    status: ability === 'Available' ? 'True' : 'False',
    reason: ability,
    message: abilityMessages[ability],
  };
}

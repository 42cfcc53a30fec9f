// Step 3b of a pass: whether the target goes out as a canary (spec.sourceConfig.canary), and where its
// canary stands (canary.ts decides). Reads the caches, and the metrics store only when a step's pause is
// over; writes nothing.
import { canaryQueries, childNames, interruptionOf, type CanaryFigures, type Deployment } from '../../../api/index.ts';
import { applicationServicePort, type RouteServices } from '../../../api/child-names.ts';
import type { DeepReadonly, Logger } from '../../../runtime/index.ts';
import { podsOfRevision } from '../../../workloads/revision-pods.ts';
import { instantValue } from '../../../workloads/metrics-store.ts';
import {
  analysisDue,
  analysisWindowSeconds,
  canarySettings,
  decideCanary,
  recordedCanary,
  type CanaryAbility,
  type CanaryDecision,
} from './canary.ts';
import type { ChosenRevisions } from '../revisions/choose-revisions.ts';
import { rolloutOf } from './lifecycle.ts';
import type { Pass } from '../pass.ts';
import { revisionPodsSay } from './pods.ts';
import type { ServingRevision } from '../render/application.ts';
import type { OwnerDeployment } from '../render/common.ts';
import type { CanaryWorkload } from '../render/workloads.ts';
import { imageOf, servingOf, type RevisionRecord } from '../revisions/revision-records.ts';
import { scaleToZeroOf } from './scale-to-zero.ts';
import type { TargetImage } from '../builds/target-image.ts';
import { optional } from '../../../runtime/index.ts';

export interface CanaryPlan {
  decision: CanaryDecision;
  /** What the application Deployment runs: the revision that served, or the target once promoting. */
  serving: ServingRevision;
  /** The canary's pods and their weight, while they are rendered. */
  canary?: CanaryWorkload;
}

/** Whether a canary the spec asks for can run in this installation; undefined when it asks for none. */
export function canaryAbility(pass: Pick<Pass, 'options'>, deployment: DeepReadonly<Deployment>): CanaryAbility | undefined {
  const { options } = pass;
  if (!canarySettings(deployment.spec.sourceConfig?.canary, options.progressDeadlineSeconds)) return undefined;
  if (!options.gateway) return 'NoGateway';
  if (!options.requestConcurrency?.serverAddress) return 'NoMetricsStore';
  if (scaleToZeroOf(options, deployment) === 'activated') return 'ScalesToZero';
  return 'Available';
}

/** The target's canary, when it goes out as one: with a Gateway and a metrics store, after a revision
 * that served, its image ready, neither pinned (a rollback is at once) nor scaling to zero. */
export async function canaryPlan(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  image: TargetImage,
  previousActive: RevisionRecord | undefined,
  routeTo: RouteServices,
): Promise<CanaryPlan | undefined> {
  const { options, informers } = pass;
  const settings = canarySettings(deployment.spec.sourceConfig?.canary, options.progressDeadlineSeconds);
  const store = options.requestConcurrency?.serverAddress;
  const { target } = chosen;
  const stableImage = previousActive && imageOf(previousActive.object);
  const targetServing = image.serving?.name === target.name ? image.serving : undefined;
  if (!settings || !store || canaryAbility(pass, deployment) !== 'Available' || chosen.pinned || interruptionOf(target.object))
    return undefined;
  if (!previousActive || !stableImage || previousActive.name === target.name || !targetServing) return undefined;

  const names = childNames(owner.name);
  const stableDeployment = informers.appsDeployments.get(owner.namespace, names.application);
  const canaryDeployment = informers.appsDeployments.get(owner.namespace, names.canary);
  const canaryRollout = rolloutOf(canaryDeployment);
  const stableRollout = rolloutOf(stableDeployment);
  const previous = recordedCanary(deployment.status?.canary, target.name);
  const now = options.now();
  const { podProblem } = revisionPodsSay(podsOfRevision(informers.pods, owner.namespace, target.name, 'workload'));
  const failure = podProblem ?? (canaryRollout.failed ? { reason: 'ProgressDeadlineExceeded', message: canaryRollout.failed } : undefined);
  const figures =
    previous && analysisDue(previous, settings, now)
      ? await readFigures(store, owner.namespace, routeTo, analysisWindowSeconds(previous, now), pass.context.logger)
      : undefined;
  const decision = decideCanary({
    settings,
    revisionName: target.name,
    previous,
    ready: canaryRollout.complete && canaryRollout.revision === target.name,
    promoted: stableRollout.complete && stableRollout.revision === target.name,
    ...(failure ? { failure: { reason: failure.reason, message: `The revision cannot serve: ${failure.message}` } } : {}),
    ...optional('figures', figures),
    now,
  });
  const stableReplicas = stableDeployment?.spec?.replicas ?? 1;
  const sizingWeight = decision.weight || settings.steps[0]!;
  return {
    decision,
    serving: decision.promoting ? targetServing : servingOf(previousActive, stableImage),
    ...(decision.weight === undefined
      ? {}
      : { canary: { serving: targetServing, weight: decision.weight, replicas: canaryReplicas(stableReplicas, sizingWeight) } }),
  };
}

/** The canary's share of the application's replicas at a weight: at least one. */
export function canaryReplicas(stableReplicas: number, weight: number): number {
  return Math.max(1, Math.ceil((stableReplicas * weight) / 100));
}

/** The step's figures, or undefined when the store did not answer. */
async function readFigures(
  store: string,
  namespace: string,
  routeTo: RouteServices,
  windowSeconds: number,
  logger: Logger,
): Promise<CanaryFigures | undefined> {
  const queries = canaryQueries({ namespace, canary: routeTo.canary, stable: routeTo.stable, port: applicationServicePort }, windowSeconds);
  try {
    const [requests, errors, p99, stableP99] = await Promise.all(
      [queries.requests, queries.errors, queries.latencyP99Seconds, queries.stableLatencyP99Seconds].map((query) =>
        instantValue(store, query),
      ),
    );
    const counted = Math.round(requests ?? 0);
    return {
      requests: counted,
      ...(counted > 0 ? { successRatio: round(1 - Math.min(counted, Math.round(errors ?? 0)) / counted) } : {}),
      ...(p99 === undefined ? {} : { latencyP99Seconds: round(p99) }),
      ...(stableP99 === undefined ? {} : { stableLatencyP99Seconds: round(stableP99) }),
      windowSeconds,
    };
  } catch (error) {
    // The status says only that the store did not answer: why goes to the log.
    logger.warn({ err: error }, 'the metrics store did not answer the canary queries');
    return undefined;
  }
}

/** Four decimals: what a status shows, and what compares equal from one pass to the next. */
function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

// One reconcile of a CodeHostIntegration: ask the code host whether the credentials in its Secret
// work, record the answer in status (only when it changed), say so with an Event when Ready moves,
// and come back periodically, since a token can be revoked without any change in the cluster.
import {
  conditionTypes,
  findCondition,
  markReconciling,
  type CodeHostIntegration,
  type CodeHostIntegrationStatus,
} from '../../api/index.ts';
import { CodeHostError, type CodeHostAccount } from '../../codehost/index.ts';
import type { Reconcile } from '../../runtime/controller.ts';
import type { DeepReadonly, ObjectKey } from '../../runtime/types.ts';
import { decide, defaultTiming, type Timing, type Verification } from './status.ts';

export interface CodeHostIntegrationDependencies {
  getIntegration(key: ObjectKey): DeepReadonly<CodeHostIntegration> | undefined;
  /** Asks the code host whom the integration's credentials act as; throws a CodeHostError when it cannot tell. */
  verify(integration: DeepReadonly<CodeHostIntegration>): Promise<CodeHostAccount>;
  /**
   * Writes the status unless the object changed since `integration` was read (then a StaleStatusError):
   * a pass that read a cache behind the last write must not take back what it said. Answers the object
   * as written.
   */
  writeStatus(
    integration: DeepReadonly<CodeHostIntegration>,
    status: CodeHostIntegrationStatus,
  ): Promise<DeepReadonly<CodeHostIntegration> | undefined>;
  now(): Date;
}

const providerNames = { github: 'GitHub', gitlab: 'GitLab' } as const;

/** The object changed since the pass read it (its cache lags): the pass runs again once the cache has caught up. */
export class StaleStatusError extends Error {}

/** How soon a pass that met a stale cache runs again. */
const staleRetryMs = 250;

export function createCodeHostIntegrationReconciler(deps: CodeHostIntegrationDependencies, timing: Timing = defaultTiming): Reconcile {
  return async (key, context) => {
    try {
      return await reconcileOnce(deps, timing, key, context);
    } catch (error) {
      if (error instanceof StaleStatusError) return { requeueAfter: staleRetryMs };
      throw error;
    }
  };
}

async function reconcileOnce(
  deps: CodeHostIntegrationDependencies,
  timing: Timing,
  key: ObjectKey,
  { recorder, logger }: Parameters<Reconcile>[1],
): ReturnType<Reconcile> {
  let integration = deps.getIntegration(key);
  if (!integration || integration.metadata.deletionTimestamp) return;
  const generation = integration.metadata.generation;
  let current = integration.status as CodeHostIntegrationStatus | undefined;

  // kstatus readers (kubectl wait, Flux, Argo CD) need conditions from the first moment; a code host
  // may take seconds to answer.
  if (!findCondition(current?.conditions, conditionTypes.ready)) {
    const observation = {
      reason: 'Verifying',
      message: 'Asking the code host whether the credentials work',
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    };
    current = { ...(current ?? {}), conditions: markReconciling(current?.conditions, observation, deps.now()) };
    integration = (await deps.writeStatus(integration, current)) ?? integration;
  }

  let verification: Verification;
  try {
    verification = { ok: true, account: await deps.verify(integration) };
  } catch (error) {
    if (!(error instanceof CodeHostError)) throw error;
    verification = { ok: false, error };
  }

  const decision = decide(current, {
    generation,
    providerName: providerNames[integration.spec.provider ?? 'github'],
    verification,
    now: deps.now(),
    timing,
  });
  if (decision.changed) await deps.writeStatus(integration, decision.status);
  if (decision.event) {
    recorder.event(integration, decision.event.type, decision.event.reason, decision.event.message);
    logger.info({ reason: decision.event.reason, message: decision.event.message }, 'code-host integration changed state');
  }
  return decision.requeueAfterMs === undefined ? undefined : { requeueAfter: decision.requeueAfterMs };
}

// One reconcile of a CodeHostIntegration: ask the code host whether the credentials in its Secret
// work, record the answer in status (only when it changed), say so with an Event when Ready moves,
// and come back periodically, since a token can be revoked without any change in the cluster.
import { conditionTypes, findCondition, type CodeHostIntegration, type CodeHostIntegrationStatus } from '../../api/index.ts';
import { CodeHostError, type CodeHostAccount } from '../../codehost/index.ts';
import type { Reconcile } from '../../runtime/controller.ts';
import type { DeepReadonly, ObjectKey } from '../../runtime/types.ts';
import { decide, defaultTiming, verifying, type Timing, type Verification } from './status.ts';

export interface CodeHostIntegrationDependencies {
  getIntegration(key: ObjectKey): DeepReadonly<CodeHostIntegration> | undefined;
  /** Asks the code host whom the integration's credentials act as; throws a CodeHostError when it cannot tell. */
  verify(integration: DeepReadonly<CodeHostIntegration>): Promise<CodeHostAccount>;
  /**
   * Writes the status unless the object already has it (the runtime's writeStatus: refused with a
   * StaleObjectError when the object changed since `integration` was read, and the pass runs again).
   */
  writeStatus(integration: DeepReadonly<CodeHostIntegration>, status: CodeHostIntegrationStatus): Promise<unknown>;
  now(): Date;
}

const providerNames = { github: 'GitHub', gitlab: 'GitLab' } as const;

export function createCodeHostIntegrationReconciler(deps: CodeHostIntegrationDependencies, timing: Timing = defaultTiming): Reconcile {
  return (key, context) => reconcileOnce(deps, timing, key, context);
}

async function reconcileOnce(
  deps: CodeHostIntegrationDependencies,
  timing: Timing,
  key: ObjectKey,
  { recorder, logger }: Parameters<Reconcile>[1],
): ReturnType<Reconcile> {
  const integration = deps.getIntegration(key);
  if (!integration || integration.metadata.deletionTimestamp) return;
  const generation = integration.metadata.generation;
  const current = integration.status as CodeHostIntegrationStatus | undefined;

  // kstatus readers (kubectl wait, Flux, Argo CD) need conditions from the first moment; a code host
  // may take seconds to answer. A first pass says so; the watch event of its write brings the next one,
  // which asks the code host (the controller takes every update of its objects: controller.ts).
  const decision = findCondition(current?.conditions, conditionTypes.ready)
    ? decide(current, {
        generation,
        providerName: providerNames[integration.spec.provider ?? 'github'],
        verification: await verify(deps, integration),
        now: deps.now(),
        timing,
      })
    : verifying(current, generation, deps.now());
  if (decision.changed) await deps.writeStatus(integration, decision.status);
  if (decision.event) {
    recorder.event(integration, decision.event.type, decision.event.reason, decision.event.message);
    logger.info({ reason: decision.event.reason, message: decision.event.message }, 'code-host integration changed state');
  }
  return decision.requeueAfterMs === undefined ? undefined : { requeueAfter: decision.requeueAfterMs };
}

/** What the code host says of the credentials: the account they act as, or why it cannot tell. */
async function verify(deps: CodeHostIntegrationDependencies, integration: DeepReadonly<CodeHostIntegration>): Promise<Verification> {
  try {
    return { ok: true, account: await deps.verify(integration) };
  } catch (error) {
    if (!(error instanceof CodeHostError)) throw error;
    return { ok: false, error };
  }
}

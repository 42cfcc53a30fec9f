// What every step of a Deployment reconcile works through: the caches it reads, the writer it writes
// with, the controller's options, the branch heads it polls, and the context it reports to (logger,
// Events). One pass is one reconcile of one Deployment.
import type { ReconcileContext } from '../../runtime/index.ts';
import type { DeploymentInformers } from './informers.ts';
import type { DeploymentControllerOptions } from './options.ts';
import type { SourceHeads } from './revisions/source-head.ts';
import type { DeploymentWriter } from './writer.ts';

export interface DeploymentReconcilerDependencies {
  informers: DeploymentInformers;
  writer: DeploymentWriter;
  options: DeploymentControllerOptions;
}

export interface Pass extends DeploymentReconcilerDependencies {
  heads: SourceHeads;
  context: ReconcileContext;
}

/** `{ key: value }`, or nothing when the value is undefined (optional members stay absent, not undefined). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

// What every step of a Deployment reconcile works through: the caches it reads, the writer it writes
// with, the controller's options, the branch heads it polls, the hosts' verdicts of ownership it keeps,
// and the context it reports to (logger, Events). One pass is one reconcile of one Deployment.
import type { ObjectKey, ReconcileContext } from '../../runtime/index.ts';
import type { OwnershipVerdicts } from '../../domains/ownership-verdicts.ts';
import type { DeploymentInformers } from './informers.ts';
import type { DeploymentControllerOptions } from './options.ts';
import type { SourceHeads } from './revisions/source-head.ts';
import type { DeploymentWriter } from './writer.ts';

export interface DeploymentReconcilerDependencies {
  informers: DeploymentInformers;
  writer: DeploymentWriter;
  options: DeploymentControllerOptions;
  /** Enqueues a Deployment when an answer it waited for comes (a host's proof of ownership). */
  wake?: (key: ObjectKey) => void;
}

export interface Pass extends DeploymentReconcilerDependencies {
  heads: SourceHeads;
  /** options.hostOwnership's verdicts, kept across passes: a pass never waits on a tenant's DNS. */
  hostVerdicts?: OwnershipVerdicts;
  context: ReconcileContext;
}

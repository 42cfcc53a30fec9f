// A revision's pre-deploy command (sourceConfig.preDeployCommand): run once, in a Job of its own, in the
// revision's image with the application's environment, secrets and waits for its database, before any
// of the revision's pods take traffic (database migrations). The Job is the Revision's: it goes when
// the Revision is pruned, and while it is kept the command is not run again. Pure.
import type { V1Job } from '@kubernetes/client-node';
import { apiVersion } from '../../../api/group.ts';
import { preDeployJobName } from '../../../api/child-names.ts';
import { preDeployTemplate, type WorkloadInput } from './application.ts';
import { revisionLabel, selectorLabels } from './common.ts';

/** How long the command may run before the revision fails with it (a migration is minutes, not hours). */
export const preDeployDeadlineSeconds = 1800;

/** The Job that runs `command` for the revision `input.serving` names (the Revision's uid: its owner). */
export function renderPreDeployJob(input: WorkloadInput, command: string, revisionUid: string): V1Job {
  const revision = input.serving.name;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: preDeployJobName(revision),
      namespace: input.owner.namespace,
      labels: { ...selectorLabels(input.owner, 'pre-deploy'), 'app.kubernetes.io/managed-by': 'berth', [revisionLabel]: revision },
      ownerReferences: [{ apiVersion, kind: 'Revision', name: revision, uid: revisionUid, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      // Once: a failed command fails the revision with its output, and is not tried again.
      backoffLimit: 0,
      activeDeadlineSeconds: preDeployDeadlineSeconds,
      template: preDeployTemplate(input, command),
    },
  };
}

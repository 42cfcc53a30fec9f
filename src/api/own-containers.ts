// The names Berth gives the containers it adds to a deployment's pods: the application's and the queue
// worker's, the pre-deploy command's, and every wait (`wait-for-*`). A user's init container or sidecar
// may not take one: the pod would name two containers alike and never be made. Pure.

export const applicationContainerName = 'app';
export const queueWorkerContainerName = 'queue';
export const preDeployContainerName = 'pre-deploy';

/** Each of Berth's waits is named `wait-for-<what>`. */
export const waitContainerPrefix = 'wait-for-';

const ownNames = [applicationContainerName, queueWorkerContainerName, preDeployContainerName];

export const ownContainerMessage = `is one of the names Berth gives its own containers (${ownNames.join(', ')}, ${waitContainerPrefix}*)`;

/** Whether `name` is free for a user's container. */
export function isUserContainerName(name: string): boolean {
  return !ownNames.includes(name) && !name.startsWith(waitContainerPrefix);
}

/** The same check as a CEL rule on the name. */
export const userContainerNameRule = {
  rule: `!(self in [${ownNames.map((name) => `'${name}'`).join(', ')}]) && !self.startsWith('${waitContainerPrefix}')`,
  message: ownContainerMessage,
};

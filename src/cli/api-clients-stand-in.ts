// What client-node's config module gets instead of its generated API clients in the berth process
// (without-api-clients.ts). Only KubeConfig.makeApiClient uses these; Berth's code never calls it.
const missing = 'client-node API clients are not loaded in the berth process; use runtime/kube-request.ts';

export class ServerConfiguration {
  constructor() {
    throw new Error(missing);
  }
}

export function createConfiguration(): never {
  throw new Error(missing);
}

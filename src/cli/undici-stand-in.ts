// What client-node's config module gets instead of undici in the berth process
// (without-api-clients.ts). Only the dispatchers of its fetch-based API clients use these; Berth's
// requests go through node:https with the agent options KubeConfig.applyToHTTPSOptions sets.
const missing = 'undici is not loaded in the berth process: client-node API clients are not used there';

export class Agent {
  constructor() {
    throw new Error(missing);
  }
}

export class ProxyAgent {
  constructor() {
    throw new Error(missing);
  }
}

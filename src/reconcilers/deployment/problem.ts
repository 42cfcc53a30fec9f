// Why a Deployment cannot be served as its spec stands: what every step that refuses one reports.

/** A spec the CRD accepted but that cannot be served until someone changes something. */
export interface Problem {
  reason: string;
  message: string;
  /**
   * Expected to resolve by itself for a while: the HTTP API writes the `<deployment>-secrets` Secret
   * right after the Deployment (the Secret is owned by it, so it cannot come first).
   */
  awaited?: boolean;
}

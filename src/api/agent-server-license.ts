// The licence key of the reference's agent server image, for installations that build agents on it
// (no --agent-server-image) and hold its licence: the platform team names a Secret in Berth's own
// namespace (--agent-server-license-secret) and Berth copies its key into each organization namespace,
// where the agent servers' pods read it. A tenant never supplies it: their own variable of that name is
// dropped from an agent server's environment when the installation names one.

/** The key of the platform's Secret, and the variable the reference's image reads. */
export const agentServerLicenseKey = 'LANGGRAPH_CLOUD_LICENSE_KEY';

/** The copy in each organization namespace. */
export const agentServerLicenseSecretName = 'berth-agent-server-license';

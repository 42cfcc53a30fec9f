// Berth's own Secrets in an organization namespace: the organization's registry credential, its copy
// of the agent server licence and its backup store's keys. No spec reads them, by a secret entry or by any free-form part of a pod
// (an env var's or envFrom's Secret, a Secret or projected volume): an app's environment or files would
// hand them to whoever holds an API key. Pure.
import { agentServerLicenseSecretName } from './agent-server-license.ts';
import { backupStoreSecretName } from './backup-store.ts';
import { organizationPolicyObjectName } from './organization-policy.ts';

export const berthOwnSecretNames: readonly string[] = [organizationPolicyObjectName, agentServerLicenseSecretName, backupStoreSecretName];

export const berthOwnSecretMessage = `names one of Berth's own Secrets (${berthOwnSecretNames.join(', ')}), which no deployment reads`;

/** The members that name a Secret in Kubernetes' shapes: secretKeyRef and secretRef (name), secret
 * (secretName in a volume, name in a projected volume's source). */
const secretHolders = ['secretKeyRef', 'secretRef', 'secret'];

/** The path of the first place in `value` that names one of Berth's own Secrets, or undefined. */
export function berthOwnSecretReference(value: unknown, path: readonly (string | number)[] = []): (string | number)[] | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = berthOwnSecretReference(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, member] of Object.entries(value)) {
    const named = secretHolders.includes(key) ? namedSecret(member) : undefined;
    if (named) return [...path, key, named];
    const found = berthOwnSecretReference(member, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

function namedSecret(holder: unknown): 'name' | 'secretName' | undefined {
  if (typeof holder !== 'object' || holder === null) return undefined;
  const { name, secretName } = holder as { name?: unknown; secretName?: unknown };
  if (typeof name === 'string' && berthOwnSecretNames.includes(name)) return 'name';
  if (typeof secretName === 'string' && berthOwnSecretNames.includes(secretName)) return 'secretName';
  return undefined;
}

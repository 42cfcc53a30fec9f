// Secrets a test makes as a team would: shared with Berth by its label, which Berth's cache selects.
import { managedSecretLabels, readableSecretLabel, readableSecretValues } from '../../src/api/readable-secrets.ts';

/** The labels a team sets on a Secret it names in a spec. */
export const sharedSecretLabels = { [readableSecretLabel]: readableSecretValues.shared };

/** The labels Berth sets on a Secret it makes, for a test that stands in for an earlier write. */
export { managedSecretLabels };

/** `kubectl label` arguments that share a Secret with Berth. */
export function shareSecretArgs(namespace: string, name: string): string[] {
  return ['label', 'secret', '-n', namespace, name, `${readableSecretLabel}=${readableSecretValues.shared}`];
}

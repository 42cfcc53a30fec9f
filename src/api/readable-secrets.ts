// The Secrets Berth reads: those it makes and those a team shares with it, both labelled
// `berth.dev/secret`. Berth's cache holds these alone (a label-selected watch), so a spec that names
// any other Secret of its namespace reads as if the Secret were missing, and says how to share it.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { labels } from './group.ts';

export const readableSecretLabel = labels.secret;

/** The label's values: on the Secrets Berth makes, and the one a team sets to share a Secret. Berth reads either. */
export const readableSecretValues = { managed: 'managed', shared: 'shared' } as const;

/** The label selector of every Secret watch: the label is present, whatever its value. */
export const readableSecretSelector = readableSecretLabel;

/** Labels of a Secret Berth makes. */
export const managedSecretLabels = {
  'app.kubernetes.io/managed-by': 'berth',
  [readableSecretLabel]: readableSecretValues.managed,
} as const;

/** The selector of Secrets an earlier Berth made without the label (labelled once, at a leader's start). */
export const unlabelledManagedSecretSelector = `app.kubernetes.io/managed-by=berth,!${readableSecretLabel}`;

export function isReadableSecret(secret: { readonly metadata?: Pick<V1ObjectMeta, 'labels'> | undefined }): boolean {
  return secret.metadata?.labels?.[readableSecretLabel] !== undefined;
}

/** How a missing Secret is reported: it may exist and not be shared. */
export function secretNotReadableMessage(name: string, namespace: string): string {
  return (
    `Secret "${name}" not found in namespace "${namespace}", or not shared with Berth: ` +
    `label it ${readableSecretLabel}=${readableSecretValues.shared} (Berth reads no other Secret)`
  );
}

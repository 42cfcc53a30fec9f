// Where a deployment's notifications may go: only to the origins the installation lists
// (--notification-origins, none by default), so a tenant's URL never reaches the cluster's own services,
// a cloud's metadata address or anything else the platform team did not choose. Pure.
import { originAllowed } from '../codehost/index.ts';

/** Why notifications may not go to `url` here, or undefined. */
export function notificationUrlRefusal(url: string, origins: readonly string[]): string | undefined {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed && originAllowed(parsed, origins)) return undefined;
  const allowed = origins.length > 0 ? `only ${origins.join(', ')}` : 'none';
  return (
    `spec.sourceConfig.notifications.url: ${parsed?.origin ?? url} is not among the origins this installation sends notifications to (${allowed}); ` +
    'a platform team adds one with --notification-origins'
  );
}

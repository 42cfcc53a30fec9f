// A deployment's notifications: what it names (a URL, the Secret key it signs with, the events it wants),
// which of Berth's Events each notification is, the JSON a delivery carries and its signature. Pure.
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { httpUrl, secretKeySelectorSchema } from './common.ts';

/** What a notification may be about, each the Deployment Event reasons that make one. */
export const notificationReasons = {
  deployed: ['RevisionActive'],
  failed: ['BuildFailed', 'DeployFailed', 'CreateFailed'],
  canary_rolled_back: ['CanaryAnalysisFailed'],
  crash_looping: ['CrashLooping'],
} as const satisfies Record<string, readonly string[]>;
export type NotificationEvent = keyof typeof notificationReasons;
export const notificationEvents = Object.keys(notificationReasons) as NotificationEvent[];

export const notificationsSchema = z
  .object({
    url: httpUrl(
      'Where each notification is POSTed, as JSON. Its origin must be one the installation allows (--notification-origins); redirects are not followed.',
    ),
    signingSecret: secretKeySelectorSchema.describe(
      'The key of a Secret (labelled berth.dev/secret=shared) whose value signs each delivery: the Berth-Signature header is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">.',
    ),
    events: z
      .array(z.enum(notificationEvents as [NotificationEvent, ...NotificationEvent[]]).describe(`One of ${notificationEvents.join(', ')}.`))
      .max(notificationEvents.length)
      .optional()
      .describe(
        'Which events are sent (default all): deployed (a revision now serves), failed (a revision failed to build, deploy or be made), ' +
          "canary_rolled_back (a canary failed its analysis and its revision took no more traffic), crash_looping (the serving revision's pods keep crashing).",
      )
      .meta({ 'x-kubernetes-list-type': 'set' }),
  })
  .describe(
    'Signed JSON sent to a URL when a revision deploys or fails, or a canary rolls back. Deliveries are retried with backoff on a network error, 429 or 5xx. Applied in place (no new revision).',
  );
export type Notifications = z.infer<typeof notificationsSchema>;

/** The notification an Event on a Deployment is, if the deployment asked for it. */
export function notificationOf(reason: string, wanted: readonly string[] | null | undefined): NotificationEvent | undefined {
  const event = notificationEvents.find((candidate) => (notificationReasons[candidate] as readonly string[]).includes(reason));
  return event && (!wanted || wanted.includes(event)) ? event : undefined;
}

/** What a delivery carries: what happened, to which deployment, in Berth's own words. Never a secret. */
export interface NotificationBody {
  /** Unique per notification, the same across its retries: a receiver drops a repeat by it. */
  id: string;
  event: NotificationEvent;
  deployment: { id: string; name: string; namespace: string };
  /** The Event's reason and message, as `kubectl describe` shows them. */
  reason: string;
  message: string;
  at: string;
}

export const notificationSignatureHeader = 'berth-signature';

/** The Berth-Signature header of `body` sent at `at`, signed with `key`. */
export function notificationSignature(key: string, body: string, at: Date): string {
  const seconds = Math.floor(at.getTime() / 1000);
  return `t=${seconds},v1=${createHmac('sha256', key).update(`${seconds}.${body}`).digest('hex')}`;
}

// Notifications are what Berth's Events on a Deployment say: an EventRecorder that records as the one it
// wraps, and hands each Event a deployment asked to be told of (src/api/notifications.ts) to the notifier.
import { apiVersion, notificationOf, type Deployment } from '../api/index.ts';
import type { EventRecorder } from '../runtime/index.ts';
import type { Notifier } from './notifier.ts';

export function notifyingRecorder(recorder: EventRecorder, notifier: Notifier): EventRecorder {
  return {
    event(object, type, reason, message) {
      recorder.event(object, type, reason, message);
      if (object.apiVersion !== apiVersion || object.kind !== 'Deployment') return;
      const deployment = object as Deployment;
      const wanted = deployment.spec.sourceConfig?.notifications;
      const event = wanted && notificationOf(reason, wanted.events);
      if (event) notifier.notify(deployment, event, reason, message);
    },
    flush: () => recorder.flush(),
  };
}

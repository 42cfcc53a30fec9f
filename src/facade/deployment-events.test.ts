import { describe, expect, it } from 'vitest';
import { deploymentEvents, type KubeEvent } from './deployment-events.ts';

const event = (kind: string, name: string, reason: string, last: string, extra: Partial<KubeEvent> = {}): KubeEvent => ({
  type: 'Normal',
  reason,
  message: `${reason} of ${name}`,
  count: 1,
  firstTimestamp: last,
  lastTimestamp: last,
  involvedObject: { kind, name, uid: `${kind}/${name}` },
  source: { component: 'kubelet' },
  ...extra,
});
const objects = { name: 'web', uids: new Set(['Deployment/web-berth', 'Revision/web-1a2b', 'Pod/web-7d9f-abcde']) };

describe('deploymentEvents', () => {
  it("keeps the deployment's own objects, by uid and by the names Berth renders, newest first", () => {
    const events = [
      event('Deployment', 'web', 'PathBlocked', '2026-12-02T10:00:05Z', {
        type: 'Warning',
        involvedObject: { kind: 'Deployment', name: 'web', uid: 'Deployment/web-berth' },
      }),
      event('Revision', 'web-1a2b', 'BuildFailed', '2026-12-02T10:00:03Z', {
        involvedObject: { kind: 'Revision', name: 'web-1a2b', uid: 'Revision/web-1a2b' },
      }),
      event('Pod', 'web-7d9f-abcde', 'BackOff', '2026-12-02T10:00:04.500000Z', {
        involvedObject: { kind: 'Pod', name: 'web-7d9f-abcde', uid: 'Pod/web-7d9f-abcde' },
      }),
      event('ReplicaSet', 'web-7d9f', 'SuccessfulCreate', '2026-12-02T10:00:01Z'),
      event('ReplicaSet', 'web-queue-5c6b', 'SuccessfulCreate', '2026-12-02T10:00:02Z'),
      event('StatefulSet', 'web-postgres', 'SuccessfulCreate', '2026-12-02T10:00:00Z'),
    ];
    expect(deploymentEvents(events, objects, 50).map((e) => e.reason)).toEqual([
      'PathBlocked',
      'BackOff',
      'BuildFailed',
      'SuccessfulCreate',
      'SuccessfulCreate',
      'SuccessfulCreate',
    ]);
  });

  it("leaves out another deployment's objects, even where its name begins with this one's", () => {
    const events = [
      event('Deployment', 'web-api', 'ScalingReplicaSet', '2026-12-02T10:00:00Z'),
      event('ReplicaSet', 'web-api-7d9f', 'SuccessfulCreate', '2026-12-02T10:00:00Z'),
      event('Pod', 'web-api-7d9f-abcde', 'Pulled', '2026-12-02T10:00:00Z'),
      event('StatefulSet', 'web-api-postgres', 'SuccessfulCreate', '2026-12-02T10:00:00Z'),
    ];
    expect(deploymentEvents(events, objects, 50)).toEqual([]);
  });

  it('shapes each for the wire: Warning or Normal, a count of at least one, who said it; at most the limit', () => {
    const [shaped] = deploymentEvents(
      [
        event('Deployment', 'web', 'Stalled', '2026-12-02T10:00:00Z', {
          type: 'Warning',
          count: 0,
          firstTimestamp: null,
          eventTime: '2026-12-02T09:59:00.000000Z',
          reportingComponent: 'berth',
          involvedObject: { kind: 'Deployment', name: 'web', uid: 'Deployment/web-berth' },
        }),
      ],
      objects,
      50,
    );
    expect(shaped).toEqual({
      type: 'Warning',
      reason: 'Stalled',
      message: 'Stalled of web',
      object: { kind: 'Deployment', name: 'web' },
      count: 1,
      first_seen: '2026-12-02T09:59:00.000000Z',
      last_seen: '2026-12-02T10:00:00Z',
      source: 'berth',
    });
    const many = Array.from({ length: 5 }, (_, i) => event('Deployment', 'web', `R${i}`, `2026-12-02T10:00:0${i}Z`));
    expect(deploymentEvents(many, objects, 2).map((e) => e.reason)).toEqual(['R4', 'R3']);
  });
});

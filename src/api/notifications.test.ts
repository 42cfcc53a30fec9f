import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { notificationOf, notificationSignature } from './notifications.ts';

describe('notifications', () => {
  it.each([
    ['RevisionActive', undefined, 'deployed'],
    ['BuildFailed', undefined, 'failed'],
    ['DeployFailed', ['failed'], 'failed'],
    ['CanaryAnalysisFailed', undefined, 'canary_rolled_back'],
    ['CrashLooping', undefined, 'crash_looping'],
    ['CanaryAnalysisFailed', ['deployed', 'failed'], undefined],
    ['SecretNotFound', undefined, undefined],
    ['CanaryStep', undefined, undefined],
  ])('an Event %s, asked for %j, is the notification %s', (reason, wanted, expected) => {
    expect(notificationOf(reason, wanted)).toBe(expected);
  });

  it('signs "<t>.<body>" with the key, t in whole seconds', () => {
    const at = new Date('2026-12-03T12:00:00.900Z');
    const mac = createHmac('sha256', 'key').update('1796299200.{}').digest('hex');
    expect(notificationSignature('key', '{}', at)).toBe(`t=1796299200,v1=${mac}`);
  });
});

import { describe, expect, it } from 'vitest';
import { backupRequestedAt, backupRequestedAtAnnotation } from './database-backup.ts';

describe('backupRequestedAt', () => {
  it("orders by Berth's annotation to the millisecond, else by when the object was made", () => {
    const asked = {
      metadata: { annotations: { [backupRequestedAtAnnotation]: '2026-12-06T11:00:00.250Z' }, creationTimestamp: '2026-12-06T11:00:00Z' },
    };
    expect(backupRequestedAt(asked)).toBe(Date.parse('2026-12-06T11:00:00.250Z'));
    expect(backupRequestedAt({ metadata: { creationTimestamp: '2026-12-06T11:00:01Z' } })).toBe(Date.parse('2026-12-06T11:00:01Z'));
    expect(backupRequestedAt({ metadata: { creationTimestamp: new Date('2026-12-06T11:00:02Z') } })).toBe(
      Date.parse('2026-12-06T11:00:02Z'),
    );
    expect(backupRequestedAt({ metadata: { annotations: { [backupRequestedAtAnnotation]: 'soon' } } })).toBe(0);
  });
});

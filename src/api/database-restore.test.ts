import { describe, expect, it } from 'vitest';
import { targetTimeProblem } from './database-restore.ts';

describe('a point in time to restore to', () => {
  const now = new Date('2026-12-07T10:00:00Z');
  const ended = '2026-12-07T09:00:00Z';

  it("is reachable from a second past the backup's end up to now, in any offset", () => {
    expect(targetTimeProblem('2026-12-07T09:00:01Z', ended, now)).toBeUndefined();
    expect(targetTimeProblem('2026-12-07T09:30:00.250Z', ended, now)).toBeUndefined();
    expect(targetTimeProblem('2026-12-07T10:59:00+01:00', ended, now)).toBeUndefined();
    // A backup not yet ended: only the future is known to be out of reach.
    expect(targetTimeProblem('2026-12-07T08:00:00Z', undefined, now)).toBeUndefined();
  });

  it('is out of reach before the backup ended, within the second it ended (recorded to the second), and ahead of now', () => {
    for (const early of ['2026-12-07T08:59:59Z', ended, '2026-12-07T09:00:00.999Z'])
      expect(targetTimeProblem(early, ended, now)).toMatch(
        /not a second past the backup's end \(2026-12-07T09:00:00Z\): restore an earlier backup/,
      );
    expect(targetTimeProblem('2026-12-07T10:00:01Z', ended, now)).toMatch(/has not come yet/);
  });
});

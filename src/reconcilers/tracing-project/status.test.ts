import { describe, expect, it } from 'vitest';
import { nextTracingProjectStatus, tracingProjectReadyMessage } from './status.ts';

describe('nextTracingProjectStatus', () => {
  const first = nextTracingProjectStatus(undefined, 1, new Date('2026-01-01T00:00:00Z'));

  it('is Ready for the generation seen', () => {
    expect(first.observedGeneration).toBe(1);
    expect(first.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Created',
      message: tracingProjectReadyMessage,
      observedGeneration: 1,
    });
    expect(first.conditions?.map((c) => c.type).sort()).toEqual(['Ready', 'Reconciling', 'Stalled']);
  });

  it('returns the stored status when nothing changed', () => {
    expect(nextTracingProjectStatus(first, 1, new Date('2026-02-01T00:00:00Z'))).toBe(first);
  });

  it('moves with the generation', () => {
    expect(nextTracingProjectStatus(first, 2, new Date('2026-02-01T00:00:00Z')).observedGeneration).toBe(2);
  });
});

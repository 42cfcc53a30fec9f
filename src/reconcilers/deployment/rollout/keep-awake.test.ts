import { describe, expect, it } from 'vitest';
import { keepAwake } from './keep-awake.ts';

const now = new Date('2026-12-07T10:00:00Z');
const ready = (status: 'True' | 'False', at: string) => [
  { type: 'Ready', status, reason: status === 'True' ? 'Deployed' : 'Deploying', message: '', lastTransitionTime: at },
];

describe('keepAwake', () => {
  it('keeps a pod while a revision rolls out, with nothing to look at later', () => {
    expect(keepAwake({ rollingOut: true, activeConditions: undefined, idleSeconds: 60, now })).toEqual({ keepOnePod: true });
  });

  it('keeps a pod for the idle window after the active revision turned DEPLOYED, and looks again when it ends', () => {
    const deployedAgo = (seconds: number) =>
      keepAwake({
        rollingOut: false,
        activeConditions: ready('True', new Date(now.getTime() - seconds * 1000).toISOString()),
        idleSeconds: 60,
        now,
      });
    expect(deployedAgo(20)).toEqual({ keepOnePod: true, recheckMs: 40_000 });
    expect(deployedAgo(60)).toEqual({ keepOnePod: false });
    expect(deployedAgo(3600)).toEqual({ keepOnePod: false });
  });

  it('starts the window now when the cache has not seen the revision turn DEPLOYED yet', () => {
    expect(keepAwake({ rollingOut: false, activeConditions: [], idleSeconds: 90, now })).toEqual({ keepOnePod: true, recheckMs: 90_000 });
    expect(keepAwake({ rollingOut: false, activeConditions: ready('False', '2026-12-07T09:00:00Z'), idleSeconds: 90, now })).toEqual({
      keepOnePod: true,
      recheckMs: 90_000,
    });
  });
});

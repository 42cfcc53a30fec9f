import { describe, expect, it } from 'vitest';
import { nextDeploymentStatus, nextRevisionStatus, phaseReason } from './next-status.ts';
import { scaleToZero, tierCondition } from '../render/tier.ts';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T00:05:00Z');

describe('nextDeploymentStatus', () => {
  const facts = {
    phase: 'READY' as const,
    verdict: { state: 'ready' as const, reason: 'Ready', message: 'serving' },
    generation: 3,
    latest: { name: 'shop-aaaaaaaaaa', uid: 'u1' },
    active: { name: 'shop-aaaaaaaaaa', uid: 'u1', image: 'nginx:1' },
  };
  const first = nextDeploymentStatus(undefined, facts, t0);

  it('fills every field, with second-precision timestamps', () => {
    expect(first).toMatchObject({
      status: 'READY',
      latestRevisionName: 'shop-aaaaaaaaaa',
      latestRevisionId: 'u1',
      activeRevisionName: 'shop-aaaaaaaaaa',
      activeRevisionId: 'u1',
      imageVersion: 'nginx:1',
      observedGeneration: 3,
      updatedAt: '2026-01-01T00:00:00Z',
    });
    expect(first.conditions?.map((c) => [c.type, c.status, c.observedGeneration])).toEqual([
      ['Ready', 'True', 3],
      ['Reconciling', 'False', 3],
      ['Stalled', 'False', 3],
    ]);
  });

  it('says a dev_zero Deployment runs as dev here in a ScaleToZero condition, and drops it when the tier has none', () => {
    const noActivator = scaleToZero('dev_zero', { activator: false, routed: true });
    const zero = nextDeploymentStatus(first, { ...facts, tier: tierCondition(noActivator) }, t1);
    expect(zero.conditions?.find((c) => c.type === 'ScaleToZero')).toMatchObject({
      status: 'False',
      reason: 'NoActivator',
      observedGeneration: 3,
    });
    expect(nextDeploymentStatus(zero, { ...facts, tier: tierCondition(noActivator) }, t1)).toBe(zero);
    expect(nextDeploymentStatus(zero, facts, t1).conditions?.map((c) => c.type)).toEqual(['Ready', 'Reconciling', 'Stalled']);
    for (const tier of ['dev_free', 'dev', 'prod', undefined]) expect(scaleToZero(tier, { activator: true, routed: true })).toBeUndefined();
  });

  it('says a dev_zero Deployment scales to zero where the cluster has an activator and the app a URL', () => {
    expect(scaleToZero('dev_zero', { activator: true, routed: true })).toBe('activated');
    expect(tierCondition('activated')).toMatchObject({ status: 'True', reason: 'Activated' });
    expect(scaleToZero('dev_zero', { activator: true, routed: false })).toBe('NoRoute');
    expect(tierCondition('NoRoute')).toMatchObject({ status: 'False', reason: 'NoRoute' });
  });

  it('returns the stored status itself when only time has passed', () => {
    expect(nextDeploymentStatus(first, facts, t1)).toBe(first);
  });

  it('moves updatedAt and the transition time when something changes', () => {
    const next = nextDeploymentStatus(
      first,
      { ...facts, phase: 'UNKNOWN', verdict: { state: 'progressing', reason: 'AwaitingAvailability', message: 'wait' } },
      t1,
    );
    expect(next.updatedAt).toBe('2026-01-01T00:05:00Z');
    expect(next.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', lastTransitionTime: '2026-01-01T00:05:00Z' });
  });
});

describe('nextRevisionStatus', () => {
  it.each([
    ['DEPLOYED', 'Ready', 'True'],
    ['BUILD_FAILED', 'Stalled', 'True'],
    ['BUILDING', 'Reconciling', 'True'],
    ['INTERRUPTED', 'Ready', 'False'],
  ] as const)('%s sets %s=%s', (phase, type, status) => {
    const next = nextRevisionStatus(undefined, { phase, message: 'm', generation: 1 }, t0);
    expect(next.status).toBe(phase);
    expect(next.conditions?.find((c) => c.type === type)?.status).toBe(status);
  });

  it('keeps a recorded image and returns the stored status when nothing changed', () => {
    const built = nextRevisionStatus(undefined, { phase: 'AWAITING_DEPLOY', message: 'm', image: 'reg/ns/app:r', generation: 1 }, t0);
    const interrupted = nextRevisionStatus(built, { phase: 'INTERRUPTED', message: 'superseded', generation: 1 }, t1);
    expect(interrupted.imageUri).toBe('reg/ns/app:r');
    expect(nextRevisionStatus(interrupted, { phase: 'INTERRUPTED', message: 'superseded', generation: 1 }, t1)).toBe(interrupted);
  });

  it('names reasons after phases', () => {
    expect(phaseReason('AWAITING_DEPLOY')).toBe('AwaitingDeploy');
  });
});

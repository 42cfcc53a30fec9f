import { describe, expect, it } from 'vitest';
import { conditionVerdict, deploymentPhase, type StatusObservation } from './status.ts';

const serving: StatusObservation = {
  deleting: false,
  database: 'ready',
  scaledToZero: false,
  workloadsAvailable: true,
  workloadsRolledOut: true,
  target: { phase: 'DEPLOYED', message: 'The revision is serving.', image: 'nginx:1' },
  targetIsActive: true,
};

describe('deploymentPhase', () => {
  it.each([
    ['serving', serving, 'READY'],
    ['being deleted', { ...serving, deleting: true }, 'AWAITING_DELETE'],
    ['scaled to zero', { ...serving, scaledToZero: true }, 'UNUSED'],
    ['waiting for its database', { ...serving, database: 'notReady', workloadsAvailable: false }, 'AWAITING_DATABASE'],
    ['without a database, serving', { ...serving, database: 'none' }, 'READY'],
    ['not available yet', { ...serving, workloadsAvailable: false }, 'UNKNOWN'],
    ['idle at zero, woken by its next request', { ...serving, workloadsAvailable: false, idle: true }, 'READY'],
    ['cut off from its relay by a NetworkPolicy', { ...serving, pathBlocked: { message: 'm' } }, 'UNKNOWN'],
    ['cut off while idle', { ...serving, workloadsAvailable: false, idle: true, pathBlocked: { message: 'm' } }, 'UNKNOWN'],
    ['cut off, but scaled to zero anyway', { ...serving, scaledToZero: true, pathBlocked: { message: 'm' } }, 'UNUSED'],
  ] as const)('%s -> %s', (_, observation, expected) => {
    expect(deploymentPhase(observation)).toBe(expected);
  });
});

describe('conditionVerdict', () => {
  it.each([
    ['serving', serving, 'ready', 'Ready'],
    ['scaled to zero', { ...serving, scaledToZero: true, workloadsAvailable: false, workloadsRolledOut: true }, 'ready', 'ScaledToZero'],
    ['idle at zero', { ...serving, idle: true, workloadsAvailable: false }, 'ready', 'Idle'],
    ['cut off from its relay', { ...serving, pathBlocked: { message: 'm' } }, 'stalled', 'PathBlocked'],
    ['serving, its pods crashing', { ...serving, workloadsAvailable: false, crashLooping: { message: 'm' } }, 'notReady', 'CrashLooping'],
    ['cut off while idle', { ...serving, idle: true, workloadsAvailable: false, pathBlocked: { message: 'm' } }, 'stalled', 'PathBlocked'],
    [
      'cut off while its revision still rolls out',
      { ...serving, targetIsActive: false, target: { phase: 'DEPLOYING', message: 'd', image: 'nginx:1' }, pathBlocked: { message: 'm' } },
      'progressing',
      'Deploying',
    ],
    [
      'cut off with a problem',
      { ...serving, problem: { reason: 'SecretNotFound', message: 'x' }, pathBlocked: { message: 'm' } },
      'stalled',
      'SecretNotFound',
    ],
    ['a missing Secret', { ...serving, problem: { reason: 'SecretNotFound', message: 'Secret x not found' } }, 'stalled', 'SecretNotFound'],
    [
      'a Secret the HTTP API is about to write',
      { ...serving, problem: { reason: 'SecretNotFound', message: 'x', awaited: true } },
      'progressing',
      'SecretNotFound',
    ],
    [
      'a failed build',
      { ...serving, target: { phase: 'BUILD_FAILED', message: 'The build failed: exit 1' }, targetIsActive: false },
      'stalled',
      'BuildFailed',
    ],
    [
      'a build under way',
      { ...serving, target: { phase: 'BUILDING', message: 'building' }, targetIsActive: false },
      'progressing',
      'Building',
    ],
    [
      'a new revision deploying',
      { ...serving, target: { phase: 'DEPLOYING', message: 'rolling' }, targetIsActive: false },
      'progressing',
      'Deploying',
    ],
    ['a database not ready', { ...serving, database: 'notReady' }, 'progressing', 'AwaitingDatabase'],
    ['pods not rolled out', { ...serving, workloadsRolledOut: false }, 'progressing', 'AwaitingAvailability'],
    ['being deleted', { ...serving, deleting: true }, 'progressing', 'Deleting'],
    ['no target yet', { ...serving, target: undefined }, 'progressing', 'Progressing'],
  ] as const)('%s -> %s (%s)', (_, observation, state, reason) => {
    expect(conditionVerdict(observation as StatusObservation)).toMatchObject({ state, reason });
  });
});

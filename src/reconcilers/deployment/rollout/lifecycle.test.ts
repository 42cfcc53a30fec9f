import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { bypassedPhase, rolloutOf, targetPhase, workloadChangeMatters, type TargetObservation } from './lifecycle.ts';
import { interruptionOf } from '../../../api/index.ts';
import { revisionLabel } from '../render/common.ts';

const deployment = (revision: string, generation: number, status: V1Deployment['status'], replicas?: number): V1Deployment => ({
  metadata: { name: 'd', generation },
  spec: { replicas, selector: {}, template: { metadata: { labels: { [revisionLabel]: revision } } } },
  status,
});

describe('rolloutOf', () => {
  it.each([
    ['no Deployment', undefined, { complete: false }],
    [
      'a template not observed yet',
      deployment('r1', 2, { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1 }),
      { revision: 'r1', complete: false },
    ],
    [
      'updated but not available',
      deployment('r1', 2, { observedGeneration: 2, updatedReplicas: 1, availableReplicas: 0 }),
      { revision: 'r1', complete: false },
    ],
    [
      'rolled out',
      deployment('r1', 2, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
      { revision: 'r1', complete: true },
    ],
    [
      'new pods available, an old one still running',
      deployment('r1', 2, { observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 2 }),
      { revision: 'r1', complete: false },
    ],
    [
      'new pods available, an old one terminating (out of the Service already)',
      deployment('r1', 2, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1, terminatingReplicas: 1 }),
      { revision: 'r1', complete: true },
    ],
    ['scaled to zero and observed', deployment('r1', 3, { observedGeneration: 3 }, 0), { revision: 'r1', complete: true }],
    [
      'past its progress deadline',
      deployment('r1', 2, {
        observedGeneration: 2,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'too slow' }],
      }),
      { revision: 'r1', complete: false, failed: 'too slow' },
    ],
  ])('%s', (_, input, expected) => {
    expect(rolloutOf(input)).toEqual(expected);
  });

  it('waits for a pod of a revision that must show it starts, even at zero replicas', () => {
    const idle = deployment('r2', 3, { observedGeneration: 3 }, 0);
    expect(rolloutOf(idle, 1)).toEqual({ revision: 'r2', complete: false });
    const woken = deployment('r2', 4, { observedGeneration: 4, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }, 1);
    expect(rolloutOf(woken, 1)).toEqual({ revision: 'r2', complete: true });
  });
});

describe('workloadChangeMatters', () => {
  // The steps of one rollout as the apps/v1 controller writes them (generation 2: the new template).
  const observed = deployment('r2', 2, { observedGeneration: 2, replicas: 1, updatedReplicas: 0, availableReplicas: 1 });
  const surged = deployment('r2', 2, { observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 1 });
  const newReady = deployment('r2', 2, { observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 2 });
  const oldTerminating = deployment('r2', 2, {
    observedGeneration: 2,
    replicas: 1,
    updatedReplicas: 1,
    availableReplicas: 1,
    terminatingReplicas: 1,
  });
  const rolledOut = deployment('r2', 2, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 });

  it('lets through the status step that completes the rollout (the old pod terminating), not those before or after it', () => {
    expect(workloadChangeMatters(surged, observed)).toBe(false);
    expect(workloadChangeMatters(newReady, surged)).toBe(false);
    expect(workloadChangeMatters(oldTerminating, newReady)).toBe(true);
    expect(workloadChangeMatters(rolledOut, oldTerminating)).toBe(false);
  });

  it('lets through a status that changes whether any replica is available, or a failed rollout', () => {
    const none = deployment('r2', 2, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 0 });
    expect(workloadChangeMatters(none, rolledOut)).toBe(true);
    const failed = deployment('r2', 2, {
      ...surged.status,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'too slow' }],
    });
    expect(workloadChangeMatters(failed, surged)).toBe(true);
  });

  it('lets through every change that is not status only', () => {
    expect(workloadChangeMatters(deployment('r3', 3, rolledOut.status), rolledOut)).toBe(true);
    const relabelled = { ...rolledOut, metadata: { ...rolledOut.metadata, labels: { team: 'a' } } };
    expect(workloadChangeMatters(relabelled, rolledOut)).toBe(true);
  });
});

describe('targetPhase', () => {
  const image: TargetObservation = {
    revisionName: 'r1',
    source: 'external_docker',
    knownImage: 'nginx:1',
    buildImage: 'registry/ns/app:r1',
    build: { state: 'absent' },
    rollout: { complete: false },
  };
  const codehost: TargetObservation = { ...image, source: 'codehost', knownImage: undefined };

  it.each([
    ['an image revision not applied yet', image, 'AWAITING_DEPLOY', 'nginx:1'],
    ['an image revision rolling out', { ...image, rollout: { revision: 'r1', complete: false } }, 'DEPLOYING', 'nginx:1'],
    ['an image revision rolled out', { ...image, rollout: { revision: 'r1', complete: true } }, 'DEPLOYED', 'nginx:1'],
    [
      'a deployed revision whose pods roll again',
      { ...image, recordedPhase: 'DEPLOYED', serving: true, rollout: { revision: 'r1', complete: false } },
      'DEPLOYED',
      'nginx:1',
    ],
    [
      'a deployed revision back after another served',
      { ...image, recordedPhase: 'DEPLOYED', serving: false, rollout: { revision: 'r1', complete: false } },
      'DEPLOYING',
      'nginx:1',
    ],
    ['a rollout past its deadline', { ...image, rollout: { revision: 'r1', complete: false, failed: 'slow' } }, 'DEPLOY_FAILED', 'nginx:1'],
    [
      'a rollout whose pod cannot pull',
      {
        ...image,
        rollout: { revision: 'r1', complete: false },
        podProblem: { reason: 'ImagePullBackOff', message: 'pod p, container app: ImagePullBackOff' },
      },
      'DEPLOY_FAILED',
      'nginx:1',
    ],
    [
      'a rolled-out revision with a crashing extra pod',
      { ...image, rollout: { revision: 'r1', complete: true }, podProblem: { reason: 'CrashLoopBackOff', message: 'm' } },
      'DEPLOYED',
      'nginx:1',
    ],
    ['a codehost revision without a Job', codehost, 'AWAITING_BUILD', undefined],
    ['a codehost revision with a queued Job', { ...codehost, build: { state: 'queued' } }, 'QUEUED', undefined],
    ['a codehost revision building', { ...codehost, build: { state: 'running' } }, 'BUILDING', undefined],
    ['a codehost revision whose build failed', { ...codehost, build: { state: 'failed', message: 'exit 1' } }, 'BUILD_FAILED', undefined],
    ['a codehost revision built', { ...codehost, build: { state: 'succeeded' } }, 'AWAITING_DEPLOY', 'registry/ns/app:r1'],
    [
      'a codehost revision built and pushed by digest',
      { ...codehost, build: { state: 'succeeded', digest: `sha256:${'a'.repeat(64)}` } },
      'AWAITING_DEPLOY',
      `registry/ns/app:r1@sha256:${'a'.repeat(64)}`,
    ],
    [
      'a codehost revision with a recorded image',
      { ...codehost, knownImage: 'registry/ns/app:r1' },
      'AWAITING_DEPLOY',
      'registry/ns/app:r1',
    ],
    ['an image revision without an image', { ...image, knownImage: undefined }, 'CREATE_FAILED', undefined],
  ] as const)('%s -> %s', (_, observation, phase, expectedImage) => {
    const result = targetPhase(observation as TargetObservation);
    expect(result.phase).toBe(phase);
    expect(result.image).toBe(expectedImage);
  });

  it('ends INTERRUPTED, whatever the build and rollout show, once asked to stop on its way', () => {
    for (const observation of [image, { ...codehost, build: { state: 'running' as const, step: 'image' } }]) {
      expect(targetPhase({ ...observation, interruptedAt: '2026-11-28T12:00:00Z' })).toEqual({
        phase: 'INTERRUPTED',
        reason: 'Interrupted',
        message:
          'Interrupted at 2026-11-28T12:00:00Z: its build and rollout were stopped, and the revision that served before keeps serving.',
      });
    }
  });

  it('takes an interruption only from a revision still on its way (interruptionOf)', () => {
    const asked = { annotations: { 'berth.dev/interrupted-at': '2026-11-28T12:00:00Z' } };
    expect(interruptionOf({ metadata: asked, status: { status: 'BUILDING' } })).toBe('2026-11-28T12:00:00Z');
    expect(interruptionOf({ metadata: asked, status: { status: 'INTERRUPTED' } })).toBe('2026-11-28T12:00:00Z');
    expect(interruptionOf({ metadata: asked, status: { status: 'DEPLOYED' } })).toBeUndefined();
    expect(interruptionOf({ metadata: asked, status: { status: 'BUILD_FAILED' } })).toBeUndefined();
    expect(interruptionOf({ metadata: {}, status: { status: 'BUILDING' } })).toBeUndefined();
  });

  it('holds a revision DEPLOYING while its pre-deploy command runs, and fails it with the command when it fails', () => {
    const at = (preDeploy: TargetObservation['preDeploy']) => targetPhase({ ...image, preDeploy });
    expect(at({ state: 'queued' })).toMatchObject({
      phase: 'DEPLOYING',
      reason: 'PreDeploy',
      message: 'The pre-deploy command is starting.',
    });
    expect(at({ state: 'running', step: 'wait-for-postgres' })).toMatchObject({
      phase: 'DEPLOYING',
      message: 'The pre-deploy command waits for its backing services: step "wait-for-postgres".',
    });
    expect(at({ state: 'running', step: 'pre-deploy' })).toMatchObject({
      phase: 'DEPLOYING',
      message: 'The pre-deploy command is running.',
    });
    expect(at({ state: 'failed', step: 'pre-deploy', message: 'step "pre-deploy" exited with code 3:\nno such table' })).toEqual({
      phase: 'DEPLOY_FAILED',
      reason: 'PreDeployFailed',
      message: 'The pre-deploy command failed: step "pre-deploy" exited with code 3:\nno such table',
      image: image.knownImage,
    });
    // Once it succeeded, the rollout decides, as without one.
    expect(at({ state: 'succeeded' })).toEqual(targetPhase(image));
  });

  it('holds a migrating revision DEPLOYING while its backup is taken, before its pre-deploy command', () => {
    const at = (phase: 'Pending' | 'Running' | 'Completed' | 'Failed', policy: 'required' | 'best_effort' = 'required') =>
      targetPhase({ ...image, preDeploy: { state: 'queued' }, backup: { name: 'r2-backup', phase, message: 'bucket gone', policy } });
    expect(at('Pending')).toMatchObject({
      phase: 'DEPLOYING',
      reason: 'BackingUp',
      message: 'Backing up the database before this revision migrates it: DatabaseBackup r2-backup is Pending.',
    });
    expect(at('Running').reason).toBe('BackingUp');
    expect(at('Failed')).toMatchObject({
      phase: 'DEPLOY_FAILED',
      reason: 'BackupFailed',
      message: expect.stringContaining('The backup before this revision (DatabaseBackup r2-backup) failed: bucket gone.'),
    });
    // Completed, or failed where the policy lets it go on: the pre-deploy command is next.
    expect(at('Completed').reason).toBe('PreDeploy');
    expect(at('Failed', 'best_effort').reason).toBe('PreDeploy');
  });

  it('says why a build waits, for the builder or for its organization, and makes no image', () => {
    const waiting = targetPhase({
      ...codehost,
      build: { state: 'awaiting', message: 'BuildKit is being built', reason: 'AwaitingBuilder' },
    });
    expect(waiting).toEqual({ phase: 'AWAITING_BUILD', message: 'BuildKit is being built', reason: 'AwaitingBuilder' });
    const queued = targetPhase({ ...codehost, build: { state: 'awaiting', message: '2 builds run', reason: 'BuildQueued' } });
    expect(queued).toEqual({ phase: 'AWAITING_BUILD', message: '2 builds run', reason: 'BuildQueued' });
  });

  it("gives the kubelet's reason for a pod that cannot serve", () => {
    const result = targetPhase({
      ...image,
      rollout: { revision: 'r1', complete: false },
      podProblem: { reason: 'CrashLoopBackOff', message: 'pod p, container app: CrashLoopBackOff' },
    });
    expect(result).toMatchObject({
      phase: 'DEPLOY_FAILED',
      reason: 'CrashLoopBackOff',
      message: 'The revision cannot serve: pod p, container app: CrashLoopBackOff',
    });
  });

  it("waits for capacity while no node fits, saying why, and fails with the scheduler's words at the deadline", () => {
    const wait = { reason: 'Unschedulable', message: 'pod p: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.' };
    expect(targetPhase({ ...image, rollout: { revision: 'r1', complete: false }, podWait: wait })).toMatchObject({
      phase: 'DEPLOYING',
      reason: 'WaitingForCapacity',
      message: 'Waiting for capacity: pod p: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.',
    });
    expect(
      targetPhase({
        ...image,
        rollout: { revision: 'r1', complete: false, failed: 'ReplicaSet "web-1" has timed out progressing.' },
        podWait: wait,
      }),
    ).toMatchObject({
      phase: 'DEPLOY_FAILED',
      reason: 'ProgressDeadlineExceeded',
      message:
        'The rollout failed: ReplicaSet "web-1" has timed out progressing.; pod p: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.',
    });
  });

  it("waits for room in the organization's quota while its pods cannot be created, with the quota's words", () => {
    const quota =
      'pods "web-1-abc" is forbidden: exceeded quota: berth-organization, requested: requests.cpu=4, used: requests.cpu=14, limited: requests.cpu=16';
    const deployment: V1Deployment = {
      metadata: { generation: 2 },
      spec: { replicas: 1, selector: {}, template: { metadata: { labels: { [revisionLabel]: 'r1' } } } },
      status: {
        observedGeneration: 2,
        replicas: 0,
        conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: quota }],
      },
    };
    const rollout = rolloutOf(deployment);
    expect(rollout).toEqual({ revision: 'r1', complete: false, blocked: quota });
    expect(targetPhase({ ...image, rollout })).toMatchObject({
      phase: 'DEPLOYING',
      reason: 'WaitingForQuota',
      message: `Waiting for room to create its pods: ${quota}`,
    });
    expect(targetPhase({ ...image, rollout: { ...rollout, failed: 'ReplicaSet "web-1" has timed out progressing.' } })).toMatchObject({
      phase: 'DEPLOY_FAILED',
      message: `The rollout failed: ReplicaSet "web-1" has timed out progressing.; ${quota}`,
    });
  });

  it('says why a build failed', () => {
    expect(targetPhase({ ...codehost, build: { state: 'failed', message: 'BackoffLimitExceeded' } }).message).toContain(
      'BackoffLimitExceeded',
    );
    expect(targetPhase({ ...codehost, build: { state: 'running', step: 'image', commit: 'c'.repeat(40) } })).toMatchObject({
      message: 'The build is running: step "image".',
      repoCommitSha: 'c'.repeat(40),
    });
  });
});

describe('bypassedPhase', () => {
  it.each([
    ['DEPLOYED', false, undefined],
    ['BUILD_FAILED', false, undefined],
    ['BUILDING', false, 'INTERRUPTED'],
    ['DEPLOYING', false, 'INTERRUPTED'],
    [undefined, false, 'INTERRUPTED'],
    ['AWAITING_DEPLOY', true, 'SKIPPED'],
    [undefined, true, 'SKIPPED'],
    ['DEPLOYED', true, undefined],
  ])('%s (skipped by a pin: %s) -> %s', (recorded, skipped, expected) => {
    expect(bypassedPhase(recorded, skipped)).toBe(expected);
  });
});

import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildState, builtImageReference } from './build-state.ts';

const job = (status: V1Job['status']): V1Job => ({ metadata: { name: 'j' }, status });
const complete = job({ conditions: [{ type: 'Complete', status: 'True' }] });
const failed = job({
  conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }],
});
const commit = 'c0ffee'.padEnd(40, '0');
const digest = `sha256:${'d'.repeat(64)}`;

const exited = (name: string, exitCode: number, message?: string, reason?: string): V1ContainerStatus => ({
  name,
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { terminated: { exitCode, ...(message === undefined ? {} : { message }), ...(reason ? { reason } : {}) } },
});
const running = (name: string): V1ContainerStatus => ({
  name,
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { running: {} },
});
const pod = (name: string, created: string, init: V1ContainerStatus[], main: V1ContainerStatus[] = []): V1Pod => ({
  metadata: { name, creationTimestamp: created as unknown as Date },
  status: { initContainerStatuses: init, containerStatuses: main },
});

describe('buildState', () => {
  it.each([
    ['no Job', undefined, [], { state: 'absent' }],
    ['a Job not started', job({}), [], { state: 'queued' }],
    ['an active Job', job({ active: 1 }), [], { state: 'running' }],
    ['an active Job cloning', job({ active: 1 }), [pod('p', '1', [running('clone')])], { state: 'running', step: 'clone' }],
    [
      'an active Job building its image',
      job({ active: 1 }),
      [pod('p', '1', [exited('clone', 0, `${commit}\n`), exited('commands', 0, '')], [running('image')])],
      { state: 'running', step: 'image', commit },
    ],
    ['a complete Job whose pod is gone', complete, [], { state: 'succeeded' }],
    [
      'a complete Job: the commit and the pushed digest',
      complete,
      [
        pod(
          'p',
          '1',
          [exited('clone', 0, commit), exited('commands', 0)],
          [exited('image', 0, JSON.stringify({ 'containerimage.digest': digest, 'image.name': 'r/n/d:x' }))],
        ),
      ],
      { state: 'succeeded', commit, digest },
    ],
    [
      'a complete Job whose messages are not what a step writes',
      complete,
      [pod('p', '1', [exited('clone', 0, 'not a sha')], [exited('image', 0, 'not json')])],
      { state: 'succeeded' },
    ],
    [
      'a failed Job whose pod is gone',
      failed,
      [],
      { state: 'failed', message: 'BackoffLimitExceeded: Job has reached the specified backoff limit' },
    ],
  ])('%s', (_, input, pods, expected) => {
    expect(buildState(input, pods)).toEqual(expected);
  });

  it('names the failed step and keeps the last lines of its log, from the newest attempt', () => {
    const log = Array.from({ length: 15 }, (_, i) => `line ${i + 1}`).join('\n');
    const pods = [
      pod('old', '2026-01-01T00:00:00Z', [exited('clone', 128, 'fatal: old attempt')]),
      pod('new', '2026-01-01T00:01:00Z', [exited('clone', 0, commit), exited('commands', 2, `${log}\n`)]),
    ];
    const state = buildState(failed, pods);
    expect(state).toMatchObject({ state: 'failed', step: 'commands', commit });
    const message = (state as { message: string }).message;
    expect(message).toMatch(/^step "commands" exited with code 2:\nline 6\n/);
    expect(message).toContain('line 15');
    expect(message).not.toContain('line 5\n');
  });

  it('hides what the redaction names', () => {
    const state = buildState(failed, [pod('p', '1', [exited('clone', 128, 'fatal: token s3cr3t-token refused')])], (t) =>
      t.replaceAll('s3cr3t-token', '***'),
    );
    expect(state).toEqual({ state: 'failed', step: 'clone', message: 'step "clone" exited with code 128:\nfatal: token *** refused' });
  });

  it('says a killed step was killed', () => {
    const state = buildState(failed, [pod('p', '1', [exited('clone', 0, commit)], [exited('image', 137, '', 'OOMKilled')])]);
    expect(state).toMatchObject({ message: 'step "image" exited with code 137 (OOMKilled)' });
  });
});

describe('builtImageReference', () => {
  it('pins by digest when the build said it', () => {
    expect(builtImageReference('r/n/d:x', { state: 'succeeded', digest })).toBe(`r/n/d:x@${digest}`);
    expect(builtImageReference('r/n/d:x', { state: 'succeeded' })).toBe('r/n/d:x');
  });
});

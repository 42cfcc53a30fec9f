import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../../api/index.ts';
import { awaitedInput } from './choose-revisions.ts';

const created = '2026-11-26T10:00:00Z';
const at = (seconds: number) => new Date(Date.parse(created) + seconds * 1000);
const spec = (members: Partial<Deployment['spec']>): Deployment['spec'] => ({
  source: 'internal_source',
  sourceConfig: {},
  sourceRevisionConfig: {},
  ...members,
});

describe('awaitedInput', () => {
  it('awaits a first source archive or image until the deadline, and says when to look again', () => {
    expect(awaitedInput(spec({}), created, at(10), 60_000)).toMatchObject({
      problem: { reason: 'AwaitingSource', awaited: true },
      recheckAfterMs: 50_000,
    });
    expect(awaitedInput(spec({ source: 'internal_docker' }), created, at(0), 60_000)).toMatchObject({
      problem: { reason: 'AwaitingImage', awaited: true },
    });
  });

  it('stalls once the deadline passed, saying what never came', () => {
    const late = awaitedInput(spec({}), created, at(1800), 1_800_000);
    expect(late).toEqual({
      problem: {
        reason: 'SourceNeverArrived',
        message: expect.stringMatching(/^No source archive came within 30 min of the deployment's creation/),
      },
    });
    expect(awaitedInput(spec({ source: 'internal_docker' }), created, at(90), 60_000)?.problem).toMatchObject({
      reason: 'ImageNeverArrived',
      message: expect.stringContaining('within 60 s'),
    });
  });

  it('awaits nothing once the input is there, or for the other sources', () => {
    expect(
      awaitedInput(spec({ sourceRevisionConfig: { sourceTarballPath: `sources/${'a'.repeat(32)}.tar.gz` } }), created, at(9999), 60_000),
    ).toBeUndefined();
    expect(
      awaitedInput(spec({ source: 'external_docker', sourceRevisionConfig: { imageUri: 'x' } }), created, at(9999), 60_000),
    ).toBeUndefined();
  });
});

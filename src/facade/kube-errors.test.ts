// API server refusals as the client's errors, and the conflict retry: pure.
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../runtime/kube-request.ts';
import { HttpError } from './errors.ts';
import { clientErrorFromKube, retryOnConflict } from './kube-errors.ts';

function mapped(error: unknown): HttpError {
  try {
    clientErrorFromKube(error, { notFound: 'Deployment ID x not found.', alreadyExists: 'Deployment x already exists.' });
  } catch (thrown) {
    return thrown as HttpError;
  }
  throw new Error('not thrown');
}

describe('clientErrorFromKube', () => {
  it.each([
    [new KubeApiError(404, 'NotFound', 'deployments "x" not found'), 404, 'Deployment ID x not found.'],
    [new KubeApiError(409, 'AlreadyExists', 'deployments "x" already exists'), 409, 'Deployment x already exists.'],
    [new KubeApiError(409, 'Conflict', 'the object has been modified'), 409, 'The object changed while it was being written; try again.'],
    [new KubeApiError(400, 'BadRequest', 'bad'), 400, 'bad'],
    [new KubeApiError(429, 'TooManyRequests', 'slow down'), 503, 'The Kubernetes API server is busy; try again.'],
  ])('maps %s', (error, status, detail) => {
    const answer = mapped(error);
    expect(answer).toBeInstanceOf(HttpError);
    expect(answer.statusCode).toBe(status);
    expect(answer.detail).toBe(detail);
  });

  it('maps an Invalid refusal (a CEL rule) to a 422 carrying the API server message', () => {
    const answer = mapped(
      new KubeApiError(
        422,
        'Invalid',
        'Deployment.berth.dev "x" is invalid: spec.source: Invalid value: "string": spec.source is immutable',
      ),
    );
    expect(answer.statusCode).toBe(422);
    expect(answer.detail).toEqual([{ loc: ['body'], msg: expect.stringContaining('spec.source is immutable'), type: 'value_error' }]);
  });

  it('names each refused field as the wire does: renamed members snake_cased, Kubernetes-spelled ones kept', () => {
    const cause = (field: string) => ({ field, message: 'Forbidden: no', reason: 'FieldValueForbidden' });
    const answer = mapped(
      new KubeApiError(422, 'Invalid', 'invalid', [
        cause('spec.sourceConfig.resourceSpec.sidecars[0].securityContext.capabilities.add[1]'),
        cause('spec.sourceConfig.resourceSpec.labels.someLabel'),
        cause('spec.tokenEndpointAuthMethod'),
        cause('spec.notDeclaredAnywhere.deeperMember'),
      ]),
    );
    expect((answer.detail as { loc: unknown[] }[]).map((problem) => problem.loc)).toEqual([
      ['body', 'source_config', 'resource_spec', 'sidecars', 0, 'securityContext', 'capabilities', 'add', 1],
      ['body', 'source_config', 'resource_spec', 'labels', 'someLabel'],
      ['body', 'token_endpoint_auth_method'],
      ['body', 'not_declared_anywhere', 'deeper_member'],
    ]);
  });

  it('leaves other errors alone (they are 500s, logged)', () => {
    const boom = new Error('boom');
    expect(mapped(boom)).toBe(boom);
    const internal = new KubeApiError(500, 'InternalError', 'etcd');
    expect(mapped(internal)).toBe(internal);
  });
});

describe('retryOnConflict', () => {
  it('runs again after a Conflict, and gives up after the attempts', async () => {
    let runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs += 1;
        if (runs < 3) throw new KubeApiError(409, 'Conflict', 'modified');
        return 'written';
      }),
    ).resolves.toBe('written');
    expect(runs).toBe(3);

    let always = 0;
    await expect(
      retryOnConflict(async () => {
        always += 1;
        throw new KubeApiError(409, 'Conflict', 'modified');
      }, 3),
    ).rejects.toMatchObject({ code: 409 });
    expect(always).toBe(3);
  });

  it('does not retry other errors', async () => {
    let runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs += 1;
        throw new KubeApiError(422, 'Invalid', 'no');
      }),
    ).rejects.toMatchObject({ code: 422 });
    expect(runs).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { boundedName, buildJobName, childNames, dnsLabelBase, revisionName } from './child-names.ts';

const digest = 'abcdef0123456789'.repeat(4);

describe('revisionName', () => {
  it('is <deployment>-<first 10 hex of the digest>', () => {
    expect(revisionName('my-app', digest)).toBe('my-app-abcdef0123');
  });

  it('shortens long names with a hash and stays a DNS label', () => {
    const long = 'a'.repeat(80);
    const name = revisionName(long, digest);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(name.endsWith('-abcdef0123')).toBe(true);
  });

  it('keeps two long names that share a prefix apart', () => {
    expect(revisionName(`${'a'.repeat(70)}x`, digest)).not.toBe(revisionName(`${'a'.repeat(70)}y`, digest));
  });

  it('is deterministic', () => {
    expect(revisionName('x'.repeat(100), digest)).toBe(revisionName('x'.repeat(100), digest));
  });
});

describe('child names', () => {
  it.each([
    ['my-app', 'my-app', 'my-app-queue', 'my-app-postgres', 'my-app-redis'],
    ['api.v2', 'api-v2', 'api-v2-queue', 'api-v2-postgres', 'api-v2-redis'],
    ['2fast', 'b-2fast', 'b-2fast-queue', 'b-2fast-postgres', 'b-2fast-redis'],
  ])('%s', (deployment, application, queueWorker, postgres, redis) => {
    const names = childNames(deployment);
    expect(names).toMatchObject({
      application,
      queueWorker,
      postgres,
      redis,
      tracingProject: deployment,
      secrets: `${deployment}-secrets`,
    });
  });

  it('fits the StatefulSet limit and DNS labels for long names', () => {
    const names = childNames('n'.repeat(200));
    expect(names.postgres.length).toBeLessThanOrEqual(52);
    expect(names.application.length).toBeLessThanOrEqual(63);
    expect(buildJobName(revisionName('n'.repeat(200), digest)).length).toBeLessThanOrEqual(63);
  });

  it('boundedName leaves short names alone', () => {
    expect(boundedName('abc', '-x')).toBe('abc-x');
    expect(dnsLabelBase('abc')).toBe('abc');
  });
});

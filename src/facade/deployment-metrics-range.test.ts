import { describe, expect, it } from 'vitest';
import { revisionMarkers } from './deployment-metrics-range.ts';
import { metricsRangeQuerySchema } from './wire-schemas.ts';
import type { RevisionResponse } from './wire-schemas.ts';

const revision = (name: string, createdAt: string) =>
  ({ id: `id-${name}`, name, status: 'DEPLOYED', created_at: createdAt }) as RevisionResponse;

describe('metrics over a range', () => {
  it('takes start, end and step together, a later end, and at most 1000 points', () => {
    expect(metricsRangeQuerySchema.parse({})).toEqual({});
    const whole = { start: '2026-12-03T10:00:00Z', end: '2026-12-03T11:00:00Z', step: '60' };
    expect(metricsRangeQuerySchema.parse(whole)).toEqual({ ...whole, step: 60 });
    const issues = (query: object) =>
      metricsRangeQuerySchema.safeParse(query).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ start: whole.start })).toEqual(['end: start, end and step come together', 'step: start, end and step come together']);
    expect(issues({ ...whole, end: whole.start })).toEqual(['end: must be after start']);
    expect(issues({ ...whole, end: '2026-12-04T11:00:00Z', step: '5' })).toEqual(['step: gives more than 1000 points: take a longer step']);
    expect(issues({ ...whole, step: '1' })?.[0]).toMatch(/^step: /);
    expect(issues({ ...whole, start: 'yesterday' })?.[0]).toMatch(/^start: /);
  });

  it('marks the revisions made within the range, oldest first', () => {
    const range = { start: new Date('2026-12-03T10:00:00Z'), end: new Date('2026-12-03T11:00:00Z'), stepSeconds: 60 };
    const revisions = [
      revision('c', '2026-12-03T10:50:00Z'),
      revision('b', '2026-12-03T10:10:00Z'),
      revision('a', '2026-12-03T09:00:00Z'),
      revision('d', '2026-12-03T11:30:00Z'),
    ];
    expect(revisionMarkers(revisions, range).map((marker) => marker.name)).toEqual(['b', 'c']);
    expect(revisionMarkers(revisions, range)[0]).toEqual({ id: 'id-b', name: 'b', status: 'DEPLOYED', created_at: '2026-12-03T10:10:00Z' });
  });
});

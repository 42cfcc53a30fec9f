import { describe, expect, it } from 'vitest';
import { statusOnlyUpdate } from './status-only.ts';
import type { KubeObject } from './types.ts';

const base: KubeObject = {
  apiVersion: 'berth.dev/v1alpha1',
  kind: 'Deployment',
  metadata: {
    name: 'shop',
    namespace: 'ns',
    generation: 2,
    resourceVersion: '10',
    labels: { team: 'a' },
    finalizers: ['berth.dev/cleanup'],
  },
  spec: { image: 'a' },
  status: { status: 'DEPLOYING' },
} as KubeObject;
const changed = (patch: { metadata?: object; spec?: object; status?: object }): KubeObject =>
  ({ ...base, ...patch, metadata: { ...base.metadata, resourceVersion: '11', ...patch.metadata } }) as KubeObject;

describe('statusOnlyUpdate', () => {
  it('is a change of status alone, whatever the resourceVersion', () => {
    expect(statusOnlyUpdate(changed({ status: { status: 'DEPLOYED' } }), base)).toBe(true);
  });

  it.each([
    ['a spec change (a new generation)', { metadata: { generation: 3 }, spec: { image: 'b' } }],
    ['a label', { metadata: { labels: { team: 'b' } } }],
    ['an annotation', { metadata: { annotations: { 'berth.dev/redeploy': '1' } } }],
    ['a finalizer removed', { metadata: { finalizers: [] } }],
    ['an owner', { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }] } }],
    ['the deletion', { metadata: { deletionTimestamp: '2026-11-25T10:00:00Z' } }],
  ])('is not %s', (_, patch) => {
    expect(statusOnlyUpdate(changed(patch), base)).toBe(false);
  });

  it('never takes an object without a generation for one', () => {
    const plain = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', resourceVersion: '1' } } as KubeObject;
    expect(statusOnlyUpdate({ ...plain, metadata: { ...plain.metadata, resourceVersion: '2' } } as KubeObject, plain)).toBe(false);
  });
});

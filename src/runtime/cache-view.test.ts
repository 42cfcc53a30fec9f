import { describe, expect, it } from 'vitest';
import { fieldsOwnedBy, ownedFieldsView, projectFields, stripManagedFields, type FieldSet } from './cache-view.ts';
import type { KubeObject } from './types.ts';

// A Service as the API server returns it after `berth` applied name, labels, selector and one port, and
// `kubectl-edit` later added a label and a second port.
function service(): KubeObject & Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'web',
      namespace: 'team-a',
      uid: 'u1',
      resourceVersion: '42',
      labels: { app: 'web', team: 'a' },
      annotations: { 'berth.dev/applied-hash': 'abc' },
      managedFields: [
        {
          manager: 'berth',
          operation: 'Apply',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:annotations': { 'f:berth.dev/applied-hash': {} } },
            'f:spec': {
              'f:selector': {},
              'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:targetPort': {} } },
            },
          },
        },
        {
          manager: 'kubectl-edit',
          operation: 'Update',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { 'f:team': {} } },
            'f:spec': { 'f:ports': { 'k:{"port":81,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } },
          },
        },
        {
          manager: 'berth',
          operation: 'Update',
          subresource: 'status',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:status': { 'f:loadBalancer': {} } },
        },
      ],
    },
    spec: {
      clusterIP: '10.0.0.12',
      clusterIPs: ['10.0.0.12'],
      ipFamilies: ['IPv4'],
      selector: { app: 'web', tier: 'front' },
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
        { port: 81, protocol: 'TCP', targetPort: 81 },
      ],
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  };
}

describe('fieldsOwnedBy', () => {
  it('merges the main-resource entries of one manager and ignores its status subresource', () => {
    const owned = fieldsOwnedBy(service(), 'berth')!;
    expect(Object.keys(owned)).toEqual(['f:metadata', 'f:spec']);
    expect(fieldsOwnedBy(service(), 'nobody')).toBeUndefined();
  });

  it('unions two entries of the same manager', () => {
    const object = service();
    object.metadata!.managedFields!.push({
      manager: 'berth',
      operation: 'Update',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:type': {} } },
    });
    expect(Object.keys(fieldsOwnedBy(object, 'berth')!['f:spec']!)).toEqual(['f:selector', 'f:ports', 'f:type']);
  });
});

describe('projectFields', () => {
  it('keeps named fields, list items by key, and owned nodes whole', () => {
    const fields: FieldSet = fieldsOwnedBy(service(), 'berth')!;
    expect(projectFields(service().spec, fields['f:spec']!)).toEqual({
      selector: { app: 'web', tier: 'front' },
      ports: [{ name: 'http', port: 80, targetPort: 8080 }],
    });
  });

  it('matches set items by value and list items by index', () => {
    expect(projectFields(['a', 'b', 'c'], { 'v:"c"': {}, 'v:"a"': {} })).toEqual(['a', 'c']);
    expect(projectFields([{ x: 1 }, { x: 2 }], { 'i:1': {} })).toEqual([{ x: 2 }]);
    expect(projectFields([{ x: 1 }], { 'k:not json': {} })).toEqual([]);
  });

  it('returns scalars and unnamed nodes as they are', () => {
    expect(projectFields(3, { 'f:a': {} })).toBe(3);
    expect(projectFields({ a: 1 }, { '.': {} })).toEqual({ a: 1 });
  });
});

describe('ownedFieldsView', () => {
  it('keeps the identity, the whole metadata without managedFields, the owned fields and the extra paths', () => {
    const view = ownedFieldsView('berth', ['spec.type', 'status.missing'])(service()) as Record<string, unknown>;
    expect(view).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web',
        namespace: 'team-a',
        uid: 'u1',
        resourceVersion: '42',
        labels: { app: 'web', team: 'a' },
        annotations: { 'berth.dev/applied-hash': 'abc' },
      },
      spec: { selector: { app: 'web', tier: 'front' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], type: 'ClusterIP' },
    });
  });

  it('keeps only identity and metadata of an object the manager owns nothing of', () => {
    expect(Object.keys(ownedFieldsView('someone-else')(service()))).toEqual(['apiVersion', 'kind', 'metadata']);
  });

  it('keeps an object whole when the API server sent no managedFields', () => {
    const object = service();
    delete object.metadata!.managedFields;
    expect(ownedFieldsView('berth')(structuredClone(object))).toEqual(object);
  });
});

describe('stripManagedFields', () => {
  it('drops managedFields and nothing else', () => {
    const stripped = stripManagedFields(service());
    expect(stripped.metadata?.managedFields).toBeUndefined();
    expect(stripped.metadata?.labels).toEqual({ app: 'web', team: 'a' });
    expect((stripped as Record<string, unknown>).spec).toEqual(service().spec);
  });
});

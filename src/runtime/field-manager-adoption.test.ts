import { describe, expect, it } from 'vitest';
import { adoptedManagedFields } from './field-manager-adoption.ts';

const status = (manager: string, fields: Record<string, unknown>, time: string) => ({
  manager,
  operation: 'Update',
  apiVersion: 'berth.dev/v1alpha1',
  subresource: 'status',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:status': fields },
  time: new Date(time),
});
const spec = (manager: string) => ({
  manager,
  operation: 'Update',
  apiVersion: 'berth.dev/v1alpha1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:name': {} } },
  time: new Date('2026-01-01T00:00:00Z'),
});

describe('adoptedManagedFields', () => {
  it('is undefined when no entry belongs to a legacy manager: nothing to write', () => {
    expect(
      adoptedManagedFields([status('berth', { 'f:issuer': {} }, '2026-01-01T00:00:00Z'), spec('kubectl-create')], {
        legacy: [''],
        manager: 'berth',
      }),
    ).toBeUndefined();
  });

  it('renames a legacy entry when the manager has none in that slot', () => {
    const adopted = adoptedManagedFields([spec('kubectl-create'), status('', { 'f:issuer': {} }, '2026-01-01T00:00:00Z')], {
      legacy: [''],
      manager: 'berth',
    });
    expect(adopted?.map((entry) => [entry.manager, entry.subresource])).toEqual([
      ['kubectl-create', undefined],
      ['berth', 'status'],
    ]);
  });

  it("folds a legacy entry into the manager's entry of the same slot: the union of fields, the later time", () => {
    const adopted = adoptedManagedFields(
      [
        status('berth', { 'f:conditions': {} }, '2026-01-02T00:00:00Z'),
        status('', { 'f:issuer': {}, 'f:conditions': {} }, '2026-01-03T00:00:00Z'),
      ],
      { legacy: [''], manager: 'berth' },
    );
    expect(adopted).toHaveLength(1);
    expect(adopted![0]!.fieldsV1).toEqual({ 'f:status': { 'f:conditions': {}, 'f:issuer': {} } });
    expect(adopted![0]!.time).toEqual(new Date('2026-01-03T00:00:00Z'));
  });

  it('leaves other subresources, other API versions and Apply entries where they are', () => {
    const apply = { ...status('', { 'f:issuer': {} }, '2026-01-01T00:00:00Z'), operation: 'Apply' };
    const older = { ...status('', { 'f:issuer': {} }, '2026-01-01T00:00:00Z'), apiVersion: 'berth.dev/v1alpha0' };
    const adopted = adoptedManagedFields([spec(''), apply, older, status('berth', {}, '2026-01-01T00:00:00Z')], {
      legacy: [''],
      manager: 'berth',
      subresource: 'status',
    });
    expect(adopted?.map((entry) => [entry.manager, entry.operation, entry.apiVersion, entry.subresource])).toEqual([
      ['', 'Update', 'berth.dev/v1alpha1', undefined],
      ['', 'Apply', 'berth.dev/v1alpha1', 'status'],
      ['berth', 'Update', 'berth.dev/v1alpha0', 'status'],
      ['berth', 'Update', 'berth.dev/v1alpha1', 'status'],
    ]);
  });

  it("moves the manager's own Update entries, and legacy ones, into its Apply entry when it moved to server-side apply", () => {
    const applied = { ...status('berth', { 'f:conditions': {} }, '2026-01-02T00:00:00Z'), operation: 'Apply' };
    const adopted = adoptedManagedFields(
      [
        spec('berth'),
        status('berth', { 'f:issuer': {} }, '2026-01-01T00:00:00Z'),
        applied,
        status('', { 'f:tokenEndpoint': {} }, '2026-01-03T00:00:00Z'),
      ],
      { legacy: [''], manager: 'berth', subresource: 'status', operation: 'Apply' },
    );
    expect(adopted).toEqual([
      spec('berth'),
      {
        ...applied,
        fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:issuer': {}, 'f:tokenEndpoint': {} } },
        time: new Date('2026-01-03T00:00:00Z'),
      },
    ]);
    // Once moved, there is nothing left to move.
    expect(adoptedManagedFields(adopted!, { legacy: [''], manager: 'berth', subresource: 'status', operation: 'Apply' })).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { quotaExcess } from './quota-fit.ts';

describe('quotaExcess', () => {
  const quota = { hard: { 'requests.cpu': '16', 'requests.memory': '32Gi', pods: '100' }, requestScale: 1 };

  it('says nothing without a quota, or for a deployment whose fewest pods fit it', () => {
    expect(quotaExcess({ resourceSpec: { cpu: 64 } }, undefined)).toBeUndefined();
    expect(quotaExcess({ resourceSpec: { cpu: 8, minScale: 2 } }, quota)).toBeUndefined();
    // Its most replicas may wait for room; only its fewest must fit.
    expect(quotaExcess({ resourceSpec: { cpu: 8, minScale: 1 } }, quota)).toBeUndefined();
  });

  it("names the field and the quota's numbers for one that could never run", () => {
    expect(quotaExcess({ resourceSpec: { cpu: 64 } }, quota)).toEqual({
      field: 'cpu',
      message:
        "asks for 64 CPU for its 1 replica at the fewest, more than the organization's quota allows in all (requests.cpu=16): it could never run",
    });
    expect(quotaExcess({ resourceSpec: { memoryMb: 20_000, minScale: 2 } }, quota)?.field).toBe('memoryMb');
    expect(quotaExcess({ resourceSpec: { cpu: 0.01, memoryMb: 1, minScale: 101 } }, quota)?.field).toBe('minScale');
  });

  it("counts a named size's figures where the spec sets none", () => {
    const small = { hard: { 'requests.cpu': '1500m' }, requestScale: 1 };
    expect(quotaExcess({ resourceSpec: { size: 'medium' } }, small)).toBeUndefined();
    expect(quotaExcess({ resourceSpec: { size: 'large' } }, small)?.message).toContain('asks for 2 CPU for its 1 replica');
    expect(quotaExcess({ resourceSpec: { size: 'large', cpu: 1 } }, small)).toBeUndefined();
    // The size's request held to the spec's limit, as the pod asks it.
    expect(quotaExcess({ resourceSpec: { size: 'large', cpuLimit: 1 } }, small)).toBeUndefined();
  });

  it("counts the application's defaults, the tier's fewest replicas and the installation's request scale", () => {
    const small = { hard: { cpu: '900m' }, requestScale: 1 };
    expect(quotaExcess({}, small)).toBeUndefined();
    expect(quotaExcess({ deploymentType: 'dedicated' }, small)?.message).toContain('1 CPU for its 2 replicas');
    expect(quotaExcess({ deploymentType: 'dedicated' }, { ...small, requestScale: 0.25 })).toBeUndefined();
    expect(quotaExcess({ resourceSpec: { cpu: 100 } }, { hard: { 'requests.cpu': '16' }, requestScale: 0.25 })?.message).toBe(
      "asks for 100 CPU (25 at this installation's request scale, 0.25) for its 1 replica at the fewest, more than the organization's quota allows in all (requests.cpu=16): it could never run",
    );
  });
});

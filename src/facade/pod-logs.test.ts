// A container's log as the kubelet answers it: the notice it sends for a container it has removed is
// no line of the app's.
import { describe, expect, it } from 'vitest';
import { containerLog } from './pod-logs.ts';

describe('containerLog', () => {
  it("drops the kubelet's notice for a removed container, and keeps every line of the app's", () => {
    expect(
      containerLog('unable to retrieve container logs for containerd://d419166ed954dc076d4e3c7423c7a4045a4e4f645d54e597bb2d4676b0b508fb'),
    ).toBe('');
    const lines = '2026-12-01T22:42:28.021Z listening on :8000\n2026-12-01T22:42:29.000Z unable to retrieve container logs for x\n';
    expect(containerLog(lines)).toBe(lines);
  });
});

import { describe, expect, it } from 'vitest';
import { nodeVolumeRefusal, replicaCapExcess } from './organization-policy.ts';

describe('replicaCapExcess', () => {
  it('names the first scale field above the cap, and nothing without a cap or an excess', () => {
    expect(replicaCapExcess({ minScale: 1, maxScale: 9, queueMaxScale: 20 }, 5)).toEqual({
      field: 'maxScale',
      value: 9,
      message: "must be at most 5: this installation's cap on one deployment's replicas",
    });
    expect(replicaCapExcess({ minScale: 1, maxScale: 5, queueMaxScale: 6 }, 5)?.field).toBe('queueMaxScale');
    expect(replicaCapExcess({ maxScale: 5 }, 5)).toBeUndefined();
    expect(replicaCapExcess({ maxScale: 10_000 }, undefined)).toBeUndefined();
    expect(replicaCapExcess(undefined, 5)).toBeUndefined();
  });
});

describe('nodeVolumeRefusal', () => {
  const allowed = { nfsServers: ['nfs.corp.example'], csiDrivers: ['secrets-store.csi.k8s.io'] };
  const volumes = (...list: { nfs?: Record<string, unknown>; csi?: Record<string, unknown>; [source: string]: unknown }[]) => ({
    volumes: list.map((v, i) => ({ name: `v${i}`, ...v })),
  });

  it('refuses an NFS server or an inline CSI driver the installation does not list, naming the volume', () => {
    expect(nodeVolumeRefusal(volumes({ emptyDir: {} }, { nfs: { server: '10.0.0.5', path: '/' } }), allowed)).toEqual({
      path: [1, 'nfs'],
      message:
        'mounts NFS server "10.0.0.5", which this installation does not allow (the kubelet mounts it from the node, past every NetworkPolicy)',
    });
    expect(nodeVolumeRefusal(volumes({ csi: { driver: 'hostpath.csi.k8s.io' } }), allowed)?.path).toEqual([0, 'csi']);
    expect(nodeVolumeRefusal(volumes({ csi: {} }), allowed)?.message).toContain('CSI driver ""');
  });

  it('takes the listed ones, volumes that are not mounted from the node, and anything without a list', () => {
    const listed = volumes({ nfs: { server: 'nfs.corp.example', path: '/data' } }, { csi: { driver: 'secrets-store.csi.k8s.io' } });
    expect(nodeVolumeRefusal(listed, allowed)).toBeUndefined();
    expect(
      nodeVolumeRefusal(volumes({ persistentVolumeClaim: { claimName: 'data' } }, { secret: {} }), { nfsServers: [], csiDrivers: [] }),
    ).toBeUndefined();
    expect(nodeVolumeRefusal(volumes({ nfs: { server: 'anywhere', path: '/' } }), undefined)).toBeUndefined();
    expect(nodeVolumeRefusal(undefined, allowed)).toBeUndefined();
  });
});

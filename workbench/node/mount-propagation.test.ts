import { describe, expect, it } from 'vitest';
import { parseMountInfo, propagationRestores } from './mount-propagation.ts';

// A host with two mounts stacked on /dev/pts and on /dev/shm (seen on a CI machine), after the node's
// `mount --make-rshared /`; /var/lib/docker was shared before the node and must stay so.
const afterNode = parseMountInfo(`21 1 0:20 / / rw,relatime shared:1 - overlay overlay rw
24 21 0:22 / /dev rw,nosuid shared:2 - tmpfs tmpfs rw
25 24 0:23 / /dev/shm rw,relatime shared:18 - tmpfs tmpfs rw
26 24 0:24 / /dev/pts rw,relatime shared:20 - devpts devpts rw
29 26 0:26 / /dev/pts rw,relatime shared:21 - devpts devpts rw
30 25 0:27 / /dev/shm rw,relatime shared:22 - tmpfs tmpfs rw
31 21 0:28 / /proc rw,relatime shared:23 - proc proc rw
40 21 8:1 /docker /var/lib/docker rw,relatime shared:30 - ext4 /dev/vda rw
41 21 8:1 /with\\040space /mnt/with\\040space rw shared:31 - ext4 /dev/vda rw`);

describe('propagationRestores', () => {
  it('reads ids, parents, points (unescaped) and propagation', () => {
    expect(afterNode.find((m) => m.id === 41)).toEqual({ id: 41, parent: 21, mountPoint: '/mnt/with space', shared: true });
  });

  it('makes private again by path what a path names, and a covered mount with its parent, whose subtree was all private', () => {
    const privateBefore = new Set([21, 24, 25, 26, 29, 30, 31, 41]);
    expect(propagationRestores(afterNode, privateBefore)).toEqual([
      ['--make-private', '/'],
      ['--make-private', '/dev'],
      ['--make-rprivate', '/dev'],
      ['--make-private', '/dev/pts'],
      ['--make-private', '/dev/shm'],
      ['--make-private', '/proc'],
      ['--make-private', '/mnt/with space'],
    ]);
  });

  it('leaves a covered mount shared rather than make private a mount under its parent that was shared before', () => {
    const privateBefore = new Set([21, 26, 29]); // /dev and /dev/shm were shared
    expect(propagationRestores(afterNode, privateBefore)).toEqual([
      ['--make-private', '/'],
      ['--make-private', '/dev/pts'],
    ]);
  });

  it('changes nothing that was shared before or is private now', () => {
    expect(
      propagationRestores(
        afterNode.map((m) => ({ ...m, shared: m.id === 40 })),
        new Set([21, 24, 25, 26, 29, 30, 31, 41]),
      ),
    ).toEqual([]);
  });
});

// Mount propagation, read from /proc/self/mountinfo, and how to undo the node's `mount --make-rshared /`.
// A path names only the topmost mount on it: where the host stacks two mounts on one point (some hosts
// do, on /dev/pts and /dev/shm), the covered one cannot be made private again by its path, only with
// its parent's whole subtree. Mounts are told apart by their ids, which last as long as the mount. Pure
// but for reading the table.
import { readFileSync } from 'node:fs';

export interface Mount {
  id: number;
  parent: number;
  mountPoint: string;
  shared: boolean;
}

export function parseMountInfo(text: string): Mount[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const fields = line.split(' ');
      const separator = fields.indexOf('-');
      return {
        id: Number(fields[0]),
        parent: Number(fields[1]),
        mountPoint: unescapeMount(fields[4] ?? ''),
        shared: fields.slice(6, separator).some((f) => f.startsWith('shared:')),
      };
    });
}

export function mountTable(): Mount[] {
  return parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8'));
}

function unescapeMount(path: string): string {
  return path.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * The `mount` arguments that make private again each mount that was private before (`privateIds`) and
 * is shared now: `--make-private <point>` for a mount its path names; for a covered one,
 * `--make-rprivate <parent's point>` when every mount under that parent was private before (else it
 * is left shared: making it private would change a mount that was shared).
 */
export function propagationRestores(mounts: readonly Mount[], privateIds: ReadonlySet<number>): string[][] {
  const byId = new Map(mounts.map((m) => [m.id, m]));
  const isCovered = (mount: Mount) => mounts.some((other) => other.parent === mount.id && other.mountPoint === mount.mountPoint);
  const isUnder = (mount: Mount, ancestor: number): boolean => {
    for (let at = byId.get(mount.parent); at; at = at.parent === at.id ? undefined : byId.get(at.parent))
      if (at.id === ancestor) return true;
    return false;
  };
  const wasAllPrivate = (root: Mount) => privateIds.has(root.id) && mounts.every((m) => !isUnder(m, root.id) || privateIds.has(m.id));
  const restores = new Map<string, string[]>();
  for (const mount of mounts) {
    if (!mount.shared || !privateIds.has(mount.id)) continue;
    if (!isCovered(mount)) restores.set(`private ${mount.mountPoint}`, ['--make-private', mount.mountPoint]);
    else {
      const parent = byId.get(mount.parent);
      if (parent && !isCovered(parent) && wasAllPrivate(parent))
        restores.set(`rprivate ${parent.mountPoint}`, ['--make-rprivate', parent.mountPoint]);
    }
  }
  return [...restores.values()];
}

// What a node changes on its host, and how every change is undone: sysctls, mount propagation, the
// node's dummy interface, the routes that keep cluster traffic on this machine, iptables chains,
// mounts, network namespaces and cgroups. Everything the node changes is recorded in a state file
// before it is changed, so a stop, or the next start after a crash, restores the host exactly.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mountTable, propagationRestores } from './mount-propagation.ts';
import { bridgeName, clusterCidr, nodeInterface, nodeIp, registryAddress, registryReaderPort, serviceCidr } from './network.ts';
import { eventually } from '../support/poll.ts';

const run = promisify(execFile);

/** One node per machine: the kubelet and containerd have fixed host paths. */
const hostStateDir = '/run/berth-node';
const stateFile = join(hostStateDir, 'state.json');

/** Sysctls the node sets, and those the kubelet sets itself: all restored on stop. */
const sysctlsSet: Record<string, string> = {
  'net.ipv4.ip_forward': '1',
  'net.bridge.bridge-nf-call-iptables': '1',
};
const sysctlsTouchedByKubelet = ['vm.overcommit_memory', 'kernel.panic', 'kernel.panic_on_oops', 'net.ipv4.conf.all.route_localnet'];

/** Traffic to cluster addresses never follows the default route off the machine: service addresses
 * are delivered locally unless kube-proxy rewrites them, unused pod addresses are unreachable (the
 * node's /24 on the bridge is more specific). */
const guardRoutes = [
  ['local', serviceCidr, 'dev', 'lo', 'table', 'local'],
  ['unreachable', clusterCidr],
];

/** Pod traffic is forwarded whatever the FORWARD chain's policy (a Docker engine sets it to DROP). */
const forwardRules = [
  ['-s', clusterCidr, '-m', 'comment', '--comment', 'berth-node', '-j', 'ACCEPT'],
  ['-d', clusterCidr, '-m', 'comment', '--comment', 'berth-node', '-j', 'ACCEPT'],
];

/** Pods that reach the node's registry reach its read-only twin: the host pushes system images, no pod
 * (a build's RUN step) replaces one. */
const registryReaderRule = [
  '-s',
  clusterCidr,
  '-d',
  `${nodeIp}/32`,
  '-p',
  'tcp',
  '--dport',
  registryAddress.split(':')[1]!,
  '-m',
  'comment',
  '--comment',
  'berth-node',
  '-j',
  'DNAT',
  '--to-destination',
  `${nodeIp}:${registryReaderPort}`,
];

/** The masquerade rule for pod traffic that leaves the machine (`berth dev` only). */
const masqueradeRule = ['-s', clusterCidr, '!', '-d', clusterCidr, '-m', 'comment', '--comment', 'berth-node', '-j', 'MASQUERADE'];

/** Host paths the kubelet, containerd, the CNI plugins and the hostpath provisioner fix: those the node
 * makes are removed on stop; in those that were there, only the node's own entries are. */
const fixedHostPaths = ['/var/lib/kubelet', '/var/log/containers', '/var/lib/cni', '/run/containerd', '/var/run/netns'];
const hostpathVolumes = '/tmp/hostpath_pv';

export interface HostState {
  pid: number;
  dataDir: string;
  sysctls: Record<string, string>;
  /** Mount points that were private before the node made / recursively shared. */
  privateMounts: string[];
  /** The ids of those mounts (mount-propagation.ts): a covered mount has no path of its own. Absent in a state written by an earlier version. */
  privateMountIds?: number[];
  masquerade: boolean;
  /** Fixed host paths that did not exist before the node: removed on stop. */
  createdPaths: string[];
  /** nftables tables that did not exist before (iptables-nft makes them): removed on stop when empty. */
  previousTables: string[];
}

async function sh(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, { encoding: 'utf8' });
  return stdout;
}

async function quietly(command: string, args: string[]): Promise<void> {
  await run(command, args).catch(() => {});
}

/** What the machine lacks for a node, each as a sentence; empty when it can run one. */
export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (the kubelet, containerd and the network setup need it)');
  if (process.platform !== 'linux') missing.push('Linux');
  if (!existsSync('/sys/fs/cgroup/memory') && !existsSync('/sys/fs/cgroup/cgroup.controllers')) missing.push('a mounted cgroup filesystem');
  for (const [file, what] of [
    ['/usr/sbin/iptables', 'iptables (Debian package iptables)'],
    ['/usr/sbin/runc', 'runc (Debian package runc)'],
    ['/usr/lib/cni/bridge', 'the CNI plugins (Debian package containernetworking-plugins)'],
    ['/usr/bin/docker-registry', 'the registry (Debian package docker-registry)'],
    ['/usr/sbin/ip', 'ip (Debian package iproute2)'],
    ['/usr/sbin/ipset', 'ipset (Debian package ipset), for the network policy controller'],
  ] as const) {
    if (!existsSync(file)) missing.push(what);
  }
  if (process.platform === 'linux' && !existsSync('/proc/sys/net/bridge')) missing.push('the br_netfilter kernel module');
  return missing;
}

export function readHostState(): HostState | undefined {
  if (!existsSync(stateFile)) return undefined;
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8')) as HostState;
  } catch {
    return undefined;
  }
}

function writeHostState(state: HostState): void {
  mkdirSync(hostStateDir, { recursive: true });
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readSysctl(name: string): Promise<string> {
  return (await sh('sysctl', ['-n', name])).trim();
}

async function restorePropagation(state: HostState): Promise<void> {
  if (state.privateMountIds) {
    for (const args of propagationRestores(mountTable(), new Set(state.privateMountIds))) await quietly('mount', args);
    return;
  }
  const nowShared = new Set(
    mountTable()
      .filter((m) => m.shared)
      .map((m) => m.mountPoint),
  );
  for (const mountPoint of state.privateMounts) if (nowShared.has(mountPoint)) await quietly('mount', ['--make-private', mountPoint]);
}

async function nftTables(): Promise<string[]> {
  const listed = await sh('nft', ['list', 'tables']).catch(() => '');
  return listed
    .split('\n')
    .filter((line) => line.startsWith('table '))
    .map((line) => line.slice('table '.length).trim());
}

/** Records the host's state, then changes it for a node. Call only after cleanupHost. `keepVolumes`
 * leaves the provisioner's volumes in place on stop (`berth dev` keeps its data across restarts). */
export async function prepareHost(dataDir: string, options: { masquerade: boolean; keepVolumes: boolean }): Promise<void> {
  const sysctls: Record<string, string> = {};
  for (const name of [...Object.keys(sysctlsSet), ...sysctlsTouchedByKubelet]) sysctls[name] = await readSysctl(name);
  const privateBefore = mountTable().filter((m) => !m.shared);
  const [privateMounts, privateMountIds] = [privateBefore.map((m) => m.mountPoint), privateBefore.map((m) => m.id)];
  const candidates = options.keepVolumes ? fixedHostPaths : [...fixedHostPaths, hostpathVolumes];
  const createdPaths = candidates.filter((path) => !existsSync(path));
  const previousTables = await nftTables();
  writeHostState({
    pid: process.pid,
    dataDir,
    sysctls,
    privateMounts,
    privateMountIds,
    masquerade: options.masquerade,
    createdPaths,
    previousTables,
  });

  for (const [name, value] of Object.entries(sysctlsSet)) await sh('sysctl', ['-q', '-w', `${name}=${value}`]);
  // Volumes the kubelet mounts must propagate into containers.
  await sh('mount', ['--make-rshared', '/']);
  // A bridge with no ports holds the node's address: the `dummy` kernel module is not always there.
  await quietly('ip', ['link', 'add', nodeInterface, 'type', 'bridge']);
  await sh('ip', ['addr', 'replace', `${nodeIp}/32`, 'dev', nodeInterface]);
  await sh('ip', ['link', 'set', nodeInterface, 'up']);
  for (const route of guardRoutes) await sh('ip', ['route', 'replace', ...route]);
  for (const rule of forwardRules) await sh('iptables', ['-I', 'FORWARD', ...rule]);
  if (options.masquerade) await sh('iptables', ['-t', 'nat', '-A', 'POSTROUTING', ...masqueradeRule]);
  await sh('iptables', ['-t', 'nat', '-A', 'PREROUTING', ...registryReaderRule]);
}

/** Undoes everything a node did to the host, whether it stopped cleanly or died: kills what is left
 * of its pods, unmounts, removes its network setup and restores sysctls and mount propagation. Safe
 * to run twice. `kubeProxy` runs `kube-proxy --cleanup` when given. */
export async function cleanupHost(state: HostState, options: { kubeProxy?: string; containerdSocket?: string }): Promise<void> {
  await killProcessesOf(state.dataDir);
  await killPodProcesses(options.containerdSocket);
  await unmountUnder(state.dataDir);
  await deleteCniNetworkNamespaces();
  if (options.kubeProxy) await quietly(options.kubeProxy, ['--cleanup']);
  await deleteKubeChains();
  await deletePolicyIpsets();
  if (state.masquerade) await quietly('iptables', ['-t', 'nat', '-D', 'POSTROUTING', ...masqueradeRule]);
  await quietly('iptables', ['-t', 'nat', '-D', 'PREROUTING', ...registryReaderRule]);
  for (const rule of forwardRules) await quietly('iptables', ['-D', 'FORWARD', ...rule]);
  await quietly('ip', ['link', 'del', bridgeName]);
  for (const route of guardRoutes) await quietly('ip', ['route', 'del', ...route]);
  await quietly('ip', ['link', 'del', nodeInterface]);
  for (const [name, value] of Object.entries(state.sysctls)) await quietly('sysctl', ['-q', '-w', `${name}=${value}`]);
  await restorePropagation(state);
  removeEmptyCgroups('kubepods');
  await deleteNewEmptyTables(state.previousTables);
  removeNodeEntries(state);
  rmSync(stateFile, { force: true });
}

/** iptables-nft makes the tables it needs (ip6 nat, ip mangle, ...); those the node's run made are
 * deleted once nothing but empty chains is left in them. */
async function deleteNewEmptyTables(previous: string[]): Promise<void> {
  for (const table of await nftTables()) {
    if (previous.includes(table)) continue;
    const listing = await sh('nft', ['list', 'table', ...table.split(' ')]).catch(() => '');
    const hasRules = listing.split('\n').some((line) => {
      const text = line.trim();
      return text !== '' && text !== '}' && !text.startsWith('table ') && !text.startsWith('chain ') && !text.startsWith('type ');
    });
    if (!hasRules) await quietly('nft', ['delete', 'table', ...table.split(' ')]);
  }
}

/** Removes the fixed host paths the node made, and the node's log links from those that were there. */
function removeNodeEntries(state: HostState): void {
  for (const path of state.createdPaths) rmSync(path, { recursive: true, force: true });
  if (!state.createdPaths.includes('/var/log/containers') && existsSync('/var/log/containers')) {
    for (const entry of readdirSync('/var/log/containers')) {
      const link = join('/var/log/containers', entry);
      const target = readLinkSafely(link);
      if (target?.startsWith(`${state.dataDir}/`)) rmSync(link, { force: true });
    }
  }
}

function readLinkSafely(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** The node's and control plane's own processes of a run that died: each names its data dir in its
 * arguments. Their watchdogs stop them once the owner is gone, but not before the next start begins. */
async function killProcessesOf(dataDir: string): Promise<void> {
  const pids = new Set<number>();
  const ancestors = ancestorsOfThisProcess();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || ancestors.has(Number(entry))) continue;
    if (
      readSafely(`/proc/${entry}/cmdline`)
        .split('\0')
        .some((arg) => arg.includes(`${dataDir}/`) || arg.endsWith(dataDir))
    )
      pids.add(Number(entry));
  }
  await killAndWait(pids);
}

/** This process and those that started it (a wrapper may name the data dir too). */
function ancestorsOfThisProcess(): Set<number> {
  const found = new Set<number>();
  for (let pid = process.pid; pid > 1 && !found.has(pid);) {
    found.add(pid);
    // /proc/<pid>/stat: pid (comm) state ppid ...; comm may hold spaces, so read after the last ')'.
    const stat = readSafely(`/proc/${pid}/stat`);
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return found;
}

async function killAndWait(pids: Set<number>): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  // At most five seconds: what outlives SIGKILL (a process in uninterruptible sleep) is the next clean-up's.
  await eventually(() => ![...pids].some(processAlive), 5000, 'the killed processes gone', 50).catch(() => undefined);
}

/** Every process in the pods' cgroups, and the containerd shims serving this node's socket. */
async function killPodProcesses(containerdSocket: string | undefined): Promise<void> {
  const pids = new Set<number>();
  for (const dir of cgroupDirs('kubepods')) {
    for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (line) pids.add(Number(line));
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = readSafely(`/proc/${entry}/cmdline`).split('\0');
    if (cmdline[0]?.endsWith('containerd-shim-runc-v2') && (!containerdSocket || cmdline.includes(containerdSocket)))
      pids.add(Number(entry));
  }
  await killAndWait(pids);
}

function readSafely(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The cgroup directories named `name` and below in every v1 hierarchy (or the v2 tree), deepest first. */
function cgroupDirs(name: string): string[] {
  const roots = existsSync('/sys/fs/cgroup/cgroup.controllers')
    ? ['/sys/fs/cgroup']
    : readdirSync('/sys/fs/cgroup')
        .map((c) => join('/sys/fs/cgroup', c))
        .filter((d) => existsSync(join(d, 'cgroup.procs')));
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
    }
    found.push(dir);
  };
  for (const root of roots) {
    const top = join(root, name);
    if (existsSync(top) && statSync(top).isDirectory()) walk(top);
  }
  return found;
}

function removeEmptyCgroups(name: string): void {
  for (const dir of cgroupDirs(name)) {
    try {
      rmdirSync(dir);
    } catch {
      // still has processes, or a hierarchy that keeps it
    }
  }
}

/** Unmounts every mount under dir, deepest first; lazily when a mount is still busy. */
async function unmountUnder(dir: string): Promise<void> {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const mounts = mountTable()
    .map((m) => m.mountPoint)
    .filter((m) => m.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
  for (const mountPoint of mounts) {
    await run('umount', [mountPoint]).catch(() => run('umount', ['-l', mountPoint]).catch(() => {}));
  }
}

/** containerd's CRI names pod network namespaces cni-<uuid> under the fixed /var/run/netns. */
async function deleteCniNetworkNamespaces(): Promise<void> {
  const dir = '/var/run/netns';
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith('cni-')) continue;
    const pids = await sh('ip', ['netns', 'pids', name]).catch(() => '');
    if (pids.trim()) continue;
    await run('umount', [join(dir, name)]).catch(() => {});
    rmSync(join(dir, name), { force: true });
  }
}

/** The kubelet makes KUBE-FIREWALL and its canary chains even with makeIPTablesUtilChains off, and
 * `kube-proxy --cleanup` leaves them: remove every KUBE- chain and the jumps to it. */
async function deleteKubeChains(): Promise<void> {
  for (const binary of ['iptables', 'ip6tables']) {
    for (const table of ['filter', 'nat', 'mangle']) {
      const rules = await sh(`${binary}-save`, ['-t', table]).catch(() => '');
      const chains = [...rules.matchAll(/^:(KUBE-[^ ]+)/gm)].map((m) => m[1] as string);
      if (chains.length === 0) continue;
      for (const line of rules.split('\n')) {
        const jump = / -j (KUBE-[^ ]+)/.exec(line);
        if (line.startsWith('-A ') && jump && !chains.includes(line.split(' ')[1] as string)) {
          await quietly(binary, ['-t', table, '-D', ...splitRule(line.slice(3))]);
        }
      }
      for (const chain of chains) await quietly(binary, ['-t', table, '-F', chain]);
      for (const chain of chains) await quietly(binary, ['-t', table, '-X', chain]);
    }
  }
}

/**
 * The ipsets of kube-router's policy controller (KUBE-SRC-*, KUBE-DST-*, ...), once no rule uses them.
 * The kernel lets go of a set a moment after the last rule naming it is deleted: until then destroy
 * answers "in use", so each is tried again for up to 2 s.
 */
async function deletePolicyIpsets(): Promise<void> {
  const policySets = async () =>
    (await sh('ipset', ['list', '-n']).catch(() => ''))
      .split('\n')
      .map((line) => line.trim())
      .filter((name) => name.startsWith('KUBE-') || name.startsWith('kube-router'));
  for (let attempt = 0; attempt < 20; attempt++) {
    const left = await policySets();
    if (left.length === 0) return;
    for (const name of left) await quietly('ipset', ['destroy', name]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Splits an iptables-save rule into arguments, keeping quoted comments whole. */
function splitRule(rule: string): string[] {
  return [...rule.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\"/g, '"') : (m[2] as string)));
}

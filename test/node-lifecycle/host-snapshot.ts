// What a node may change on its host, read in a form that compares equal when the host is as it was:
// routes, links and addresses, iptables chains and rules, nftables tables, sysctls, mounts and their
// propagation, the node's fixed host paths, and the node's processes.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function lines(command: string, args: string[]): Promise<string[]> {
  const { stdout } = await run(command, args, { encoding: 'utf8' }).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter(Boolean).sort();
}

async function firewall(binary: string): Promise<string[]> {
  return (await lines(binary, [])).filter((line) => !line.startsWith('#')).map((line) => line.replace(/ \[\d+:\d+\]$/, ''));
}

const sysctls = [
  'net.ipv4.ip_forward',
  'net.bridge.bridge-nf-call-iptables',
  'vm.overcommit_memory',
  'kernel.panic',
  'kernel.panic_on_oops',
  'net.ipv4.conf.all.route_localnet',
];
const nodeProcesses =
  /^(kubelet|kube-proxy|kube-scheduler|kube-apiserver|kube-controller|kube-router|containerd|etcd|docker-registry|coredns|traefik|metrics-server|cert-manager|keda-operator|keda-adapter|victoria-metrics|vmauth)/;

export async function hostSnapshot() {
  return {
    routes: await lines('ip', ['route', 'show', 'table', 'all']),
    links: (await lines('ip', ['-o', 'link'])).map((line) => line.split(':')[1]?.trim()),
    addresses: await lines('ip', ['-o', '-br', 'addr']),
    iptables: await firewall('iptables-save'),
    ip6tables: await firewall('ip6tables-save'),
    nftTables: await lines('nft', ['list', 'tables']),
    ipsets: await lines('ipset', ['list', '-n']),
    sysctls: Object.fromEntries(await Promise.all(sysctls.map(async (name) => [name, (await lines('sysctl', ['-n', name]))[0]]))),
    mounts: readFileSync('/proc/self/mountinfo', 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const fields = line.split(' ');
        return `${fields[4]} ${fields.slice(6, fields.indexOf('-')).filter((f) => /^(shared|master)/.test(f)).length > 0 ? 'shared' : 'private'}`;
      })
      .sort(),
    hostPaths: ['/var/lib/kubelet', '/var/log/containers', '/var/lib/cni', '/run/containerd', '/var/run/netns', '/tmp/hostpath_pv'].filter(
      (path) => existsSync(path),
    ),
    processes: readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          return '';
        }
      })
      .filter((comm) => nodeProcesses.test(comm))
      .sort(),
  };
}

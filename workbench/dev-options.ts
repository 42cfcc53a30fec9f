// `berth dev`'s command line: `berth run`'s options with the defaults of a developer's machine, and two
// of its own (where the embedded cluster keeps its data, whether it runs a node).
import { z } from 'zod';
import { hardenedOrganizationPolicy } from '../src/api/organization-policy.ts';
import { optionsUsage, parseCommandLine, type Options, type WhereDefaults } from '../src/cli/options.ts';

export const devDefaults: WhereDefaults = {
  facadeAddress: '127.0.0.1:8080',
  probeAddress: '127.0.0.1:9090',
  // One process on one machine.
  leaderElect: 'false',
  // A laptop is not a cluster: a quarter of the requests, so several apps fit.
  requestScale: '0.25',
  // What the chart installs by default; `--organization-policy '{}'` turns it off.
  organizationPolicy: JSON.stringify(hardenedOrganizationPolicy),
  // The developer's own machine: its OAuth providers are on loopback.
  oauthPrivateNetworks: 'true',
};

const devOwnOptions = z.object({
  dataDir: z.string().min(1),
  node: z.enum(['auto', 'required', 'off']),
});

export type DevOptions = z.output<typeof devOwnOptions> & { options: Options };

/** Parses `berth dev`'s argv (a leading `dev` allowed) and env; throws an Error that says what is wrong. */
export function parseDevCommandLine(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { help: true } | { help: false; value: DevOptions } {
  const args = argv[0] === 'dev' ? argv.slice(1) : argv;
  const parsed = parseCommandLine(args, env, { defaults: devDefaults, ownFlags: ['data-dir', 'node'] });
  if (parsed.help) return parsed;
  const own = devOwnOptions.safeParse({
    dataDir: parsed.own['data-dir'] ?? '.berth/dev',
    node: parsed.own.node ?? env.BERTH_NODE ?? 'auto',
  });
  if (!own.success) {
    const flag = (key: PropertyKey | undefined) => (key === 'dataDir' ? '--data-dir' : `--${String(key)}`);
    throw new Error(own.error.issues.map((issue) => `${flag(issue.path[0])}: ${issue.message}`).join('\n'));
  }
  return { help: false, value: { ...own.data, options: parsed.options } };
}

export const devUsage = `usage: npm start -- [options]   (berth dev, from a checkout of Berth)

Runs Berth against the configured cluster (KUBECONFIG, or the cluster it runs in), or with none
configured against an embedded local cluster it starts: the control plane, and a real node (kubelet,
containerd, registry, DNS, a Gateway and the node's parts) where the machine allows one. It mints an API
key for a local organization and prints how to reach everything.

berth dev's own options:
  --data-dir <dir>             the embedded cluster's data (default .berth/dev)
  --node <auto|required|off>   start a real node where the machine allows (auto, the default), insist
                               on one, or run the control plane only              [BERTH_NODE]

It takes berth run's options below, with these defaults of its own: --facade-address 127.0.0.1:8080,
--probe-address 127.0.0.1:9090, --leader-elect false, --request-scale 0.25, --organization-policy the
chart's hardened policy, --oauth-private-networks true. With a node, what the node runs is the default of
the options that name it: the registries, the Gateway and its https app URLs (a local CA), the build,
database and agent server images built here, the metrics store and the activator; its address joins
--code-host-origins and its pod network --build-blocked-cidrs.

${optionsUsage}`;

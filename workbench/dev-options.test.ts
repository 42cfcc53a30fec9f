import { describe, expect, it } from 'vitest';
import { hardenedOrganizationPolicy } from '../src/api/organization-policy.ts';
import { devUsage, parseDevCommandLine } from './dev-options.ts';

function dev(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseDevCommandLine(argv, env);
  if (parsed.help) throw new Error('expected options, got help');
  return parsed.value;
}

describe("berth dev's command line", () => {
  it('defaults to loopback addresses without leader election, a quarter of the requests and OAuth on loopback', () => {
    expect(dev([]).options).toMatchObject({
      components: ['controller', 'facade'],
      facadeAddress: { host: '127.0.0.1', port: 8080 },
      probeAddress: { host: '127.0.0.1', port: 9090 },
      leaderElect: false,
      requestScale: 0.25,
      oauthPrivateNetworks: true,
    });
  });

  it("gives organizations the chart's hardened policy unless told otherwise", () => {
    expect(dev(['dev']).options.organizationPolicy).toEqual(hardenedOrganizationPolicy);
    expect(dev(['--organization-policy', '{}']).options.organizationPolicy).toEqual({});
  });

  it('keeps its data in .berth/dev and starts a node where possible, unless told otherwise', () => {
    expect(dev([])).toMatchObject({ dataDir: '.berth/dev', node: 'auto' });
    expect(dev(['dev', '--data-dir', '/tmp/d', '--node', 'off', '--request-scale', '1'])).toMatchObject({
      dataDir: '/tmp/d',
      node: 'off',
      options: { requestScale: 1 },
    });
    expect(dev([], { BERTH_NODE: 'required' }).node).toBe('required');
  });

  it.each([
    [['--node', 'sometimes'], /--node: /],
    [['--data-dir', ''], /--data-dir: /],
    [['--leader-elect', 'maybe'], /--leader-elect/],
    [['dev', 'extra'], /command: expected run \(or none\), got extra/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseDevCommandLine(argv, {})).toThrow(message);
  });

  it("answers --help with its own options, then berth run's", () => {
    expect(parseDevCommandLine(['--help'], {})).toEqual({ help: true });
    expect(devUsage).toMatch(/--data-dir <dir>[\s\S]*--node <auto\|required\|off>[\s\S]*--facade-address <host:port>/);
  });
});

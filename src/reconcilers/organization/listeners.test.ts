import { describe, expect, it } from 'vitest';
import { parseAppUrlTemplate, renderOrganizationListener, type AppTls, type AppUrlTemplate, type GatewayObject } from '../../api/index.ts';
import { listenerWrites } from './listeners.ts';

const tls: AppTls = {
  issuer: { kind: 'Issuer', name: 'ca' },
  gateway: { namespace: 'gw', name: 'public' },
  appUrls: parseAppUrlTemplate('https://{deployment}.{organization}.localhost:18443/') as AppUrlTemplate,
  listenersPerGateway: 2,
};
const acme = renderOrganizationListener(tls, 'acme');
const gateway = (name: string, listeners: object[]): GatewayObject => ({
  metadata: { name, namespace: 'gw' },
  spec: { gatewayClassName: 'traefik', listeners: listeners as { name: string }[] },
});

describe("an organization's listener writes", () => {
  it('are none while its listeners are as placed, or while the configured Gateway is not there', () => {
    expect(listenerWrites(tls, [gateway('public', [{ name: 'http' }]), gateway('public-1', [acme])], 'acme', [acme])).toEqual([]);
    expect(listenerWrites(tls, [gateway('public-1', [])], 'acme', [acme])).toEqual([]);
  });

  it("make a shard of the configured Gateway's class once it is full", () => {
    const writes = listenerWrites(tls, [gateway('public', [{ name: 'http' }, { name: 'https-other' }])], 'acme', [acme]);
    expect(writes).toEqual([
      {
        patch: expect.objectContaining({
          metadata: expect.objectContaining({ name: 'public-1' }),
          spec: { gatewayClassName: 'traefik', listeners: [acme] },
        }),
      },
    ]);
  });

  it('delete a shard it leaves empty, and only take its own listeners off one it shares', () => {
    expect(listenerWrites(tls, [gateway('public', []), gateway('public-1', [acme])], 'acme', [])).toEqual([{ remove: 'public-1' }]);
    const shared = listenerWrites(tls, [gateway('public', []), gateway('public-1', [acme, { name: 'https-other' }])], 'acme', []);
    expect(shared).toEqual([{ patch: expect.objectContaining({ spec: { gatewayClassName: 'traefik', listeners: [] } }) }]);
  });
});

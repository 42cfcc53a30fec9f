import { describe, expect, it } from 'vitest';
import { apiServerAddresses, sortedAddresses } from './database-reach.ts';

describe("the addresses organizations' database pods reach", () => {
  it("are the API server's endpoints on their TCP ports, from its EndpointSlice, but for one not ready", () => {
    expect(
      apiServerAddresses({
        endpoints: [
          { addresses: ['10.0.0.12'], conditions: { ready: true } },
          { addresses: ['10.0.0.11'] },
          { addresses: ['10.0.0.13'], conditions: { ready: false } },
        ],
        ports: [{ port: 6443, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }, {}],
      }),
    ).toEqual([
      { ip: '10.0.0.11', port: 6443 },
      { ip: '10.0.0.12', port: 6443 },
    ]);
    expect(apiServerAddresses({})).toEqual([]);
  });

  it('are listed once each, in one order, so that a restart renders the same policy', () => {
    const store = { ip: '10.243.0.2', port: 7070 };
    const apiServer = { ip: '10.243.0.1', port: 6443 };
    expect(sortedAddresses([store, apiServer, { ...store }])).toEqual([apiServer, store]);
    expect(sortedAddresses([apiServer, store])).toEqual(sortedAddresses([store, apiServer]));
  });
});

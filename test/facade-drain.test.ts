// A stopping facade drains: for the time it is given it still answers, closing each connection after its
// response (so a client's next request opens a new connection, which a Service sends to another
// replica), and then it stops taking requests.
import { describe, expect, it } from 'vitest';
import { startTestFacade } from './support/facade.ts';

describe('the facade stopping with a drain', () => {
  it('answers during the drain with Connection: close, then refuses connections', async () => {
    const t = await startTestFacade();
    expect((await t.call('GET', '/v2/deployments')).headers.get('connection')).toBe('keep-alive');
    const closing = t.facade.close({ drainMs: 1000 });
    const during = await t.call('GET', '/v2/deployments');
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('close');
    await closing;
    await expect(t.call('GET', '/v2/deployments')).rejects.toThrow(/fetch failed/);
  });
});

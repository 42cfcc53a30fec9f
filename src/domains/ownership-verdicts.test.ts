import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownershipRecordName, ownershipToken } from '../api/index.ts';
import { startDnsServer, type TestDnsServer } from '../../test/support/dns-server.ts';
import { dnsOwnershipProver } from './host-ownership.ts';
import { ownershipVerdicts } from './ownership-verdicts.ts';

const organizationId = 'b9f4c0de-0000-4000-8000-000000000002';
let dns: TestDnsServer;
/** A resolver that never answers: a zone its owner made slow. */
let silent: Socket;
beforeAll(async () => {
  dns = await startDnsServer();
  silent = createSocket('udp4');
  await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await dns?.close();
  silent?.close();
});

/** Resolves once `onLateVerdict` is called. */
function lateVerdict(): { call: () => void; came: Promise<void> } {
  let call = () => {};
  const came = new Promise<void>((resolve) => (call = resolve));
  return { call, came };
}

describe('ownershipVerdicts', () => {
  it('gives a verdict at once, then the same again without asking DNS while it is fresh', async () => {
    dns.setTxt(ownershipRecordName('kept.example.com'), [ownershipToken(organizationId)]);
    const verdicts = ownershipVerdicts(dnsOwnershipProver({ servers: [dns.address], timeoutMs: 500 }), { freshMs: 60_000 });
    const question = { host: 'kept.example.com', organizationId };
    expect(await verdicts.judge(question, () => {})).toEqual({ proven: true, by: 'dns' });
    // The record goes: the fresh verdict stands, asked of no one.
    dns.setTxt(ownershipRecordName('kept.example.com'), []);
    expect(await verdicts.judge(question, () => {})).toEqual({ proven: true, by: 'dns' });
  });

  it('gives a stale verdict at once while it asks again, and says when the answer differs', async () => {
    let clock = 0;
    const verdicts = ownershipVerdicts(dnsOwnershipProver({ servers: [dns.address], timeoutMs: 500 }), {
      freshMs: 1_000,
      now: () => clock,
    });
    const question = { host: 'later.example.com', organizationId };
    expect((await verdicts.judge(question, () => {}))?.proven).toBe(false);
    // The organization publishes its record; a minute on, the old verdict comes at once and the new one later.
    dns.setTxt(ownershipRecordName('later.example.com'), [ownershipToken(organizationId)]);
    clock = 60_000;
    const late = lateVerdict();
    expect((await verdicts.judge(question, late.call))?.proven).toBe(false);
    await late.came;
    expect(await verdicts.judge(question, () => {})).toEqual({ proven: true, by: 'dns' });
  });

  it('holds its caller at most waitMs on a zone that never answers, and gives the verdict once it comes', async () => {
    const { port } = silent.address();
    const verdicts = ownershipVerdicts(dnsOwnershipProver({ servers: [`127.0.0.1:${port}`], timeoutMs: 300 }), { waitMs: 50 });
    const question = { host: 'slow.example.com', organizationId };
    const late = lateVerdict();
    expect(await verdicts.judge(question, late.call)).toBeUndefined();
    // A second caller meanwhile is not held either, and is told too.
    const second = lateVerdict();
    expect(await verdicts.judge(question, second.call)).toBeUndefined();
    await Promise.all([late.came, second.came]);
    const verdict = await verdicts.judge(question, () => {});
    expect(verdict?.proven).toBe(false);
    expect(verdict && !verdict.proven && verdict.message).toMatch(/looking up _berth-challenge\.slow\.example\.com failed: ETIMEOUT/);
  });
});

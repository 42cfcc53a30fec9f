import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, levelOf, logFilterSchema, logPage, parseContainerLog, redact, type ContainerLog } from './logs.ts';

const filter = (members: object = {}) => logFilterSchema.parse(members);
const app: ContainerLog = {
  pod: 'web-1',
  container: 'app',
  text: [
    '2026-11-24T10:00:01.000000001Z starting',
    '2026-11-24T10:00:03.000000000Z ERROR db down',
    'continued without a stamp',
    '2026-11-24T10:00:05.5Z token=abcd1234 ok',
    '',
  ].join('\n'),
};
const sidecar: ContainerLog = {
  pod: 'web-1',
  container: 'proxy',
  text: '2026-11-24T10:00:02Z WARNING slow\n2026-11-24T10:00:03.000000000Z same second\n',
};

describe('parseContainerLog', () => {
  it('splits the kubelet timestamp from the message; a line without one keeps the time before it', () => {
    const lines = parseContainerLog(app);
    expect(lines.map((l) => [l.timestamp, l.message])).toEqual([
      ['2026-11-24T10:00:01.000000001Z', 'starting'],
      ['2026-11-24T10:00:03.000000000Z', 'ERROR db down'],
      ['2026-11-24T10:00:03.000000000Z', 'continued without a stamp'],
      ['2026-11-24T10:00:05.500000000Z', 'token=abcd1234 ok'],
    ]);
  });

  it('orders timestamps of any precision as text', () => {
    const [a, b] = parseContainerLog({
      pod: 'p',
      container: 'c',
      text: '2026-11-24T10:00:02.1Z a\n2026-11-24T10:00:02.123Z b\n2026-11-24T10:00:02Z c',
    }).map((l) => l.timestamp);
    expect(a! < b!).toBe(true);
  });
});

describe('levelOf', () => {
  it.each([
    ['plain text', 'info'],
    ['ERROR: boom', 'error'],
    ['level=warn something', 'warning'],
    ['panic: nil map', 'critical'],
    ['{"level":50,"msg":"x"}', 'error'],
    ['{"level":"debug","msg":"x"}', 'debug'],
    ['{"severity":"WARNING"}', 'warning'],
    ['{"not json', 'info'],
  ])('%s -> %s', (message, level) => {
    expect(levelOf(message)).toBe(level);
  });
});

describe('redact', () => {
  it('masks every occurrence of a known value, not values too short to tell apart', () => {
    expect(redact('a abcd1234 b abcd1234', ['abcd1234', 'ab'])).toBe('a ******** b ********');
  });

  it('masks a value in base64 too, whatever precedes it, in both alphabets', () => {
    const token = 'ghp_0123456789abcdefghij~~~?>>';
    for (const prefix of ['', 'x', 'x-', 'x-access-token:', 'user:']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const header = `Authorization: Basic ${Buffer.from(`${prefix}${token}`).toString(encoding)}`;
        const masked = redact(header, [token]);
        expect(masked).toContain('********');
        const decoded = Buffer.from(masked.replace('Authorization: Basic ', '').replaceAll('*', ''), encoding).toString('latin1');
        expect(decoded).not.toContain(token.slice(2, -2));
      }
    }
  });
});

describe('logPage', () => {
  it('orders newest first by default and masks secrets', () => {
    const page = logPage([app, sidecar], filter(), ['abcd1234']);
    // One timestamp: by pod, container and line, reversed.
    expect(page.logs.map((l) => l.message)).toEqual([
      'token=******** ok',
      'same second',
      'continued without a stamp',
      'ERROR db down',
      'WARNING slow',
      'starting',
    ]);
    expect(page.next_offset).toBe(page.logs.at(-1)!.offset);
  });

  it('filters by level, text and time', () => {
    expect(logPage([app, sidecar], filter({ level: 'warning' }), []).logs.map((l) => l.message)).toEqual(['WARNING slow']);
    expect(logPage([app, sidecar], filter({ query: 'DB' }), []).logs.map((l) => l.message)).toEqual(['ERROR db down']);
    const window = filter({ order: 'asc', start_time: '2026-11-24T10:00:02Z', end_time: '2026-11-24T10:00:05Z' });
    // Ties in time go by pod, container and line.
    expect(logPage([app, sidecar], window, []).logs.map((l) => l.message)).toEqual([
      'WARNING slow',
      'ERROR db down',
      'continued without a stamp',
      'same second',
    ]);
  });

  it('pages by cursor without losing or repeating a line, and each line carries its own cursor', () => {
    const seen: string[] = [];
    let cursor: string | null | undefined;
    for (;;) {
      const page = logPage([app, sidecar], filter({ order: 'asc', limit: 2 }), [], cursor ? decodeCursor(cursor) : undefined);
      if (page.logs.length === 0) {
        // The end, for now: the offset stays where it was, so a poller resumes there.
        expect(page.next_offset).toBe(cursor);
        break;
      }
      expect(page.next_offset).toBe(page.logs.at(-1)!.offset);
      seen.push(...page.logs.map((l) => l.message));
      cursor = page.next_offset;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('answers next_offset on a partial page, so a poller that passes it back never reads a line twice', () => {
    const first = logPage([sidecar], filter({ order: 'asc', limit: 50 }), []);
    expect(first.logs).toHaveLength(2);
    expect(first.next_offset).toBe(first.logs.at(-1)!.offset);
    const grown = { ...sidecar, text: `${sidecar.text}2026-11-24T10:00:09Z new line\n` };
    const next = logPage([grown], filter({ order: 'asc', limit: 50 }), [], decodeCursor(first.next_offset!));
    expect(next.logs.map((l) => l.message)).toEqual(['new line']);
    expect(logPage([], filter(), []).next_offset).toBeNull();
  });

  it('gives each line an id that stays the same as the tail window slides on', () => {
    const ids = (log: ContainerLog) =>
      new Map(logPage([log], filter({ order: 'asc', limit: 1000 }), []).logs.map((l) => [l.message, l.id]));
    const whole = {
      pod: 'p',
      container: 'c',
      text: '2026-11-24T10:00:01Z a\n2026-11-24T10:00:02Z b\n2026-11-24T10:00:02Z c\n2026-11-24T10:00:03Z d\n',
    };
    // The kubelet's tailLines dropped the oldest line.
    const tail = { ...whole, text: whole.text.split('\n').slice(1).join('\n') };
    const before = ids(whole);
    const after = ids(tail);
    expect(new Set(before.values()).size).toBe(4);
    for (const message of ['b', 'c', 'd']) expect(after.get(message)).toBe(before.get(message));
    // And the cursor of a line read before the slide still resumes right after it.
    const cursorOfB = logPage([whole], filter({ order: 'asc', limit: 2 }), []).next_offset!;
    expect(logPage([tail], filter({ order: 'asc' }), [], decodeCursor(cursorOfB)).logs.map((l) => l.message)).toEqual(['c', 'd']);
  });

  it('takes a level in upper case, as the reference client sends it', () => {
    expect(filter({ level: 'WARNING' }).level).toBe('warning');
    expect(logPage([app, sidecar], filter({ level: 'ERROR' }), []).logs.map((l) => l.message)).toEqual(['ERROR db down']);
    expect(logFilterSchema.safeParse({ level: 'Loud' }).success).toBe(false);
  });

  it("takes a line's nanosecond timestamp back as start_time", () => {
    const [line] = logPage([app], filter({ order: 'asc', limit: 1 }), []).logs;
    expect(logFilterSchema.safeParse({ start_time: line!.timestamp }).success).toBe(true);
  });

  it('follows a growing log from the last line read', () => {
    const first = logPage([sidecar], filter({ order: 'asc' }), []);
    const last = first.logs.at(-1)!.offset;
    const grown = { ...sidecar, text: `${sidecar.text}2026-11-24T10:00:09Z new line\n` };
    expect(logPage([grown], filter({ order: 'asc' }), [], decodeCursor(last)).logs.map((l) => l.message)).toEqual(['new line']);
  });

  it('rejects what is not a cursor it gave out', () => {
    expect(decodeCursor('not-a-cursor')).toBeUndefined();
    expect(decodeCursor(Buffer.from('[1,2,3,4]').toString('base64url'))).toBeUndefined();
    expect(decodeCursor(encodeCursor(['t', 'p', 'c', 3]))).toEqual(['t', 'p', 'c', 3]);
  });

  it('bounds limit to 1..1000', () => {
    expect(logFilterSchema.safeParse({ limit: 0 }).success).toBe(false);
    expect(logFilterSchema.safeParse({ limit: 1001 }).success).toBe(false);
    expect(filter().limit).toBe(50);
  });
});

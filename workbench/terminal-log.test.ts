import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/runtime/index.ts';
import { terminalDestination, type TerminalOut } from './terminal-log.ts';

function terminal(isTTY: boolean): TerminalOut & { text: () => string } {
  const written: string[] = [];
  return { isTTY, hasColors: () => false, write: (text: string) => written.push(text), text: () => written.join('') };
}

describe('terminalDestination', () => {
  it('writes JSON where stdout is not a terminal, or where BERTH_LOG_FORMAT=json asks', () => {
    expect(terminalDestination(terminal(false), undefined)).toBeUndefined();
    expect(terminalDestination(terminal(true), 'json')).toBeUndefined();
    expect(terminalDestination(terminal(false), 'pretty')).toBeDefined();
  });

  it('writes readable lines on a terminal, with the redaction of Berth own logger', () => {
    const out = terminal(true);
    const logger = createLogger({ level: 'info', destination: terminalDestination(out, undefined)! });
    logger.info({ crds: 5, token: 'hunter2-secret' }, 'CRDs installed');
    const text = out.text();
    expect(text).toMatch(/\d\d:\d\d:\d\d\] INFO.*: CRDs installed/);
    expect(text).toContain('"crds":5');
    expect(text).not.toContain('hunter2-secret');
    expect(text).not.toContain('"level"');
  });

  it('keeps the build progress on one status line under the log lines, until it is done', () => {
    const out = terminal(true);
    const logger = createLogger({ level: 'info', destination: terminalDestination(out, undefined)! });
    logger.info({ progress: 'building' }, 'building controlplane 1m of ~15m');
    logger.info({ progress: 'building' }, 'building controlplane 2m of ~15m');
    logger.info('ready 1/9: node');
    logger.info({ progress: 'done' }, 'all parts ready in 3m00s');
    logger.info('restarting Berth');
    const text = out.text();
    expect(text).toContain('\r\x1b[2K… building controlplane 2m of ~15m');
    // A log line clears the status line, and the status line comes back under it.
    const clear = '\r\x1b[2K';
    const ready = text.indexOf('ready 1/9: node');
    expect(text.lastIndexOf(clear, ready)).toBeGreaterThan(text.indexOf('2m of ~15m'));
    expect(text.slice(ready)).toMatch(/^ready 1\/9: node\n… building controlplane 2m of ~15m/);
    // Once done, it is not drawn again.
    expect(text.slice(text.indexOf('all parts ready'))).not.toContain('building controlplane');
  });

  it('writes the progress as lines where the output is not a terminal', () => {
    const out = terminal(false);
    const logger = createLogger({ level: 'info', destination: terminalDestination(out, 'pretty')! });
    logger.info({ progress: 'building' }, 'building controlplane 1m of ~15m');
    logger.info('ready 1/9: node');
    expect(out.text()).not.toContain('\x1b[2K');
    expect(out.text().split('\n').filter(Boolean)).toHaveLength(2);
  });
});

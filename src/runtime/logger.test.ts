import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

describe('createLogger', () => {
  it('keeps secrets out of log lines', () => {
    const { lines, logger } = capture();
    logger.info({ clientSecret: 'SECRET-1' }, 'top level');
    logger.info({ provider: { client_secret: 'SECRET-2', token: 'SECRET-3', password: 'SECRET-4' } }, 'nested');
    logger.info({ req: { headers: { authorization: 'Bearer SECRET-5', 'x-api-key': 'SECRET-6', accept: 'json' } } }, 'headers');
    logger.info({ spec: { secrets: [{ name: 'DB_URL', value: 'SECRET-7' }] } }, 'secret values');
    logger.info({ deployment: { spec: { secrets: [{ name: 'DB_URL', value: 'SECRET-8' }] } } }, 'deeper secret values');
    logger.info(
      { object: { kind: 'Secret', metadata: { name: 's' }, data: { key: 'U0VDUkVULTk=' }, stringData: { k: 'SECRET-10' } } },
      'a Secret',
    );
    logger.child({ name: 'x' }).info({ objects: [{ kind: 'Secret', data: { k: 'SECRET-11' } }] }, 'Secrets in a list');
    const output = lines.join('');
    expect(output).not.toMatch(/SECRET-|U0VDUkVULTk=/);
    expect(output).toContain('DB_URL');
    expect(output).toContain('"accept":"json"');
    expect(lines).toHaveLength(7);
  });

  it('does not touch the objects it logs', () => {
    const { logger } = capture();
    const secret = Object.freeze({ kind: 'Secret', data: Object.freeze({ key: 'c2VjcmV0' }) });
    logger.info({ object: secret }, 'frozen Secret');
    expect(secret.data.key).toBe('c2VjcmV0');
  });

  it('keeps the data of objects that are not Secrets', () => {
    const { lines, logger } = capture();
    logger.info({ object: { kind: 'ConfigMap', data: { greeting: 'hello' } } }, 'a ConfigMap');
    expect(lines.join('')).toContain('hello');
  });
});

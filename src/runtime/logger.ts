// Structured logs that cannot carry a secret: known secret fields are redacted by path, and any
// Secret object that reaches a log line loses its data.
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

const secretFields = ['clientSecret', 'client_secret', 'token', 'password', 'privateKey', 'private_key', 'apiKey', 'api_key'];
const secretHeaders = ['authorization', '"x-api-key"', 'cookie'];

/** pino redact paths: the fields at the top level and one level down, headers, and secret values. */
export const redactPaths: string[] = [
  ...secretFields.flatMap((field) => [field, `*.${field}`]),
  ...secretHeaders.flatMap((header) => [`headers[${header}]`, `*.headers[${header}]`]),
  'secrets[*].value',
  '*.secrets[*].value',
  '*.*.secrets[*].value',
  'stringData',
  '*.stringData',
];

const redacted = '[Redacted]';

/**
 * A Secret's `data` is redacted wherever the Secret sits in the log object. pino's path redaction
 * cannot say "data, but only of Secrets", and it mutates the logged object in place while it
 * serializes, which would break on the frozen or shared objects of an informer cache; this builds
 * redacted copies instead and leaves the caller's objects alone.
 */
function withoutSecretData(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    return value.some((item) => item !== withoutSecretData(item, depth + 1))
      ? value.map((item) => withoutSecretData(item, depth + 1))
      : value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  if (record.kind === 'Secret' && (record.data !== undefined || record.stringData !== undefined)) {
    copy = { ...record };
    if (record.data !== undefined) copy.data = redacted;
    if (record.stringData !== undefined) copy.stringData = redacted;
  }
  for (const [key, child] of Object.entries(copy ?? record)) {
    const cleaned = withoutSecretData(child, depth + 1);
    if (cleaned !== child) {
      copy ??= { ...record };
      copy[key] = cleaned;
    }
  }
  return copy ?? value;
}

export interface CreateLoggerOptions {
  /** Default: BERTH_LOG_LEVEL, else info. */
  level?: string;
  name?: string;
  /** Where lines go; default stdout. */
  destination?: pino.DestinationStream;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const config: LoggerOptions = {
    name: options.name ?? 'berth',
    level: options.level ?? process.env.BERTH_LOG_LEVEL ?? 'info',
    redact: { paths: redactPaths, censor: redacted },
    formatters: { log: (object) => withoutSecretData(object) as Record<string, unknown> },
  };
  return pino(config, options.destination ?? standardOutput());
}

/** stdout, each line written as it comes. Never a line held for the exit: pino flushes those with
 * sonic-boom's flushSync, which retries a broken pipe forever, so a process whose terminal had closed
 * (SIGHUP) would never end. A line nobody can read any more (EPIPE, EIO) is dropped. */
function standardOutput(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: true });
  stream.on('error', () => {});
  return stream;
}

// Typed failures of a code host, so callers decide by kind (the facade picks an HTTP status, the
// reconciler a condition) and never parse messages. Messages quote the host's own words (GitHub's
// "Bad credentials") and never a credential: see `redactSecrets`.

export type CodeHostErrorReason = 'InvalidCredentials' | 'NotAllowed' | 'Unauthorized' | 'RateLimited' | 'NotFound' | 'Unreachable';

/** The most of a message kept: a host's words are quoted, never a whole body it sent. */
const maxMessageLength = 512;

export class CodeHostError extends Error {
  readonly reason: CodeHostErrorReason;
  /** The host's HTTP status, when it answered. */
  readonly status: number | undefined;

  constructor(reason: CodeHostErrorReason, message: string, status?: number) {
    super(message.length > maxMessageLength ? `${message.slice(0, maxMessageLength - 1)}…` : message);
    this.name = 'CodeHostError';
    this.reason = reason;
    this.status = status;
  }
}

/** The credentials Secret is missing, lacks a key or holds a value of the wrong form. No request was sent. */
export class CodeHostCredentialsError extends CodeHostError {
  constructor(message: string) {
    super('InvalidCredentials', message);
    this.name = 'CodeHostCredentialsError';
  }
}

/** The integration's base URL is not one this installation lets Berth call (outbound.ts). No request was sent. */
export class CodeHostNotAllowedError extends CodeHostError {
  constructor(message: string) {
    super('NotAllowed', message);
    this.name = 'CodeHostNotAllowedError';
  }
}

/** The host refused the credentials: bad, expired or revoked token, unknown App, suspended installation. */
export class CodeHostUnauthorizedError extends CodeHostError {
  constructor(message: string, status: number) {
    super('Unauthorized', message, status);
    this.name = 'CodeHostUnauthorizedError';
  }
}

export class CodeHostRateLimitedError extends CodeHostError {
  /** When the host says the limit lifts. */
  readonly resetAt: Date;

  constructor(message: string, status: number, resetAt: Date) {
    super('RateLimited', message, status);
    this.name = 'CodeHostRateLimitedError';
    this.resetAt = resetAt;
  }
}

export class CodeHostNotFoundError extends CodeHostError {
  constructor(message: string, status: number) {
    super('NotFound', message, status);
    this.name = 'CodeHostNotFoundError';
  }
}

/** No usable answer: connection refused, DNS, timeout, or the host's own 5xx. */
export class CodeHostUnreachableError extends CodeHostError {
  constructor(message: string, status?: number) {
    super('Unreachable', message, status);
    this.name = 'CodeHostUnreachableError';
  }
}

/**
 * Replaces every occurrence of the given secret values (and of each of their lines, for multi-line
 * values such as PEM keys) with [REDACTED]. A last guard on text built from a host's answer: a host
 * or a library that echoes a credential must not carry it into a status, an Event or a log line.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const needles = secrets
    .flatMap((secret) => [secret, ...secret.split('\n')])
    .map((needle) => needle.trim())
    .filter((needle) => needle.length >= 8 && !/^-----(BEGIN|END) /.test(needle))
    .sort((a, b) => b.length - a.length);
  let redacted = text;
  for (const needle of needles) redacted = redacted.split(needle).join('[REDACTED]');
  return redacted;
}

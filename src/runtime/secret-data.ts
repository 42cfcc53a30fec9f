// A Secret's `data` values are base64: the text one holds. Pure.

/** The text of a Secret's `data` value, or undefined when the key is absent. */
export function decodeSecretValue(value: string | undefined): string | undefined {
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

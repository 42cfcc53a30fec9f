// The one way a rendered object leaves out a member whose value is absent: `...optional('key', value)`.
// A member that depends on a condition other than presence (a non-empty string, a flag) is written as
// `...(condition ? { key: value } : {})`, which says so.

/** `{ key: value }`, or nothing when the value is undefined (optional members stay absent, not undefined). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

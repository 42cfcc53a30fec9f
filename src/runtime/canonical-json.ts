// JSON that says the same thing the same way, whatever order the API server or a client put the keys in:
// what digests, applied hashes and status comparisons are taken of.

/**
 * JSON with object keys sorted at every depth; `undefined` and `null` members are dropped, so an absent
 * optional field and one the API server stored as null read the same. Array order is kept: it means
 * something (the order of secrets is normalised by the caller). The applied hashes stored on objects
 * depend on it being exactly this text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of sortedKeys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined && member !== null) out[key] = normalise(member);
    }
    return out;
  }
  return value;
}

/**
 * The keys in the order the sorted copy lists them, without sort()'s work arrays (every pass writes
 * this text for each child it compares). An object lists integer-like keys first, in numeric order,
 * however they were added, so Object.keys has them in place already; the rest are sorted in place by
 * insertion, as they most often come nearly in order.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  let first = 0;
  while (first < keys.length && isArrayIndex(keys[first]!)) first++;
  if (keys.length - first > 32) return [...keys.slice(0, first), ...keys.slice(first).sort()];
  for (let i = first + 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= first && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** An array index: the decimal form of an integer below 2^32 - 1, as objects order their keys. */
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (!(first >= 48 && first <= 57)) return false;
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}

// A list response read as it arrives: each element of its top-level `items` array is parsed on its
// own as soon as its last byte is in, and the rest (kind, apiVersion, metadata) once the body ends.
//
// Why not JSON.parse of the whole page: the page's text and every item parsed from it stay alive
// until the last item is trimmed for the cache, long enough for V8 to move them to the old generation,
// where only a full collection frees them. Read item by item, a page costs one item beyond what the
// cache keeps: a page of a hundred Helm release Secrets of 1 MiB each is no longer 100 MiB of text
// and as much again of parsed objects at once. At 10,000 Deployments a restart outlived its
// scavenges with 268 MiB of allocations instead of 466 (BENCHMARKS.md, section 5).
//
// JSON.parse still does all the parsing; this only finds where items begin and end, which is safe to
// do on bytes: no byte of a multi-byte UTF-8 character is an ASCII quote, brace or bracket. Streaming
// JSON parsers (which build every value in JavaScript, token by token) do more to the same end.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
const COMMA = 0x2c;

/** Whitespace between JSON tokens: space, tab, line feed, carriage return. */
function isWhitespace(byte: number): boolean {
  return byte === SPACE || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** The text so far ends with the key `items` and its colon, where a key can be (after `{` or `,`). */
const itemsKeyBefore = /[{,]\s*"items"\s*:\s*$/;

export class ListItemReader<T = unknown> {
  readonly #onItem: (item: T) => void;
  /**
   * depth: nesting of objects and arrays before the next byte, outside strings. inItems: between the
   * `[` and `]` of the top-level items array, whose elements are at depth 2. inItem: in one of them.
   */
  #state = { depth: 0, inString: false, escaped: false, inItems: false, inItem: false };
  /** The bytes of the item being read that came in earlier chunks. */
  #itemParts: Buffer[] = [];
  /** Everything but the items' elements, in order: parsed by end(). */
  readonly #rest: Buffer[] = [];

  constructor(onItem: (item: T) => void) {
    this.#onItem = onItem;
  }

  /** Reads the next bytes of the body; each item they complete is parsed and handed over now. */
  push(chunk: Buffer): void {
    // The state in locals while the bytes are read (a hot loop), written back at the end.
    let { depth, inString, escaped, inItems, inItem } = this.#state;
    let itemStart = inItem ? 0 : -1;
    let restStart = inItems ? -1 : 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (inItems && depth === 2) {
          inItem = true;
          itemStart = i;
        } else if (depth === 1 && byte === OPEN_BRACKET && this.#isItemsKey(chunk.subarray(restStart, i))) {
          this.#rest.push(Buffer.from(chunk.subarray(restStart, i + 1)));
          restStart = -1;
          inItems = true;
        }
        depth++;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (inItem && depth === 2) {
          this.#emit(chunk, itemStart, i + 1);
          inItem = false;
          itemStart = -1;
        } else if (inItems && depth === 1) {
          inItems = false;
          restStart = i;
        } else if (depth < 0) throw new Error('the list response is not JSON');
      } else if (inItems && !inItem && byte !== COMMA && !isWhitespace(byte)) {
        throw new Error('a list item is not an object');
      } else if (byte === QUOTE) inString = true;
    }
    if (itemStart >= 0) this.#itemParts.push(Buffer.from(chunk.subarray(itemStart)));
    if (restStart >= 0) this.#rest.push(Buffer.from(chunk.subarray(restStart)));
    this.#state = { depth, inString, escaped, inItems, inItem };
  }

  /** The list without its items (`items: []`): its metadata carries the resourceVersion and continue token. */
  end(): Record<string, unknown> {
    if (this.#state.depth !== 0 || this.#state.inString) throw new Error('the list response ended before its end');
    return JSON.parse(Buffer.concat(this.#rest).toString('utf8')) as Record<string, unknown>;
  }

  /** Whether the `[` after these bytes (and those of #rest) opens the items array. */
  #isItemsKey(bytesBefore: Buffer): boolean {
    return itemsKeyBefore.test(Buffer.concat([...this.#rest, bytesBefore]).toString('utf8'));
  }

  #emit(chunk: Buffer, start: number, end: number): void {
    const bytes = this.#itemParts.length > 0 ? Buffer.concat([...this.#itemParts, chunk.subarray(0, end)]) : chunk.subarray(start, end);
    this.#itemParts = [];
    this.#onItem(JSON.parse(bytes.toString('utf8')) as T);
  }
}

// Log lines as the HTTP API answers them: the kubelet's timestamped lines of a revision's pods, parsed,
// redacted, filtered and paged by an opaque cursor. Pure: pod-logs.ts reads the pods' logs.
//
// A page is ordered by (timestamp, pod, container, rank among the container's lines of that timestamp).
// A cursor names one line, so the next page starts right after it, whatever arrived meanwhile, and the
// kubelet's tail window sliding on does not move it: next_offset names the last line of a page (or, for
// an empty page, the offset asked with), so a poller that always passes it back never reads a line twice
// and a build log read while the build runs is followed by asking again. Each line carries its offset
// and a stable id (a client following by time de-duplicates by id).
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const logTypes = ['deploy', 'build'] as const;
export type LogType = (typeof logTypes)[number];
const logLevels = ['debug', 'info', 'warning', 'error', 'critical'] as const;
export type LogLevel = (typeof logLevels)[number];
/** The levels a filter accepts: the reference's client sends them upper-cased. */
const levelFilterSchema = z
  .enum([...logLevels, ...logLevels.map((level) => level.toUpperCase() as Uppercase<LogLevel>)])
  .transform((level) => level.toLowerCase() as LogLevel);

/** The filters every log route takes, in the query (GET) or the body (POST). */
export const logFilterSchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50).describe('Most lines to return (1-1000).'),
  offset: z.string().max(512).nullable().optional().describe('The next_offset of the previous page; absent for the first page.'),
  order: z.enum(['asc', 'desc']).default('desc').describe('asc: oldest first; desc: newest first.'),
  level: levelFilterSchema.nullable().optional().describe('Only lines of this level (lower or upper case).'),
  query: z.string().max(1024).nullable().optional().describe('Only lines that contain this text (case-insensitive).'),
  start_time: z.iso.datetime({ offset: true }).nullable().optional().describe('Only lines at or after this time (RFC 3339).'),
  end_time: z.iso.datetime({ offset: true }).nullable().optional().describe('Only lines before this time (RFC 3339).'),
});
export type LogFilter = z.output<typeof logFilterSchema>;

const logEntrySchema = z
  .object({
    timestamp: z.string().describe('When the container wrote the line (RFC 3339, nanoseconds).'),
    message: z.string().describe('The line, with every secret value Berth knows masked.'),
    level: z.enum(logLevels).describe("The line's level: from a JSON line's level member, else from a level word in it, else info."),
    pod_name: z.string(),
    container_name: z.string(),
    offset: z.string().describe('Cursor of this line: as offset, it asks for the lines after it (how a client follows a running build).'),
    id: z.string().describe('Stable identity of the line: the same line has the same id in every answer.'),
  })
  .describe('One log line.');
export type LogEntry = z.infer<typeof logEntrySchema>;

export const logPageSchema = z
  .object({
    logs: z.array(logEntrySchema),
    next_offset: z
      .string()
      .nullable()
      .describe(
        'Pass as offset for the lines after this page: its last line, or the offset asked with when no line came. Null only for an empty first page.',
      ),
  })
  .describe('One page of log lines.');
export type LogPage = z.infer<typeof logPageSchema>;

/** One container's log as the kubelet returned it with timestamps=true. */
export interface ContainerLog {
  pod: string;
  container: string;
  text: string;
}

interface Line extends Omit<LogEntry, 'offset' | 'id'> {
  /** Rank among its container's lines of the same timestamp: orders them, and stays when older lines leave the tail. */
  seq: number;
}

/** `2026-11-24T18:00:00.123456789Z message` -> timestamp and message; a line without one keeps the previous time. */
export function parseContainerLog(log: ContainerLog): Line[] {
  const lines: Line[] = [];
  let last: string | undefined;
  let seq = 0;
  for (const raw of log.text.split('\n')) {
    if (raw === '') continue;
    const space = raw.indexOf(' ');
    const stamp = space > 0 ? raw.slice(0, space) : '';
    const timed = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(stamp);
    const timestamp = timed ? fixedWidth(stamp) : (last ?? '');
    const message = timed ? raw.slice(space + 1) : raw;
    seq = timestamp === last ? seq + 1 : 0;
    last = timestamp;
    lines.push({ timestamp, message, level: levelOf(message), pod_name: log.pod, container_name: log.container, seq });
  }
  return lines;
}

/**
 * The kubelet trims trailing zeros from the fraction (RFC3339Nano): nine digits always, so that
 * timestamps order as text.
 */
function fixedWidth(stamp: string): string {
  const [seconds, fraction = ''] = stamp.slice(0, -1).split('.');
  return `${seconds}.${fraction.padEnd(9, '0').slice(0, 9)}Z`;
}

const levelWords: [RegExp, LogLevel][] = [
  [/\b(critical|fatal|panic)\b/i, 'critical'],
  [/\b(error|err)\b/i, 'error'],
  [/\b(warn|warning)\b/i, 'warning'],
  [/\bdebug\b/i, 'debug'],
];
const pinoLevels: Record<number, LogLevel> = { 10: 'debug', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'critical' };

export function levelOf(message: string): LogLevel {
  if (message.startsWith('{')) {
    try {
      const parsed = JSON.parse(message) as { level?: unknown; severity?: unknown };
      const value = parsed.level ?? parsed.severity;
      if (typeof value === 'number' && pinoLevels[value]) return pinoLevels[value];
      if (typeof value === 'string') return levelOf(value);
    } catch {
      // Not JSON after all: read its words.
    }
  }
  for (const [pattern, level] of levelWords) if (pattern.test(message)) return level;
  return 'info';
}

/**
 * The characters of any base64 text that holds `value`, whatever precedes it (`x-access-token:` in an
 * HTTP Basic header, say): for each of the three byte alignments, the characters that depend on the
 * value's bits alone, in the standard and the URL-safe alphabet.
 */
export function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  const forms = new Set<string>();
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const form = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    forms.add(form);
    forms.add(form.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms];
}

/** Shorter values, and base64 forms, are too common to mask without masking ordinary words. */
const maskable = (text: string, least: number) => text.length >= least;

/** Every occurrence of a known secret value masked, as it is and in base64. */
export function redact(message: string, secretValues: readonly string[]): string {
  let result = message;
  for (const value of secretValues.filter((v) => maskable(v, 4))) {
    for (const form of [value, ...base64Forms(value).filter((f) => maskable(f, 6))]) result = result.split(form).join('********');
  }
  return result;
}

type Position = [timestamp: string, pod: string, container: string, seq: number];
const positionOf = (line: Line): Position => [line.timestamp, line.pod_name, line.container_name, line.seq];

function compare(a: Position, b: Position): number {
  for (let i = 0; i < 3; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return a[3] - b[3];
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** A line's id: a digest of its position, shorter than its cursor and opaque. */
function lineId(position: Position): string {
  return createHash('sha256').update(JSON.stringify(position)).digest('hex').slice(0, 32);
}

/** The position a cursor names, or undefined when it is not one this API gave out. */
export function decodeCursor(cursor: string): Position | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 4 && value.slice(0, 3).every((v) => typeof v === 'string') && Number.isInteger(value[3]))
      return value as Position;
  } catch {
    // Falls through.
  }
  return undefined;
}

function matches(line: Line, filter: LogFilter): boolean {
  if (filter.level && line.level !== filter.level) return false;
  if (filter.query && !line.message.toLowerCase().includes(filter.query.toLowerCase())) return false;
  const time = Date.parse(line.timestamp);
  if (filter.start_time && time < Date.parse(filter.start_time)) return false;
  if (filter.end_time && time >= Date.parse(filter.end_time)) return false;
  return true;
}

/** One page of the containers' lines: redacted, filtered, ordered, after the cursor. */
export function logPage(logs: readonly ContainerLog[], filter: LogFilter, secretValues: readonly string[], cursor?: Position): LogPage {
  const direction = filter.order === 'asc' ? 1 : -1;
  const lines = logs
    .flatMap(parseContainerLog)
    .map((line) => ({ ...line, message: redact(line.message, secretValues) }))
    .filter((line) => matches(line, filter) && (!cursor || direction * compare(positionOf(line), cursor) > 0))
    .sort((a, b) => direction * compare(positionOf(a), positionOf(b)));
  const page = lines.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    logs: page.map(({ seq: _seq, ...entry }, index) => {
      const position = positionOf(page[index]!);
      return { ...entry, offset: encodeCursor(position), id: lineId(position) };
    }),
    next_offset: last ? encodeCursor(positionOf(last)) : cursor ? encodeCursor(cursor) : null,
  };
}

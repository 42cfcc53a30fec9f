// What `npm start` writes to a person: on a terminal, readable log lines (pino-pretty) under one status
// line that says what is building and how far, rewritten in place; JSON lines, as Berth's own, when
// stdout is not a terminal or BERTH_LOG_FORMAT=json asks for them. Records with `progress: 'building'`
// are the status line's (local-cluster.ts's build progress) and one with `progress: 'done'` ends it; the
// redaction of createLogger applies first.
import type { DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';

/** The part of a terminal this needs: where to write, and whether it takes colours. */
export interface TerminalOut {
  write(text: string): unknown;
  isTTY?: boolean;
  hasColors?(): boolean;
}

/** Pretty lines on a terminal unless JSON is asked for; undefined means Berth's own JSON lines. */
export function terminalDestination(
  out: TerminalOut = process.stdout,
  format = process.env.BERTH_LOG_FORMAT,
): DestinationStream | undefined {
  if (format === 'json' || (format !== 'pretty' && !out.isTTY)) return undefined;
  return new TerminalLog(out);
}

const clearLine = '\r\x1b[2K';

class TerminalLog implements DestinationStream {
  readonly #out: TerminalOut;
  readonly #pretty: (record: Record<string, unknown>) => string;
  readonly #inPlace: boolean;
  #status = '';

  constructor(out: TerminalOut) {
    this.#out = out;
    this.#inPlace = !!out.isTTY;
    this.#pretty = prettyFactory({
      colorize: out.hasColors?.() ?? false,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,name,progress',
      singleLine: true,
    });
  }

  write(line: string): void {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (record.progress === 'building' && this.#inPlace) return this.#showStatus(`… ${String(record.msg)}`);
    if (record.progress === 'done') this.#status = '';
    const text = this.#pretty(record);
    this.#out.write(this.#inPlace ? `${clearLine}${text}${this.#status}` : text);
  }

  #showStatus(status: string): void {
    this.#status = status;
    this.#out.write(`${clearLine}${status}`);
  }
}

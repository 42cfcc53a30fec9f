// What every berth process does around its work: reads its command line (help and mistakes answered
// before anything starts), and stops in order on SIGINT, SIGTERM or SIGHUP (its terminal closed), each
// step undone last-in first-out, then exits. `berth run` (berth.ts) runs under it, and so may a command
// that runs Berth in a place of its own.
import type { Logger } from '../runtime/index.ts';
import { parseCommandLine, usage, type Options } from './options.ts';

/** What `parse` makes of a command line; `--help` prints `text` and a mistake says what is wrong with
 * `text` after it, each then exits. */
export function parsedOrExit<T>(parse: () => { help: true } | { help: false; value: T }, text: string): T {
  try {
    const parsed = parse();
    if (parsed.help) {
      process.stdout.write(text);
      process.exit(0);
    }
    return parsed.value;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${text}`);
    process.exit(2);
  }
}

/** The options of `berth run` in `argv`, or its help or mistake said and the process ended. */
export function optionsOrExit(argv: string[]): Options {
  return parsedOrExit(() => {
    const parsed = parseCommandLine(argv);
    return parsed.help ? parsed : { help: false, value: parsed.options };
  }, usage);
}

export interface Stopping {
  /** A step to undo at the stop; the last one added runs first. */
  add(step: () => Promise<void>): void;
  /** Runs every step (once, whoever asks first), then exits with `exitCode`. */
  stop(reason: string, exitCode?: number): Promise<void>;
  readonly requested: boolean;
}

/** The signals that stop the process in order: Ctrl-C, a stop asked for, and a terminal that closed (the
 * default of SIGHUP would end it at once, leaving every process it started running). */
const stopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The stop of this process, asked for by one of stopSignals or a failure. */
export function stopOnSignals(logger: Logger): Stopping {
  const steps: Array<() => Promise<void>> = [];
  let requested = false;
  const stopping: Stopping = {
    add: (step) => void steps.push(step),
    async stop(reason, exitCode = 0) {
      if (requested) return;
      requested = true;
      if (reason === 'SIGHUP') ignoreClosedOutput();
      logger.info({ reason }, 'stopping');
      for (const step of steps.reverse()) {
        await step().catch((error: unknown) => logger.error({ err: error }, 'error while stopping'));
      }
      process.exit(exitCode);
    },
    get requested() {
      return requested;
    },
  };
  for (const signal of stopSignals) process.once(signal, () => void stopping.stop(signal));
  return stopping;
}

/** After SIGHUP the terminal is gone: a write to it fails (EIO, EPIPE), and that must not end the stop.
 * The logger drops such lines itself (src/runtime/logger.ts); this covers what is printed directly. */
function ignoreClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

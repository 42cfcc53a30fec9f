// What every berth process does around its work: reads its command line (help and mistakes answered
// before anything starts), and stops in order on SIGINT or SIGTERM, each step undone last-in first-out,
// then exits. `berth run` (berth.ts) and `berth dev` (workbench/berth-dev.ts) both run under it.
import type { Logger } from '../runtime/index.ts';
import { parseCommandLine, usage, type Options } from './options.ts';

/** The options of `argv`; `--help` prints the usage and a mistake says what is wrong, each then exits. */
export function optionsOrExit(argv: string[]): Options {
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.help) {
      process.stdout.write(usage);
      process.exit(0);
    }
    return parsed.options;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}

export interface Stopping {
  /** A step to undo at the stop; the last one added runs first. */
  add(step: () => Promise<void>): void;
  /** Runs every step (once, whoever asks first), then exits with `exitCode`. */
  stop(reason: string, exitCode?: number): Promise<void>;
  readonly requested: boolean;
}

/** The stop of this process, asked for by SIGINT, SIGTERM or a failure. */
export function stopOnSignals(logger: Logger): Stopping {
  const steps: Array<() => Promise<void>> = [];
  let requested = false;
  const stopping: Stopping = {
    add: (step) => void steps.push(step),
    async stop(reason, exitCode = 0) {
      if (requested) return;
      requested = true;
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
  process.once('SIGINT', () => void stopping.stop('SIGINT'));
  process.once('SIGTERM', () => void stopping.stop('SIGTERM'));
  return stopping;
}

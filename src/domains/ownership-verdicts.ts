// The Deployment controller's verdicts of host ownership, kept so a reconcile never waits on a tenant's
// DNS: a host's TXT lookup may be made slow by whoever runs its zone. A verdict is kept and given at
// once; one older than `freshMs` is given while it is asked again in the background. A question not
// asked before waits at most `waitMs`; a slower answer comes later, and `onLateVerdict` says so
// (the controller enqueues the Deployment). One lookup per question at a time, however many ask.
import type { HostOwnershipProver, OwnershipQuestion, OwnershipVerdict } from './host-ownership.ts';
import { verifiedDomainsAnnotation } from '../api/index.ts';
import { withTimeout } from '../runtime/index.ts';

export interface OwnershipVerdictOptions {
  /** How long a verdict is given without asking again. */
  freshMs?: number;
  /** How long a question not asked before may hold its caller. */
  waitMs?: number;
  /** A verdict not asked for in this long is forgotten. */
  forgetMs?: number;
  now?: () => number;
}

export interface OwnershipVerdicts {
  /** The question's verdict, or undefined while its first lookup runs past `waitMs`; `onLateVerdict` is
   * called when that lookup ends, or when a background lookup changes the verdict given. */
  judge(question: OwnershipQuestion, onLateVerdict: () => void): Promise<OwnershipVerdict | undefined>;
}

interface Entry {
  verdict?: OwnershipVerdict;
  at: number;
  askedAt: number;
  lookup?: Promise<OwnershipVerdict>;
  waiting: Set<() => void>;
}

export function ownershipVerdicts(prove: HostOwnershipProver, options: OwnershipVerdictOptions = {}): OwnershipVerdicts {
  const { freshMs = 30_000, waitMs = 500, forgetMs = 10 * 60_000, now = Date.now } = options;
  const entries = new Map<string, Entry>();

  const lookUp = (entry: Entry, question: OwnershipQuestion): Promise<OwnershipVerdict> =>
    (entry.lookup ??= prove(question)
      .catch((error: Error): OwnershipVerdict => ({
        proven: false,
        message: `Looking up the proof for ${question.host} failed: ${error.message}`,
      }))
      .then((verdict) => {
        const changed = JSON.stringify(verdict) !== JSON.stringify(entry.verdict);
        Object.assign(entry, { verdict, at: now(), lookup: undefined });
        const waiting = [...entry.waiting];
        entry.waiting.clear();
        if (changed) waiting.forEach((call) => call());
        forgetUnasked();
        return verdict;
      }));

  const forgetUnasked = () => {
    for (const [key, entry] of entries) if (!entry.lookup && now() - entry.askedAt > forgetMs) entries.delete(key);
  };

  return {
    async judge(question, onLateVerdict) {
      const key = questionKey(question);
      const entry = entries.get(key) ?? { at: 0, askedAt: 0, waiting: new Set<() => void>() };
      entries.set(key, entry);
      entry.askedAt = now();
      if (entry.verdict && now() - entry.at < freshMs) return entry.verdict;
      const lookup = lookUp(entry, question);
      if (entry.verdict) {
        entry.waiting.add(onLateVerdict);
        return entry.verdict;
      }
      // The lookup may end between the timer and this line: its verdict is the entry's by then.
      const answered = (await withTimeout(lookup, waitMs)) ?? entry.verdict;
      if (answered) return answered;
      entry.waiting.add(onLateVerdict);
      return undefined;
    },
  };
}

/** The organization, the host and the domains the platform recorded: a change of any is a new question. */
function questionKey({ host, organizationId, namespaceAnnotations }: OwnershipQuestion): string {
  return JSON.stringify([organizationId, host, namespaceAnnotations?.[verifiedDomainsAnnotation] ?? '']);
}

// Which open pull requests of a Deployment's repository have a preview (sourceConfig.previews): all but
// drafts, or those with the label; at most maxConcurrent, the ones that have a preview keeping it, then
// the lowest-numbered. Pure.
import { defaultMaxPreviews, type PreviewsSpec } from '../../api/index.ts';
import type { PullRequest } from '../../codehost/pull-request.ts';
import type { DeepReadonly } from '../../runtime/index.ts';

export interface PreviewChoice {
  /** The requests that have a preview (made now, or kept and brought up to date). */
  wanted: PullRequest[];
  /** The numbers of existing previews whose request closed, merged or no longer asks for one. */
  removed: number[];
  /** Eligible requests left without a preview by the cap. */
  overCap: number[];
}

export function decidePreviews(
  config: DeepReadonly<PreviewsSpec> | undefined,
  open: readonly PullRequest[],
  existing: readonly number[],
): PreviewChoice {
  const trigger = config?.trigger ?? 'all';
  const eligible =
    !config || trigger === 'off'
      ? []
      : open.filter((request) => !request.draft && (trigger === 'all' || (!!config.label && request.labels.includes(config.label))));
  const cap = config?.maxConcurrent ?? defaultMaxPreviews;
  const had = new Set(existing);
  const ordered = [...eligible].sort((a, b) => Number(had.has(b.number)) - Number(had.has(a.number)) || a.number - b.number);
  const wanted = ordered.slice(0, cap);
  const kept = new Set(wanted.map((request) => request.number));
  return {
    wanted: wanted.sort((a, b) => a.number - b.number),
    removed: existing.filter((number) => !kept.has(number)).sort((a, b) => a - b),
    overCap: ordered.slice(cap).map((request) => request.number),
  };
}

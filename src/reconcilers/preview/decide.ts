// Which open pull requests of a Deployment's repository have a preview (sourceConfig.previews): all but
// drafts, or those with the label; a fork's only with a maintainer's label unless the deployment says
// otherwise (forks); at most maxConcurrent, the ones that have a preview keeping it, then the
// lowest-numbered. Pure.
import { defaultMaxPreviews, defaultPreviewForkLabel, type PreviewsSpec } from '../../api/index.ts';
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
      : open.filter(
          (request) =>
            !request.draft &&
            (trigger === 'all' || (!!config.label && request.labels.includes(config.label))) &&
            (!request.fromFork || forkAdmitted(config, request)),
        );
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

/** A request from a fork is admitted as the deployment says: with the maintainers' label (the default), always, or never. */
function forkAdmitted(config: DeepReadonly<PreviewsSpec>, request: PullRequest): boolean {
  const mode = config.forks ?? 'label';
  if (mode === 'label') return request.labels.includes(config.forkLabel ?? defaultPreviewForkLabel);
  return mode === 'all';
}

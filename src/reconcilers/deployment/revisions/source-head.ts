// Which commit a build-on-push Deployment builds: the head of its branch, asked of the repository (git's
// ref advertisement, src/codehost/branch-head.ts) at most once per poll interval per repository, branch
// and credential. The Deployment is reconciled again after each interval, so a push makes a new
// Revision within one interval; the commit is part of the revision digest.
import { sourceKind } from '../../../api/index.ts';
import { sha256Hex } from './digest.ts';
import { branchHead, type BranchHeadInput } from '../../../codehost/branch-head.ts';
import { CoalescingCache } from '../../../codehost/coalescing-cache.ts';
import { commitShaOf } from '../render/revision.ts';

interface TrackedSpec {
  source: string;
  sourceConfig?: { buildOnPush?: boolean | null; repoUrl?: string | null } | null;
  sourceRevisionConfig?: { repoRef?: string | null } | null;
}

/** The branch a Deployment follows: built from a repository, buildOnPush, and a ref that is a branch (not a commit). */
export function trackedBranch(spec: TrackedSpec): { repoUrl: string; ref: string } | undefined {
  const repoUrl = spec.sourceConfig?.repoUrl;
  const ref = spec.sourceRevisionConfig?.repoRef;
  if (sourceKind(spec.source)?.image !== 'built-from-repository' || !spec.sourceConfig?.buildOnPush || !repoUrl || !ref || commitShaOf(ref))
    return undefined;
  return { repoUrl, ref };
}

export interface SourceHeads {
  /** `fresh`: the Deployment's last code-host event (codeHostEventAnnotation); a new one is read anew. */
  head(input: { repoUrl: string; ref: string; token?: string; fresh?: string }): Promise<string>;
}

export function createSourceHeads(options: { intervalMs: number; resolve?: (input: BranchHeadInput) => Promise<string> }): SourceHeads {
  const cache = new CoalescingCache<string>({ ttlMs: options.intervalMs });
  const resolve = options.resolve ?? branchHead;
  return {
    // The credential is part of the key: a private repository's head is never answered to another credential.
    head: ({ fresh, ...input }) =>
      cache.get(`${input.repoUrl}\n${input.ref}\n${sha256Hex(input.token ?? '')}\n${fresh ?? ''}`, () => resolve(input)),
  };
}

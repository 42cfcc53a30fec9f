// An open pull request (GitHub) or merge request (GitLab) as previews read it, whichever host it is on,
// and the ref its head is fetched by from the base repository (fork requests too). Pure.

export interface PullRequest {
  /** GitHub's number, GitLab's iid: what the preview is named after. */
  number: number;
  headSha: string;
  /** The branch it comes from (informational: a fork's branch is not in the base repository). */
  headRef: string;
  /** It comes from another repository than the base: its code is not the team's own. */
  fromFork: boolean;
  labels: string[];
  draft: boolean;
}

/** The fields Berth reads from GitHub's pull request JSON. */
export interface GitHubPull {
  number: number;
  draft?: boolean;
  labels?: { name?: string }[];
  head: { sha: string; ref: string; repo: { id: number } | null };
  base: { repo: { id: number } };
}

export function fromGitHubPull(pull: GitHubPull): PullRequest {
  return {
    number: pull.number,
    headSha: pull.head.sha,
    headRef: pull.head.ref,
    // A fork that was deleted leaves no head repository: its code is still not the team's.
    fromFork: pull.head.repo === null || pull.head.repo.id !== pull.base.repo.id,
    labels: (pull.labels ?? []).flatMap((label) => (label.name ? [label.name] : [])),
    draft: pull.draft ?? false,
  };
}

/** The fields Berth reads from GitLab's merge request JSON. */
export interface GitLabMergeRequest {
  iid: number;
  sha: string;
  source_branch: string;
  source_project_id: number;
  target_project_id: number;
  labels?: string[];
  draft?: boolean;
}

export function fromGitLabMergeRequest(request: GitLabMergeRequest): PullRequest {
  return {
    number: request.iid,
    headSha: request.sha,
    headRef: request.source_branch,
    fromFork: request.source_project_id !== request.target_project_id,
    labels: request.labels ?? [],
    draft: request.draft ?? false,
  };
}

export { repositoryPathOf } from '../api/preview-database.ts';

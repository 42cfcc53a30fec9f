// What Berth asks of a code host, whichever host it is.
import type { PullRequest } from './pull-request.ts';

/**
 * One repository as the HTTP interface lists it. Its fields are meant to be copied into a deployment:
 * `host_integration_id` becomes `source_config.integration_id`, `url` becomes `source_config.repo_url`
 * and `default_branch` becomes `source_revision_config.repo_ref`.
 *
 * `url` is the repository's web address (GitHub's `html_url`, GitLab's `web_url`, e.g.
 * `https://github.com/acme/api`) rather than a clone URL: it is what a person pastes, it names the
 * repository on every host the same way, and a builder derives the clone URL from it by appending `.git`.
 */
export interface Repository {
  host_integration_id: string;
  id: number;
  name: string;
  owner: string;
  url: string;
  default_branch: string;
}

/** Who the credentials act as: a user's login, or the account a GitHub App is installed on. */
export interface CodeHostAccount {
  login: string;
  /** 'user' for a personal token, 'installation' for a GitHub App installation. */
  kind: 'user' | 'installation';
}

export interface CodeHostClient {
  /** Every repository the credentials can reach, across all pages. */
  listRepositories(): Promise<Repository[]>;
  /** The open pull (merge) requests of one repository, given as `owner/name`, across all pages. */
  openPullRequests(repositoryPath: string): Promise<PullRequest[]>;
  /** Checks that the credentials are accepted and says whom they act as. */
  verify(): Promise<CodeHostAccount>;
}

/** Where a client's diagnostics go (a pino logger fits); nothing it receives carries a credential. */
export interface CodeHostLog {
  debug(message: string): void;
  warn(message: string): void;
}

export const silentLog: CodeHostLog = { debug: () => {}, warn: () => {} };

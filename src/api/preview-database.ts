// Where a preview's database begins (docs/data.md §2.7): empty, or a clone of its deployment's newest
// completed backup where the installation lets that repository's previews have one (the organization
// policy's previewDatabaseClone), never for a request from a fork. Pure.
import { z } from 'zod';

export const previewDatabases = ['empty', 'clone'] as const;
export type PreviewDatabase = (typeof previewDatabases)[number];

/** `host[:port]/owner/name`, or `host[:port]/owner/*` for every repository under it (GitLab groups too). */
export const repositoryPatternSchema = z
  .string()
  .min(3)
  .max(512)
  .regex(/^[a-z0-9.-]+(:[0-9]{1,5})?(\/[A-Za-z0-9_.-]+)+(\/\*)?$/, 'expected host/owner/name or host/owner/*');

/** `owner/name` (GitLab: `group/subgroup/name`) of a repository's web address, or undefined. */
export function repositoryPathOf(repoUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(repoUrl);
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  const parts = path.split('/');
  return parts.length >= 2 && parts.every((part) => /^[A-Za-z0-9_.-]+$/.test(part) && part !== '.' && part !== '..') ? path : undefined;
}

/** `host[:port]/owner/name` of a repository's web address, in lower case, or undefined. */
function repositoryKey(repoUrl: string): string | undefined {
  const path = repositoryPathOf(repoUrl);
  return path && `${new URL(repoUrl).host}/${path}`.toLowerCase();
}

/** Why the installation lets no preview of `repoUrl` clone its deployment's database; undefined when it does. */
export function previewCloneRefusal(repoUrl: string, allowed: readonly string[] | undefined): string | undefined {
  const key = repositoryKey(repoUrl);
  const listed = (allowed ?? []).some((pattern) => {
    const lower = pattern.toLowerCase();
    return key !== undefined && (lower.endsWith('/*') ? key.startsWith(lower.slice(0, -1)) : key === lower);
  });
  return listed
    ? undefined
    : `this installation lets no preview of ${key ?? repoUrl} clone its deployment's database (the organization policy's previewDatabaseClone)`;
}

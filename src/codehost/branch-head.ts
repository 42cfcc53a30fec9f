// The commit a branch points at, asked of the repository itself over git's smart-HTTP protocol (the
// ref advertisement of `git ls-remote`: GET <repo>.git/info/refs?service=git-upload-pack), so it works
// for any code host that serves git over HTTP(S), with the integration's token as GitHub and GitLab
// take it (Basic `x-access-token:<token>`). No message quotes the token.

class BranchHeadError extends Error {
  override name = 'BranchHeadError';
}

export interface BranchHeadInput {
  repoUrl: string;
  /** A branch name (`main`) or a full ref (`refs/heads/main`). */
  ref: string;
  token?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The ref a branch name stands for. */
function fullRef(ref: string): string {
  return ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
}

/** `https://host/owner/repo` or `.../repo.git` → the ref advertisement's URL. */
export function advertisementUrl(repoUrl: string): string {
  const base = repoUrl.replace(/\/+$/, '').replace(/\.git$/, '');
  return `${base}.git/info/refs?service=git-upload-pack`;
}

/** The refs of a protocol v0 advertisement (pkt-lines): ref name → commit. Pure. */
export function parseAdvertisement(body: string): Map<string, string> {
  const refs = new Map<string, string>();
  let at = 0;
  while (at + 4 <= body.length) {
    const length = Number.parseInt(body.slice(at, at + 4), 16);
    if (Number.isNaN(length)) throw new BranchHeadError('the answer is not a git ref advertisement');
    if (length === 0) {
      at += 4; // a flush-pkt
      continue;
    }
    const line = body.slice(at + 4, at + length).replace(/\n$/, '');
    at += length;
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) ([^\0]+)/.exec(line);
    if (match) refs.set(match[2]!, match[1]!);
  }
  return refs;
}

export async function branchHead(input: BranchHeadInput): Promise<string> {
  const doFetch = input.fetch ?? fetch;
  const headers: Record<string, string> = { 'user-agent': 'git/berth' };
  if (input.token) headers.authorization = `Basic ${Buffer.from(`x-access-token:${input.token}`).toString('base64')}`;
  const url = advertisementUrl(input.repoUrl);
  const response = await doFetch(url, { headers, signal: AbortSignal.timeout(input.timeoutMs ?? 10_000) }).catch((error: Error) => {
    throw new BranchHeadError(`cannot reach ${new URL(url).origin}: ${error.message}`);
  });
  if (!response.ok) throw new BranchHeadError(`${new URL(url).origin} answered ${response.status} for the repository's refs`);
  const ref = fullRef(input.ref);
  const head = parseAdvertisement(await response.text()).get(ref);
  if (!head) throw new BranchHeadError(`the repository has no ${ref}`);
  return head;
}

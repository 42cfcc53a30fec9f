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

/**
 * `https://host/owner/repo` or `.../repo.git` → the ref advertisement's URL. Only the repository's own
 * path is asked for: a URL with a query, a fragment (which would cut the advertisement's path off) or
 * user information is refused.
 */
export function advertisementUrl(repoUrl: string): string {
  const url = URL.canParse(repoUrl) ? new URL(repoUrl) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new BranchHeadError('the repository URL is not an http(s) URL');
  // The text, not the parsed URL: an empty query or fragment ('x?', 'x#') parses to none.
  if (repoUrl.includes('#') || repoUrl.includes('?') || url.username || url.password) {
    throw new BranchHeadError('the repository URL has a query, a fragment or user information');
  }
  const base = `${url.origin}${url.pathname}`.replace(/\/+$/, '').replace(/\.git$/, '');
  return `${base}.git/info/refs?service=git-upload-pack`;
}

/** The most of a ref advertisement read: a repository with more refs than fit is refused, not read on. */
export const maxAdvertisementBytes = 8 * 1024 * 1024;

/**
 * The refs of a protocol v0 advertisement (pkt-lines): ref name → commit. Pure. A length that is not four
 * hex digits, is shorter than its own header (but for the special packets 0000-0002), or runs past the
 * end is refused: every packet moves the reader forward, so no input makes it loop.
 */
export function parseAdvertisement(body: string): Map<string, string> {
  const refs = new Map<string, string>();
  let at = 0;
  while (at < body.length) {
    const header = body.slice(at, at + 4);
    if (!/^[0-9a-f]{4}$/i.test(header)) throw new BranchHeadError('the answer is not a git ref advertisement');
    const length = Number.parseInt(header, 16);
    if (length <= 2) {
      at += 4; // flush, delimiter or response-end packet
      continue;
    }
    if (length < 4 || at + length > body.length) throw new BranchHeadError('the answer is not a git ref advertisement');
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
  // Redirects are not followed: the token is for the repository's own host.
  const response = await doFetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(input.timeoutMs ?? 10_000) }).catch(
    (error: Error) => {
      throw new BranchHeadError(`cannot reach ${new URL(url).origin}: ${error.message}`);
    },
  );
  if (!response.ok) throw new BranchHeadError(`${new URL(url).origin} answered ${response.status} for the repository's refs`);
  const ref = fullRef(input.ref);
  const head = parseAdvertisement(await boundedText(response, maxAdvertisementBytes)).get(ref);
  if (!head) throw new BranchHeadError(`the repository has no ${ref}`);
  return head;
}

/** The body as text, refused once it is longer than `limit` bytes (the rest is not read). */
async function boundedText(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) throw new BranchHeadError(`the repository's refs are over ${limit} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop cancels the stream: the rest is never read.
    if (size > limit) throw new BranchHeadError(`the repository's refs are over ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// A git server on the host: git's own smart-HTTP server (`git http-backend`, Debian's git) behind a
// Node HTTP server, serving bare repositories a test creates and commits to. A private repository
// answers only requests carrying its token, as GitHub's git endpoint does (`x-access-token:<token>`
// Basic credentials), so a build's credentials are checked for real.

/** Whether a request path is git's smart-HTTP protocol (`owner/name[.git]/info/refs`, `.../git-upload-pack`). */
export function isGitPath(path: string): boolean {
  return /^\/[^/]+\/[^/]+?(\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)(\?|$)/.test(path);
}
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const gitIdentity = {
  GIT_AUTHOR_NAME: 'Berth Test',
  GIT_AUTHOR_EMAIL: 'test@berth.invalid',
  GIT_COMMITTER_NAME: 'Berth Test',
  GIT_COMMITTER_EMAIL: 'test@berth.invalid',
};

export interface GitRequest {
  method: string;
  path: string;
  status: number;
}

export class GitServer {
  readonly requests: GitRequest[] = [];
  readonly #root: string;
  readonly #server: Server;
  readonly #tokens = new Map<string, string>();

  private constructor(root: string) {
    this.#root = root;
    this.#server = createServer((request, response) => this.handle(request, response));
  }

  /** Listens on `host` (the node's address, for pods to clone from) at a free port. */
  static async start(host = '127.0.0.1'): Promise<GitServer> {
    const server = new GitServer(mkdtempSync(join(tmpdir(), 'berth-git-')));
    await new Promise<void>((resolve) => server.#server.listen(0, host, resolve));
    return server;
  }

  get url(): string {
    const { address, port } = this.#server.address() as AddressInfo;
    return `http://${address}:${port}`;
  }

  /** The clone URL of `owner/name`. */
  cloneUrl(fullName: string): string {
    return `${this.url}/${fullName}.git`;
  }

  /** A repository with one commit of `files` on `branch`; with a token it is private. Returns the commit. */
  async createRepository(
    fullName: string,
    files: Record<string, string>,
    options: { branch?: string; token?: string } = {},
  ): Promise<string> {
    const bare = this.#bare(fullName);
    mkdirSync(dirname(bare), { recursive: true });
    await git(['init', '-q', '--bare', `--initial-branch=${options.branch ?? 'main'}`, bare]);
    if (options.token) this.#tokens.set(fullName, options.token);
    return this.commit(fullName, files, 'initial commit', options.branch ?? 'main');
  }

  /** Commits `files` (added or replaced) on top of `branch` and pushes it; returns the new commit. */
  async commit(fullName: string, files: Record<string, string>, message: string, branch = 'main'): Promise<string> {
    const work = mkdtempSync(join(tmpdir(), 'berth-git-work-'));
    try {
      await git(['clone', '-q', this.#bare(fullName), work]);
      // On top of the branch where it exists; a new branch starts from the default one.
      const exists = await git(['-C', work, 'rev-parse', '-q', '--verify', `refs/remotes/origin/${branch}`]).then(
        () => true,
        () => false,
      );
      await git(['-C', work, 'checkout', '-q', '-B', branch, ...(exists ? [`origin/${branch}`] : [])]);
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), content);
      }
      await git(['-C', work, 'add', '-A']);
      await git(['-C', work, 'commit', '-q', '--allow-empty', '-m', message]);
      await git(['-C', work, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`]);
      return (await git(['-C', work, 'rev-parse', 'HEAD'])).trim();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  /** Points `ref` (e.g. refs/pull/3/head, as GitHub keeps one per pull request) at `commit`. */
  async setRef(fullName: string, ref: string, commit: string): Promise<void> {
    await git(['--git-dir', this.#bare(fullName), 'update-ref', ref, commit]);
  }

  /** The commit `branch` points at. */
  async head(fullName: string, branch = 'main'): Promise<string> {
    return (await git(['--git-dir', this.#bare(fullName), 'rev-parse', `refs/heads/${branch}`])).trim();
  }

  /** Every commit of every branch with its patch: all the repository ever held. */
  async history(fullName: string): Promise<string> {
    return git(['--git-dir', this.#bare(fullName), 'log', '-p', '--all']);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.#root, { recursive: true, force: true });
  }

  #bare(fullName: string): string {
    return join(this.#root, `${fullName}.git`);
  }

  /** Answers one smart-HTTP request: for a server of its own, or another that serves git beside its API
   * on one origin (test/support/fake-github.ts, as GitHub Enterprise does). */
  handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://git');
    const record = (status: number) => this.requests.push({ method: request.method ?? 'GET', path: url.pathname, status });
    // `owner/name` with or without `.git`, as GitHub answers both.
    const [, fullName, endpoint] = /^\/([^/]+\/[^/]+?)(?:\.git)?(\/.*)$/.exec(url.pathname) ?? [];
    const token = fullName ? this.#tokens.get(fullName) : undefined;
    if (token && basicPassword(request.headers.authorization) !== token) {
      record(401);
      response.writeHead(401, { 'www-authenticate': 'Basic realm="berth-test"' }).end();
      return;
    }
    // git's CGI program does the protocol; this only moves bytes and its headers.
    const backend = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: this.#root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: fullName ? `/${fullName}.git${endpoint}` : url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? 'GET',
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        ...(request.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] } : {}),
        ...(request.headers['git-protocol'] ? { GIT_PROTOCOL: String(request.headers['git-protocol']) } : {}),
        REMOTE_ADDR: request.socket.remoteAddress ?? '',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    request.pipe(backend.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    backend.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) return void response.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const at = line.indexOf(':');
        const [name, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      record(status);
      response.writeHead(status, headers);
      headersSent = true;
      response.write(head.subarray(end + 4));
    });
    backend.on('close', () => {
      if (!headersSent) {
        record(500);
        response.writeHead(500);
      }
      response.end();
    });
  }
}

function basicPassword(authorization: string | undefined): string | undefined {
  const match = /^Basic (.+)$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1);
}

async function git(args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    env: { ...process.env, ...gitIdentity, GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir() },
    encoding: 'utf8',
  });
  return stdout;
}

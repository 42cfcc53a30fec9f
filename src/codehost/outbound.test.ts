import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubClient } from './github.ts';
import { createGitLabClient } from './gitlab.ts';
import { baseUrlRefusal, OffOriginError, originAllowed, publicCodeHostOrigins, sameOriginFetch } from './outbound.ts';

describe('the origins an installation allows', () => {
  it('takes the public code hosts by default, and exact origins or any port of one host', () => {
    expect(originAllowed(new URL('https://api.github.com/user'), publicCodeHostOrigins)).toBe(true);
    expect(originAllowed(new URL('http://api.github.com/user'), publicCodeHostOrigins)).toBe(false);
    expect(originAllowed(new URL('https://api.github.com:8443/user'), publicCodeHostOrigins)).toBe(false);
    expect(originAllowed(new URL('http://169.254.169.254/latest/meta-data'), publicCodeHostOrigins)).toBe(false);
    expect(originAllowed(new URL('http://10.243.0.1:34567/api'), ['http://10.243.0.1:*'])).toBe(true);
    expect(originAllowed(new URL('https://10.243.0.1:34567/api'), ['http://10.243.0.1:*'])).toBe(false);
  });

  it('refuses a base URL elsewhere, or with a query, a fragment or user information, before any request', () => {
    expect(baseUrlRefusal('https://api.github.com', publicCodeHostOrigins)).toBeUndefined();
    for (const [baseUrl, says] of [
      ['http://169.254.169.254/latest', 'is not among the code hosts this installation allows'],
      ['http://kubernetes.default.svc/api', 'is not among the code hosts'],
      ['https://api.github.com/api#', 'a query, a fragment or user information'],
      ['https://api.github.com/api?x=', 'a query, a fragment or user information'],
      ['https://user:pw@api.github.com', 'a query, a fragment or user information'],
      ['file:///etc/passwd', 'not an http(s) URL'],
    ] as const) {
      expect(baseUrlRefusal(baseUrl, publicCodeHostOrigins), baseUrl).toContain(says);
    }
  });
});

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A real server on loopback answering each path as `routes` says. */
async function serve(routes: (path: string, origin: string) => Answer) {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.url ?? '/');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = routes(request.url ?? '/', origin);
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('a client keeps every request on its base URL origin', () => {
  let elsewhere: Awaited<ReturnType<typeof serve>>;
  let host: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    elsewhere = await serve(() => ({ status: 200, body: [] }));
    host = await serve((path, origin): Answer => {
      if (path.startsWith('/moved')) return { status: 301, headers: { location: `${origin}/user` } };
      if (path.startsWith('/away')) return { status: 302, headers: { location: `${elsewhere.url}/user` } };
      if (path.startsWith('/user/repos'))
        return { status: 200, headers: { link: `<${elsewhere.url}/user/repos?page=2>; rel="next"` }, body: [] };
      if (path.startsWith('/projects'))
        return { status: 200, headers: { link: `<${elsewhere.url}/projects?page=2>; rel="next"` }, body: [] };
      return { status: 200, body: { login: 'me' } };
    });
  });
  afterAll(() => {
    elsewhere.server.close();
    host.server.close();
  });

  it('follows a redirect on its origin and refuses one to another, sending nothing there', async () => {
    const guarded = sameOriginFetch(host.url);
    expect(await (await guarded(`${host.url}/moved`)).json()).toEqual({ login: 'me' });
    await expect(guarded(`${host.url}/away`)).rejects.toBeInstanceOf(OffOriginError);
    await expect(guarded(`${elsewhere.url}/user`)).rejects.toBeInstanceOf(OffOriginError);
    expect(elsewhere.seen).toEqual([]);
  });

  it("does not follow GitHub's or GitLab's page links to another origin", async () => {
    const credentials = { kind: 'token' as const, token: 'secret-token' };
    const github = createGitHubClient({ integrationId: 'i', credentials, baseUrl: host.url });
    await expect(github.listRepositories()).rejects.toThrow(/stay on http:\/\/127\.0\.0\.1/);
    const gitlab = createGitLabClient({ integrationId: 'i', credentials, baseUrl: host.url });
    await expect(gitlab.listRepositories()).rejects.toThrow(/stay on http:\/\/127\.0\.0\.1/);
    expect(elsewhere.seen).toEqual([]);
  });
});

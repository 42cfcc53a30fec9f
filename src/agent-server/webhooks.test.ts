// The durable agent server's webhooks policy (berth_agent_server/webhooks.py), run by a real Python
// interpreter: which URLs a run may name, the headers' variables, and the body sent. Addresses are IP
// literals, so nothing here resolves a name or leaves the machine.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const adapter = import.meta.dirname;

/** Runs `code` with the module imported as `w`, the given LANGGRAPH_WEBHOOKS and environment; its last
 * printed line, as JSON. */
function python(code: string, webhooks: unknown = {}, env: Record<string, string> = {}): unknown {
  const script = [
    'import asyncio, json, sys',
    `sys.path.insert(0, ${JSON.stringify(adapter)})`,
    'from berth_agent_server import webhooks as w',
    code,
  ].join('\n');
  const output = execFileSync('python3', ['-I', '-c', script], {
    env: { PATH: process.env.PATH ?? '', LANGGRAPH_WEBHOOKS: JSON.stringify(webhooks), ...env },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!);
}

/** What the policy answers for each URL: "ok" or the refusal's message. */
function verdicts(urls: string[], webhooks: unknown = {}): string[] {
  const code = [
    'async def verdict(url):',
    '    try:',
    '        await w.check(url, w.url_policy(w.config()))',
    '        return "ok"',
    '    except w.Refused as refused:',
    '        return str(refused)',
    `print(json.dumps([asyncio.run(verdict(url)) for url in ${JSON.stringify(urls)}]))`,
  ].join('\n');
  return python(code, webhooks) as string[];
}

describe("a run's webhook URL", () => {
  it('takes any absolute http(s) URL without a policy, but never a link-local host or a relative path', () => {
    expect(
      verdicts(['http://10.1.2.3:8080/hook', 'https://127.0.0.1/x', 'http://169.254.169.254/latest', '/threads', 'ftp://10.1.2.3/']),
    ).toEqual([
      'ok',
      'ok',
      'Webhook host blocked: 169.254.169.254 is a link-local or unspecified address',
      'Relative webhooks are not supported by this server: give an absolute http(s) URL',
      'Webhook must use http or https',
    ]);
  });

  it("answers the reference's refusals in its order, with a url block's defaults (https only)", () => {
    const policy = { url: { allowed_domains: ['10.1.2.3'], allowed_ports: [443, 8443], max_url_length: 40 } };
    expect(
      verdicts(
        [
          'https://10.1.2.3/hook',
          'http://10.1.2.3/hook',
          'https://10.1.2.3:9000/',
          'https://10.9.9.9/',
          `https://10.1.2.3/${'x'.repeat(40)}`,
        ],
        policy,
      ),
    ).toEqual(['ok', 'Webhook must use https', 'Webhook port 9000 not allowed', 'Webhook domain not allowed', 'Webhook URL too long']);
  });

  it('matches *.domain on subdomains only, and refuses private and loopback hosts when asked', () => {
    const python3 = (urls: string[], url: object) => verdicts(urls, { url: { require_https: false, ...url } });
    const allowed = ['a.example.com', 'x.a.example.com', 'example.com', 'badexample.com', 'EXACT.org'].map((host) =>
      python(`print(json.dumps(w.domain_allowed(${JSON.stringify(host.toLowerCase())}, ["*.example.com", "exact.org"])))`),
    );
    expect(allowed).toEqual([true, true, false, false, true]);
    expect(python3(['http://10.1.2.3/', 'http://8.8.8.8/'], { disable_private_ips: true })).toEqual([
      'Webhook host blocked: 10.1.2.3 is a private address',
      'ok',
    ]);
    expect(python3(['http://127.0.0.1/', '/x'], { disable_loopback: true })).toEqual([
      'Webhook host blocked: 127.0.0.1 is a loopback address',
      'Loopback webhooks are disabled',
    ]);
  });
});

describe("the webhooks' headers", () => {
  const headers = (webhooks: unknown, env: Record<string, string> = {}) =>
    python(
      ['try:', '    print(json.dumps(w.headers(w.config())))', 'except ValueError as error:', '    print(json.dumps(str(error)))'].join(
        '\n',
      ),
      webhooks,
      env,
    );

  it('fill ${{ env.NAME }} from the environment', () => {
    expect(
      headers({ headers: { Authorization: 'Bearer ${{ env.LG_WEBHOOK_TOKEN }}', 'X-Fixed': 'v' } }, { LG_WEBHOOK_TOKEN: 't0ken' }),
    ).toEqual({ Authorization: 'Bearer t0ken', 'X-Fixed': 'v' });
  });

  it('refuse a variable outside env_prefix, one not set, and an expression that is not env.NAME', () => {
    expect(headers({ headers: { A: '${{ env.HOME }}' } }, { HOME: '/root' })).toBe(
      "webhook headers: environment variable 'HOME' must start with the configured env_prefix 'LG_WEBHOOK_'",
    );
    expect(headers({ headers: { A: '${{ env.LG_WEBHOOK_MISSING }}' } })).toBe(
      "webhook headers: missing required environment variable 'LG_WEBHOOK_MISSING'",
    );
    expect(headers({ headers: { A: '${{ secrets.X }}' } })).toBe("webhook headers: 'secrets.X' is not env.<NAME>");
    expect(headers({ env_prefix: '', headers: { A: '${{ env.HOME }}' } }, { HOME: '/root' })).toEqual({ A: '/root' });
  });
});

it('sends the run, its values and its error, and only allowed_fields when they are named', () => {
  const body = (fields: string[] | null) =>
    python(
      [
        'from datetime import datetime, UTC',
        'from types import SimpleNamespace',
        'at = datetime(2026, 11, 29, tzinfo=UTC)',
        'run = SimpleNamespace(run_id="r", thread_id="t", assistant_id="a", created_at=at, updated_at=at, status="error",',
        '    input={"q": 1}, config={}, context={}, output={"v": 2}, error_message="boom",',
        '    execution_params={"run_metadata": {"m": 3}, "behavior": {"multitask_strategy": "reject"}})',
        `body = w.payload(run, "https://h/x", ${fields ? JSON.stringify(fields) : 'None'})`,
        'body.pop("webhook_sent_at", None)',
        'print(json.dumps(body))',
      ].join('\n'),
    );
  expect(body(null)).toEqual({
    run_id: 'r',
    thread_id: 't',
    assistant_id: 'a',
    created_at: '2026-11-29T00:00:00+00:00',
    updated_at: '2026-11-29T00:00:00+00:00',
    metadata: { m: 3 },
    kwargs: { input: { q: 1 }, config: {}, context: {}, webhook: 'https://h/x' },
    multitask_strategy: 'reject',
    status: 'error',
    run_started_at: '2026-11-29T00:00:00+00:00',
    run_ended_at: '2026-11-29T00:00:00+00:00',
    values: { v: 2 },
    error: 'boom',
  });
  expect(body(['run_id', 'status', 'values'])).toEqual({ run_id: 'r', status: 'error', values: { v: 2 } });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentConfigCheckEnv, agentServerPython } from './agent-config-check.ts';
import { graphCheckInterpreter } from './build-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'berth-agent-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dockerfile = 'FROM registry.local/berth/agent-server\nADD . /deps/app\n';

/** The check as the dockerfile step runs it, from the sources' directory: its status, output and the
 * Dockerfile after it. */
function check(config: object, files: Record<string, string> = {}) {
  const project = mkdtempSync(join(dir, 'project-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(project, name, '..'), { recursive: true });
    writeFileSync(join(project, name), text);
  }
  writeFileSync(join(project, 'langgraph.json'), JSON.stringify(config));
  writeFileSync(join(project, 'Dockerfile.generated'), dockerfile);
  const env = Object.fromEntries(agentConfigCheckEnv.map(({ name, value }) => [name, value]));
  const [python, ...flags] = graphCheckInterpreter;
  const result = spawnSync(python, [...flags, 'langgraph.json', 'Dockerfile.generated'], {
    cwd: project,
    input: env.AGENT_CONFIG_CHECK,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, dockerfile: readFileSync(join(project, 'Dockerfile.generated'), 'utf8') };
}

describe("the check of a configuration file against the agent server's keys", () => {
  it("runs projects for Python 3.11 to 3.13 on the server's Python, and says so", () => {
    for (const version of ['3.11', '3.12', '3.13', '3.12-bookworm']) {
      const result = check({ python_version: version, graphs: {} });
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(`python_version ${version}: run on the agent server's Python ${agentServerPython}`);
    }
    expect(check({ graphs: {} }).stdout).toContain('python_version 3.11: run on');
  });

  it('fails a python_version the server does not run, naming the ones it does', () => {
    const result = check({ python_version: '3.14', graphs: {} });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('python_version 3.14: this agent server runs projects for Python 3.11, 3.12, 3.13');
    expect(result.dockerfile).toBe(dockerfile);
  });

  it("says what api_version and image_distro mean on the installation's server", () => {
    const result = check({ api_version: '0.4', image_distro: 'wolfi', graphs: {} });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("api_version 0.4: a version of the reference's server; the agent server is the installation's");
    expect(result.stdout).toContain("image_distro wolfi: the agent server's image is Debian");
  });

  it("says that only pip reads a pip_config_file, as on the reference's image", () => {
    expect(check({ pip_config_file: 'pip.conf', graphs: {} }).stdout).toContain(
      'pip_config_file pip.conf: read by pip only (pip_installer pip); uv installs without it',
    );
    expect(check({ pip_config_file: 'pip.conf', pip_installer: 'pip', graphs: {} }).stdout).not.toContain('pip_config_file');
  });

  it('copies an env map or env file into the image, printing names only', () => {
    const map = check({ env: { API_TOKEN: 's3cret-value', RETRIES: 3 }, graphs: {} });
    expect(map.status).toBe(0);
    expect(map.stdout).toContain('env: API_TOKEN, RETRIES from langgraph.json (values not shown)');
    expect(map.stdout).not.toContain('s3cret-value');
    expect(map.dockerfile).toBe(`${dockerfile}\nCOPY ["langgraph.json", "/api/berth/langgraph.json"]\n`);

    const file = check({ env: './config/app.env', graphs: {} }, { 'config/app.env': 'API_TOKEN=s3cret-value\n' });
    expect(file.status).toBe(0);
    expect(file.stdout).toContain('env: the variables of ./config/app.env (values not shown)');
    expect(file.stdout).not.toContain('s3cret-value');
    expect(file.dockerfile).toBe(`${dockerfile}\nCOPY ["config/app.env", "/api/berth/app.env"]\n`);
  });

  it('refuses an env file outside the sources or missing, and an env of another shape', () => {
    expect(check({ env: '../../etc/passwd', graphs: {} }).stdout).toContain("env '../../etc/passwd': not a file beside langgraph.json");
    expect(check({ env: 'missing.env', graphs: {} }).stdout).toContain("env 'missing.env': not a file beside langgraph.json");
    const nested = check({ env: { A: { b: 1 } }, graphs: {} });
    expect(nested.status).toBe(1);
    expect(nested.stdout).toContain('env: a map of names to strings, or the path of an env file');
    expect(nested.dockerfile).toBe(dockerfile);
  });

  it('accepts a mount_prefix path and refuses anything else', () => {
    expect(check({ http: { mount_prefix: '/api/v1' }, graphs: {} }).status).toBe(0);
    for (const prefix of ['api', '/', '/a b', '/x?y', 'https://evil/']) {
      const result = check({ http: { mount_prefix: prefix }, graphs: {} });
      expect(result.status, prefix).toBe(1);
      expect(result.stdout).toContain(`http.mount_prefix '${prefix}': a path such as /api`);
    }
  });

  it('fails the keys the server cannot honour, by name, rather than ignoring them', () => {
    const result = check({ checkpointer: { path: './saver.py:saver', ttl: { default_ttl: 5 } }, graphs: {} });
    expect(result.status).toBe(1);
    expect(result.stdout.trim().split('\n').slice(1)).toEqual([
      "checkpointer.path: this agent server keeps checkpoints in the deployment's Postgres; only checkpointer.ttl applies",
    ]);
  });

  it('passes the keys the server honours: store.index and store.ttl, checkpointer.ttl, webhooks (said in the log)', () => {
    const result = check({
      webhooks: { env_prefix: 'LG_WEBHOOK_', url: { allowed_domains: ['hooks.example.com'] } },
      store: { index: { dims: 3, embed: 'openai:x' }, ttl: { default_ttl: 5 } },
      checkpointer: { ttl: { default_ttl: 5 } },
      graphs: {},
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('webhooks: runs post to absolute http(s) URLs only; redirects are not followed');
  });
});

it("names the Python of the agent server's recipe", () => {
  const recipe = readFileSync(join(import.meta.dirname, '../../../agent-server/recipe.env'), 'utf8');
  expect(recipe).toMatch(new RegExp(`^PYTHON_VERSION=${agentServerPython.replace('.', '\\.')}$`, 'm'));
});

// What an agent project's configuration file (langgraph.json) asks of the agent server Berth builds it on
// (the installation's --agent-server-image, src/agent-server), checked by the dockerfile step
// once the reference's tooling has made the Dockerfile and its FROM names that server. Keys the server
// honours pass, with a line in the build log where their meaning differs from the reference's image; keys
// it cannot honour fail the build, naming the key and what to do, rather than being ignored; `env`, which
// the reference's tooling leaves out of the image, is copied into it (never printed) for the server to
// read at start (berth_agent_server/app_env.py). Pure data: the script runs in the dockerfile step.

/** The Python the agent server image runs (src/agent-server/recipe.env, PYTHON_VERSION). */
export const agentServerPython = '3.13';

/** The `python_version`s a project may ask for: the ones the agent server's Python runs unchanged. */
export const agentServerPythonVersions = ['3.11', '3.12', '3.13'] as const;

/** Where the image keeps the configuration file's `env`: its map (in the copied file) or its env file. */
export const agentEnvFiles = { config: '/api/berth/langgraph.json', envFile: '/api/berth/app.env' } as const;

/**
 * The check (python3 -I - CONFIG DOCKERFILE, with PYTHON_VERSIONS, SERVER_PYTHON and the ENV_* paths):
 * prints what the build log should say, appends the COPY of `env` to the Dockerfile, and exits 1 with one
 * line per key the server cannot honour. Values of `env` are never printed, only its names.
 */
export const agentConfigCheck = [
  'import json, os, re, sys',
  'config_path, dockerfile = sys.argv[1], sys.argv[2]',
  'config = json.load(open(config_path, encoding="utf-8"))',
  'base = os.path.realpath(os.path.dirname(os.path.abspath(config_path)))',
  'problems, copies = [], []',
  'served, server_python = os.environ["PYTHON_VERSIONS"].split(), os.environ["SERVER_PYTHON"]',
  'version = str(config.get("python_version") or "3.11")',
  'if version.split("-")[0] not in served:',
  '    problems.append(f"python_version {version}: this agent server runs projects for Python {\', \'.join(served)}")',
  'else:',
  '    print(f"python_version {version}: run on the agent server\'s Python {server_python}")',
  'if config.get("api_version"):',
  "    print(f\"api_version {config['api_version']}: a version of the reference's server; the agent server is the installation's\")",
  'if config.get("image_distro") not in (None, "debian", "bookworm"):',
  "    print(f\"image_distro {config['image_distro']}: the agent server's image is Debian\")",
  'if config.get("pip_config_file") and config.get("pip_installer") != "pip":',
  '    print(f"pip_config_file {config[\'pip_config_file\']}: read by pip only (pip_installer pip); uv installs without it")',
  'http = config.get("http") or {}',
  'prefix = http.get("mount_prefix") if isinstance(http, dict) else None',
  'if prefix is not None and not re.fullmatch(r"(/[A-Za-z0-9._~-]+)+", str(prefix)):',
  '    problems.append(f"http.mount_prefix {prefix!r}: a path such as /api (letters, digits and . _ ~ - between slashes)")',
  'if config.get("webhooks"):',
  '    print("webhooks: runs post to absolute http(s) URLs only; redirects are not followed")',
  'checkpointer = config.get("checkpointer") or {}',
  'if isinstance(checkpointer, dict) and checkpointer.get("path"):',
  '    problems.append("checkpointer.path: this agent server keeps checkpoints in the deployment\'s Postgres; only checkpointer.ttl applies")',
  'env = config.get("env")',
  'if isinstance(env, dict) and env:',
  '    if all(isinstance(v, (str, int, float, bool)) for v in env.values()):',
  '        copies.append((os.path.basename(config_path), os.environ["ENV_CONFIG"]))',
  '        print(f"env: {\', \'.join(sorted(env))} from {config_path} (values not shown)")',
  '    else:',
  '        problems.append("env: a map of names to strings, or the path of an env file")',
  'elif isinstance(env, str) and env:',
  '    file = os.path.realpath(os.path.join(base, env))',
  '    if not file.startswith(base + os.sep) or not os.path.isfile(file):',
  '        problems.append(f"env {env!r}: not a file beside {config_path}")',
  '    else:',
  '        copies.append((os.path.relpath(file, base), os.environ["ENV_FILE"]))',
  '        print(f"env: the variables of {env} (values not shown)")',
  'elif env not in (None, {}, ""):',
  '    problems.append("env: a map of names to strings, or the path of an env file")',
  'for problem in problems:',
  '    print(problem)',
  'if problems:',
  '    sys.exit(1)',
  'with open(dockerfile, "a", encoding="utf-8") as out:',
  '    for source, target in copies:',
  '        out.write(f"\\nCOPY {json.dumps([source, target])}\\n")',
].join('\n');

/** The check's settings. */
export const agentConfigCheckEnv = [
  { name: 'AGENT_CONFIG_CHECK', value: agentConfigCheck },
  { name: 'PYTHON_VERSIONS', value: agentServerPythonVersions.join(' ') },
  { name: 'SERVER_PYTHON', value: agentServerPython },
  { name: 'ENV_CONFIG', value: agentEnvFiles.config },
  { name: 'ENV_FILE', value: agentEnvFiles.envFile },
];

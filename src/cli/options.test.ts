import { describe, expect, it } from 'vitest';
import { clusterDefaults, parseCommandLine } from './options.ts';
import { defaultConcurrencyQuery } from '../api/request-concurrency.ts';

function options(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseCommandLine(argv, env);
  if (parsed.help) throw new Error('expected options, got help');
  return parsed.options;
}

describe('parseCommandLine', () => {
  it('reads an organization policy as JSON and says where a part of it is wrong', () => {
    expect(options(['run']).organizationPolicy).toBeUndefined();
    const policy = { resourceQuota: { 'requests.cpu': '4', pods: '40' }, networkPolicy: { blockedCidrs: ['169.254.169.254/32'] } };
    expect(options([], { BERTH_ORGANIZATION_POLICY: JSON.stringify(policy) }).organizationPolicy).toEqual({
      ...policy,
      networkPolicy: { ...policy.networkPolicy, ingressFromNamespaces: [] },
    });
    // As a chart's `--set organizations.resourceQuota.pods=40` renders it.
    expect(options(['--organization-policy', '{"resourceQuota":{"pods":40}}']).organizationPolicy).toEqual({
      resourceQuota: { pods: '40' },
    });
    expect(() => options(['--organization-policy', '{not json'])).toThrow('--organization-policy: expected a JSON object');
    expect(() => options(['--organization-policy', '{"resourceQuota": {"cpu": "lots"}}'])).toThrow(
      '--organization-policy: resourceQuota.cpu: expected a quantity such as 500m, 2 or 1Gi',
    );
    expect(() => options(['--organization-policy', '{"quota": {}}'])).toThrow('--organization-policy: ');
  });

  it('reads what builds may use as JSON, keeping the defaults of the keys left out, and refuses a request above its limit', () => {
    expect(options([]).buildResources).toBeUndefined();
    expect(options([], { BERTH_BUILD_RESOURCES: '{"memoryLimitMb":8192,"diskLimitGi":50}' }).buildResources).toEqual({
      cpu: 0.5,
      memoryMb: 1024,
      cpuLimit: 2,
      memoryLimitMb: 8192,
      diskLimitGi: 50,
    });
    expect(() => options(['--build-resources', '{"cpu":4}'])).toThrow('--build-resources: a request above its limit');
    expect(() => options(['--build-resources', '{"gpus":1}'])).toThrow('--build-resources: ');
  });

  it('reads where builds run, and names what it refuses', () => {
    const placement = {
      nodeSelector: { pool: 'builds' },
      tolerations: [{ key: 'pool', operator: 'Equal', value: 'builds', effect: 'NoSchedule' }],
    };
    expect(options(['run', '--build-placement', JSON.stringify(placement)]).buildPlacement).toEqual(placement);
    expect(options(['run']).buildPlacement).toBeUndefined();
    expect(() => options(['run', '--build-placement', '{"tolerations":[{"effect":"Sometimes"}]}'])).toThrow(
      '--build-placement: tolerations.0.effect',
    );
  });

  it('runs builds in the build namespace by default; empty puts them beside their deployment', () => {
    expect(options([]).buildNamespace).toBe('berth-builds');
    expect(options(['--build-namespace', 'ci-builds']).buildNamespace).toBe('ci-builds');
    expect(options(['run', '--build-namespace', '']).buildNamespace).toBeUndefined();
    expect(() => options(['--build-namespace', 'Not_A_Namespace'])).toThrow('--build-namespace: expected a namespace name');
  });

  it('refuses Pod Security baseline for organization namespaces while builds run privileged beside their deployments', () => {
    expect(options(['--organization-policy', '{"podSecurity":"baseline"}']).buildNamespace).toBe('berth-builds');
    expect(() => options(['--organization-policy', '{"podSecurity":"baseline"}', '--build-namespace', ''])).toThrow(
      '--organization-policy: podSecurity: baseline refuses the privileged image step of builds beside their deployment',
    );
    expect(options(['--organization-policy', '{"podSecurity":"baseline"}', '--build-privileged', 'false']).organizationPolicy).toEqual({
      podSecurity: 'baseline',
    });
    expect(() => options(['--organization-policy', '{"podSecurity":"restricted"}', '--build-privileged', 'false'])).toThrow(
      'expected baseline',
    );
  });

  it('asks all of the requests by default; rollouts wait 600 s for progress by default', () => {
    expect(options([])).toMatchObject({ requestScale: 1, progressDeadlineSeconds: 600 });
    expect(options(['run'])).toMatchObject({ requestScale: 1, progressDeadlineSeconds: 600 });
    expect(options(['run', '--request-scale', '0.5', '--progress-deadline-seconds', '120'])).toMatchObject({
      requestScale: 0.5,
      progressDeadlineSeconds: 120,
    });
    expect(() => options(['--request-scale', '2'])).toThrow('--request-scale: expected a factor of at most 1');
  });

  it('lets load stay low 60 s before replicas go, or as long as the installation says', () => {
    expect(options(['run']).scaleDownWindowSeconds).toBe(60);
    expect(options(['run', '--scale-down-window-seconds', '10']).scaleDownWindowSeconds).toBe(10);
    expect(options(['run'], { BERTH_SCALE_DOWN_WINDOW_SECONDS: '300' }).scaleDownWindowSeconds).toBe(300);
    expect(() => options(['run', '--scale-down-window-seconds', '-1'])).toThrow('--scale-down-window-seconds');
  });

  it("puts 64 listeners on a Gateway before its next shard, Gateway API's most, or fewer as the installation says", () => {
    expect(options(['run']).listenersPerGateway).toBe(64);
    expect(options(['run', '--listeners-per-gateway', '8']).listenersPerGateway).toBe(8);
    expect(options(['run'], { BERTH_LISTENERS_PER_GATEWAY: '16' }).listenersPerGateway).toBe(16);
    for (const bad of ['0', '65', '1.5']) expect(() => options(['run', '--listeners-per-gateway', bad])).toThrow('--listeners-per-gateway');
  });

  it('takes a public URL without its trailing slash, and refuses one with a credential or a query', () => {
    expect(options([]).publicUrl).toBeUndefined();
    expect(options([], { BERTH_PUBLIC_URL: '' }).publicUrl).toBeUndefined();
    expect(options(['--public-url', 'https://berth.example.com/']).publicUrl).toBe('https://berth.example.com');
    expect(() => options(['--public-url', 'https://user:pw@berth.example.com'])).toThrow(
      '--public-url: expected an http(s) URL without user information, query or fragment',
    );
  });

  it("keeps a deployment's secrets from previews of forks' pull requests unless told otherwise", () => {
    expect(options([]).previewForkSecrets).toBe(false);
    expect(options(['--preview-fork-secrets', 'true']).previewForkSecrets).toBe(true);
    expect(options([], { BERTH_PREVIEW_FORK_SECRETS: 'true' }).previewForkSecrets).toBe(true);
  });

  it("reads apps' requests in flight from a Prometheus-compatible server when given one, with a query that names the app", () => {
    expect(options([]).concurrencyMetrics).toBeUndefined();
    expect(options([]).concurrencyQuery).toBe(defaultConcurrencyQuery);
    expect(options(['--concurrency-metrics', 'http://prometheus.monitoring:9090/'])).toMatchObject({
      concurrencyMetrics: 'http://prometheus.monitoring:9090',
    });
    expect(
      options([], { BERTH_CONCURRENCY_QUERY: 'sum(envoy_in_flight{namespace="{namespace}",service="{service}"})' }).concurrencyQuery,
    ).toBe('sum(envoy_in_flight{namespace="{namespace}",service="{service}"})');
    expect(() => options(['--concurrency-query', 'sum(up)'])).toThrow(
      "--concurrency-query: the query must name one app's traffic: it has no {namespace} and {service}",
    );
    expect(() => options(['--concurrency-metrics', 'prometheus:9090'])).toThrow('--concurrency-metrics: expected an http(s) URL');
  });

  it('takes a backup store as its URL and its admin Secret together, each checked', () => {
    expect(options([]).backupStore).toBeUndefined();
    expect(options(['--backup-store', 'http://10.243.0.1:7070/'], { BERTH_BACKUP_STORE_SECRET: 'berth-backup-store' })).toMatchObject({
      backupStore: 'http://10.243.0.1:7070',
      backupStoreSecret: 'berth-backup-store',
    });
    expect(() => options(['--backup-store', 'http://store:7070'])).toThrow('--backup-store: --backup-store and --backup-store-secret');
    expect(() => options(['--backup-store', 'http://store:7070/bucket', '--backup-store-secret', 'admin'])).toThrow(
      '--backup-store: expected a URL without a path',
    );
    expect(() => options(['--backup-store', 's3://store', '--backup-store-secret', 'admin'])).toThrow(
      '--backup-store: expected an http(s) URL',
    );
    // Its admin API apart from the S3 port, only beside a store.
    expect(
      options([
        '--backup-store',
        'http://10.243.0.1:7070',
        '--backup-store-secret',
        'admin',
        '--backup-store-admin',
        'http://127.0.0.1:7071/',
      ]),
    ).toMatchObject({ backupStore: 'http://10.243.0.1:7070', backupStoreAdmin: 'http://127.0.0.1:7071' });
    expect(() => options(['--backup-store-admin', 'http://127.0.0.1:7071'])).toThrow('--backup-store-admin: names where');
  });

  it('takes an activator for dev_zero as its two parts together, each checked', () => {
    expect(options([]).activatorProxy).toBeUndefined();
    expect(
      options(['--activator-proxy', 'keda/keda-add-ons-http-interceptor-proxy:8080'], {
        BERTH_ACTIVATOR_SCALER: 'keda-add-ons-http-external-scaler.keda:9090',
      }),
    ).toMatchObject({
      activatorProxy: { namespace: 'keda', name: 'keda-add-ons-http-interceptor-proxy', port: 8080 },
      activatorScaler: 'keda-add-ons-http-external-scaler.keda:9090',
      activatorIdleSeconds: 60,
    });
    expect(options(['--activator-idle-seconds', '15']).activatorIdleSeconds).toBe(15);
    expect(() => options(['--activator-idle-seconds', '2'])).toThrow('--activator-idle-seconds');
    expect(() => options(['--activator-proxy', 'keda/proxy:8080'])).toThrow('--activator-proxy: --activator-proxy and --activator-scaler');
    expect(() => options(['--activator-proxy', 'proxy:8080', '--activator-scaler', 'scaler:9090'])).toThrow(
      '--activator-proxy: expected <namespace>/<service>:<port>',
    );
    expect(() => options(['--activator-proxy', 'keda/proxy:8080', '--activator-scaler', 'http://scaler'])).toThrow(
      '--activator-scaler: expected host:port',
    );
  });

  it('defaults to all interfaces with leader election, no organization policy and public OAuth addresses only', () => {
    for (const argv of [[], ['run']]) {
      expect(options(argv)).toMatchObject({
        components: ['controller', 'facade'],
        facadeAddress: { host: '0.0.0.0', port: 8080 },
        probeAddress: { host: '0.0.0.0', port: 9090 },
        leaderElect: true,
        watchNamespaces: [],
        organizationPolicy: undefined,
        oauthPrivateNetworks: false,
      });
    }
  });

  it('takes the defaults and the flags of a caller that runs Berth in a place of its own', () => {
    const defaults = { ...clusterDefaults, facadeAddress: '127.0.0.1:7000', requestScale: '0.5' };
    const parsed = parseCommandLine(['--spot', 'here', '--request-scale', '0.75'], {}, { defaults, ownFlags: ['spot', 'unset'] });
    expect(parsed).toMatchObject({ help: false, options: { facadeAddress: { host: '127.0.0.1', port: 7000 }, requestScale: 0.75 } });
    expect(parsed.help === false && parsed.own).toEqual({ spot: 'here', unset: undefined });
    expect(() => parseCommandLine(['--spot', 'here'], {})).toThrow(/spot/);
  });

  it('reads the environment, and flags win over it', () => {
    const env = { BERTH_COMPONENTS: 'facade', POD_NAMESPACE: 'ops', BERTH_WATCH_NAMESPACES: 'a, b', BERTH_LEADER_ELECT: 'no' };
    expect(options(['run'], env)).toMatchObject({
      components: ['facade'],
      namespace: 'ops',
      watchNamespaces: ['a', 'b'],
      leaderElect: false,
    });
    expect(options(['run', '--components', 'controller', '--facade-address', ':7000'], env)).toMatchObject({
      components: ['controller'],
      facadeAddress: { host: '0.0.0.0', port: 7000 },
    });
  });

  it('leaves the registry and service images unset unless given', () => {
    expect(options([])).toMatchObject({ registry: undefined, postgresImage: undefined, redisImage: undefined });
    expect(options(['--postgres-image', 'pg:1'], { BERTH_REDIS_IMAGE: 'r:1', BERTH_REGISTRY: 'reg:5000' })).toMatchObject({
      postgresImage: 'pg:1',
      redisImage: 'r:1',
      registry: 'reg:5000',
    });
  });

  it('leaves the build images to where Berth runs unless given; builds run privileged and branches are read each minute by default', () => {
    expect(options(['run'])).toMatchObject({
      builderImage: undefined,
      gitImage: undefined,
      buildToolsImage: undefined,
      buildPrivileged: true,
      sourcePollSeconds: 60,
      firstInputDeadlineSeconds: 1800,
    });
    const env = { BERTH_GIT_IMAGE: 'git:1', BERTH_BUILD_PRIVILEGED: 'false', BERTH_SOURCE_POLL_SECONDS: '30' };
    expect(options(['run', '--builder-image', 'bk:1', '--build-tools-image', 'tools:1'], env)).toMatchObject({
      builderImage: 'bk:1',
      gitImage: 'git:1',
      buildToolsImage: 'tools:1',
      buildPrivileged: false,
      sourcePollSeconds: 30,
    });
    expect(() => options(['run', '--source-poll-seconds', '0'])).toThrow(/--source-poll-seconds/);
  });

  it('drains for no time unless asked, and takes whole seconds from a flag or the environment', () => {
    expect(options(['run']).drainSeconds).toBe(0);
    expect(options(['run'], { BERTH_DRAIN_SECONDS: '5' }).drainSeconds).toBe(5);
    expect(options(['run', '--drain-seconds', '7'], { BERTH_DRAIN_SECONDS: '5' }).drainSeconds).toBe(7);
    expect(() => options(['run', '--drain-seconds', '1.5'])).toThrow(/--drain-seconds: expected whole seconds/);
    expect(() => options(['run', '--drain-seconds', '-1'])).toThrow(/--drain-seconds/);
  });

  it('accepts bracketed IPv6 addresses', () => {
    expect(options(['run', '--probe-address', '[::1]:9000']).probeAddress).toEqual({ host: '::1', port: 9000 });
  });

  it.each([
    [['serve'], /command: expected run \(or none\), got serve/],
    [['--data-dir', '/tmp/x'], /data-dir/],
    [['run', '--components', 'controller,web'], /--components/],
    [['run', '--components', ''], /--components: name at least one component/],
    [['run', '--facade-address', 'localhost'], /--facade-address: expected host:port/],
    [['run', '--probe-address', ':70000'], /--probe-address: port out of range/],
    [['run', '--namespace', 'Not_A_Name'], /--namespace/],
    [['run', '--leader-elect', 'maybe'], /--leader-elect/],
    [['run', 'extra'], /unexpected arguments: extra/],
    [['run', '--no-such-flag'], /no-such-flag/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseCommandLine(argv, {})).toThrow(message);
  });

  it('answers --help', () => {
    expect(parseCommandLine(['--help'], {})).toEqual({ help: true });
  });
});

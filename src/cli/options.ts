// The command line and its environment, turned into one validated options object. Every flag has an
// environment variable so the same image is configured by a chart's `env:` or by `args:`.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { idleSecondsBeforeZero, parseActivatorProxy } from '../api/activator.ts';
import { parseAppUrlTemplate } from '../api/app-urls.ts';
import { parseTlsIssuer } from '../api/app-tls.ts';
import { gatewayListenerLimit } from '../api/gateway-shards.ts';
import { buildPlacementSchema } from '../api/build-placement.ts';
import { buildResourcesSchema } from '../api/build-resources.ts';
import { cidrSchema, organizationPolicySchema } from '../api/organization-policy.ts';
import { concurrencyQueryProblem, defaultConcurrencyQuery } from '../api/request-concurrency.ts';
import { databaseEngineChoices, defaultDatabaseEngineChoice } from '../api/database-engine.ts';
import { cronAccepts, defaultBackupSchedule } from '../api/deployment.ts';
import { defaultBuildNamespace } from '../workloads/build-jobs.ts';
import { defaultScaleDownWindowSeconds } from '../reconcilers/deployment/index.ts';

/** Every option of `berth run`, each with its default and its environment variable. */
export const optionsUsage = `options (each also read from the environment variable in brackets):
  --components <list>          controller,facade or one of them           [BERTH_COMPONENTS]
  --facade-address <host:port> where the HTTP API listens (default 0.0.0.0:8080)
                                                                          [BERTH_FACADE_ADDRESS]
  --facade-node-address <host:port>
                               where the HTTP API also listens for the node and its pods when
                               Berth runs outside the cluster: the realm of the registry's token
                               authentication                        [BERTH_FACADE_NODE_ADDRESS]
  --probe-address <host:port>  /healthz, /readyz and /metrics (default 0.0.0.0:9090)
                                                                          [BERTH_PROBE_ADDRESS]
  --namespace <name>           the operator's namespace: API keys, leader-election Lease
                               (default berth-system)                     [POD_NAMESPACE]
  --watch-namespaces <list>    only these namespaces (default: all)       [BERTH_WATCH_NAMESPACES]
  --custom-url-domains <list>  domains a deployment's custom_url host must be in (default: any)
                                                                   [BERTH_CUSTOM_URL_DOMAINS]
  --reserved-hosts <list>      hosts no deployment may claim, such as Berth's own API's
                               (default: none)                            [BERTH_RESERVED_HOSTS]
  --dns-servers <list>         the resolvers asked for custom hosts' ownership records, as
                               address[:port] (default: the system's)      [BERTH_DNS_SERVERS]
  --code-host-origins <list>   the only origins a CodeHostIntegration's baseUrl may name, as
                               https://host[:port] (or scheme://host:* for any port); its
                               requests, redirects and page links stay on its own (default:
                               https://api.github.com, https://github.com, https://gitlab.com)
                                                                   [BERTH_CODE_HOST_ORIGINS]
  --notification-origins <list>
                               the only origins a deployment's notifications.url may name, as
                               https://host[:port] (or scheme://host:* for any port); redirects
                               are not followed (default: none, notifications go nowhere)
                                                             [BERTH_NOTIFICATION_ORIGINS]
  --leader-elect <bool>        elect a leader before reconciling (default true) [BERTH_LEADER_ELECT]
  --oauth-private-networks <bool>
                               let OAuthProviders' URLs reach loopback, private and link-local
                               addresses (default false: public addresses only)
                                                                    [BERTH_OAUTH_PRIVATE_NETWORKS]
  --preview-fork-secrets <bool>
                               give previews of pull requests from forks their deployment's
                               secrets (default false: a fork's code never sees them)
                                                                     [BERTH_PREVIEW_FORK_SECRETS]
  --builder-image <image>      the image step of codehost builds: BuildKit (default
                               moby/buildkit:v0.34.2)                     [BERTH_BUILDER_IMAGE]
  --git-image <image>          the clone step of codehost builds (default alpine/git:2.47.2)
                                                                          [BERTH_GIT_IMAGE]
  --build-tools-image <image>  runs a build's install and build commands (default node:24-bookworm)
                                                                          [BERTH_BUILD_TOOLS_IMAGE]
  --agent-tools-image <image>  makes a build's Dockerfile from its application configuration file when
                               the sources have none: Python with langgraph-cli, or pip to install it
                               (default python:3.11-slim)                 [BERTH_AGENT_TOOLS_IMAGE]
  --agent-server-image <image> the base of an agent image made from its configuration file, in place
                               of the reference's (langchain/langgraph-api): a server that keeps
                               threads and runs in the deployment's Postgres (default: the
                               reference's)                               [BERTH_AGENT_SERVER_IMAGE]
  --agent-server-license-secret <name>
                               a Secret in Berth's namespace whose LANGGRAPH_CLOUD_LICENSE_KEY the
                               agent servers built on the reference's image get (copied to each
                               organization namespace; a tenant's own is dropped)
                                                                [BERTH_AGENT_SERVER_LICENSE_SECRET]
  --backup-store <url>         an S3-compatible server for organizations' database backups, as Berth
                               and their pods reach it: each organization gets an account and a
                               bucket of its own there (Secret berth-backups); needs
                               --backup-store-secret (default: none)        [BERTH_BACKUP_STORE]
  --backup-store-secret <name> a Secret in Berth's namespace with the server's admin credential
                               (accessKeyId, secretAccessKey)        [BERTH_BACKUP_STORE_SECRET]
  --backup-store-admin <url>   where Berth reaches the server's admin API when it listens apart from
                               the S3 port (versitygw --admin-port), out of the organizations' pods'
                               reach (default: the --backup-store URL)  [BERTH_BACKUP_STORE_ADMIN]
  --backup-schedule <cron>     when CloudNativePG databases are backed up where their deployment names
                               no schedule: cron fields in UTC (five, or six with seconds first), or
                               off (default 0 3 * * *)                    [BERTH_BACKUP_SCHEDULE]
  --build-privileged <bool>    run the image step privileged, as BuildKit needs for RUN steps
                               without user namespaces (default true)     [BERTH_BUILD_PRIVILEGED]
  --build-namespace <name>     where build Jobs run, apart from every organization's apps (made if
                               missing; default berth-builds; empty: beside their deployment)
                                                                     [BERTH_BUILD_NAMESPACE]
  --build-blocked-cidrs <list> networks builds may not reach, comma-separated (default
                               169.254.0.0/16,fe80::/10: a cloud's metadata service; add the cluster's
                               pod network where nothing a build needs runs in a pod). Cluster DNS
                               stays reachable
                                                                     [BERTH_BUILD_BLOCKED_CIDRS]
  --build-resources <json>     what each build step asks for and may use: {"cpu", "memoryMb",
                               "cpuLimit", "memoryLimitMb", "diskLimitGi"} (default 0.5 core,
                               1024 MiB; at most 2 cores, 4096 MiB, 20 GiB)
                                                                     [BERTH_BUILD_RESOURCES]
  --build-placement <json>     the nodes build Jobs run on: {"nodeSelector": {...}, "tolerations":
                               [...]}, as in a pod spec (default: any node)  [BERTH_BUILD_PLACEMENT]
  --builds-per-organization <n> the most build Jobs one organization runs at once; a revision beyond
                               them waits in AWAITING_BUILD (BuildQueued) (default 4)
                                                                   [BERTH_BUILDS_PER_ORGANIZATION]
  --preview-builds-per-organization <n>
                               the most build Jobs one organization's previews run at once, in slots
                               of their own (default 2)   [BERTH_PREVIEW_BUILDS_PER_ORGANIZATION]
  --source-poll-seconds <n>    how often a build-on-push Deployment's branch is read for a new
                               commit (default 60)                        [BERTH_SOURCE_POLL_SECONDS]
  --first-input-deadline-seconds <n>
                               how long an internal_source or internal_docker deployment waits for its
                               first source archive or image before it is Stalled (default 1800)
                                                                   [BERTH_FIRST_INPUT_DEADLINE_SECONDS]
  --registry <host/path>       where built images are pushed (default registry.berth-system.svc:5000)
                                                                          [BERTH_REGISTRY]
  --push-registry <host:port> Berth's registry for pushed images (internal_docker): push credentials
                               (POST /v2/deployments/{id}/push-token) and its token endpoint
                               (GET /v2/registry/token); the registry trusts Berth's certificate
                               (Secret berth-registry-signing). Default: none [BERTH_PUSH_REGISTRY]
  --postgres-image <image>     the database of Deployments that ask for one, as a StatefulSet
                               (default postgres:16-alpine)               [BERTH_POSTGRES_IMAGE]
  --database-engine <engine>   where a new database runs: auto (cnpg where the cluster serves
                               CloudNativePG's Cluster, else statefulset), statefulset, or cnpg (a
                               CloudNativePG Cluster; the cluster must serve its CRDs). A database
                               keeps the engine it was made with (default auto)
                                                                          [BERTH_DATABASE_ENGINE]
  --cnpg-postgres-image <image>
                               what CloudNativePG runs a Cluster's instances from (default
                               ghcr.io/cloudnative-pg/postgresql:16)  [BERTH_CNPG_POSTGRES_IMAGE]
  --cnpg-storage-class <name>  the StorageClass of a Cluster's volume, one uid 26 can write (default:
                               the cluster's default)                  [BERTH_CNPG_STORAGE_CLASS]
  --cnpg-operator-namespace <name>
                               where CloudNativePG's operator runs, which checks each database's
                               instances: organizations' NetworkPolicy admits it where the cluster
                               serves CloudNativePG (default cnpg-system)
                                                                  [BERTH_CNPG_OPERATOR_NAMESPACE]
  --redis-image <image>        the cache of Deployments that ask for one (default redis:7-alpine)
                                                                          [BERTH_REDIS_IMAGE]
  --network-wait-image <image> holds each app, queue worker, pre-deploy and build pod (at most 15 s)
                               until its DNS server answers, for a policy engine that refuses a new
                               pod until it has programmed it: an image with sh and busybox (default:
                               none, no pod is held; berth dev: its node's)  [BERTH_NETWORK_WAIT_IMAGE]
  --app-url-template <url>     every deployment's own URL, routed to it from outside the cluster:
                               http(s)://{deployment}.{organization}.<domain>[:port]/ (default: none)
                                                                   [BERTH_APP_URL_TEMPLATE]
  --gateway <namespace/name>   the Gateway (Gateway API) whose HTTPRoutes carry those URLs and each
                               custom_url (default: none, an Ingress each) [BERTH_GATEWAY]
  --ingress-class <name>       the IngressClass of those Ingresses (default: the cluster's default)
                                                                   [BERTH_INGRESS_CLASS]
  --tls-issuer <Kind/name>     TLS for https:// app URLs on the Gateway: cert-manager's ClusterIssuer/<name>
                               (or Issuer/<name> in the Gateway's namespace) signs a wildcard certificate
                               per organization, served by an HTTPS listener of its own (default: none)
                                                                          [BERTH_TLS_ISSUER]
  --listeners-per-gateway <n>  the most listeners one Gateway holds: past them, listeners go to shards
                               <gateway>-1..N of its class (default: 64) [BERTH_LISTENERS_PER_GATEWAY]
  --concurrency-metrics <url>  a Prometheus-compatible server where KEDA reads each app's requests in
                               flight: apps then scale on them (10 per replica) as well as on CPU,
                               through KEDA ScaledObjects (default: none, CPU only)
                                                                       [BERTH_CONCURRENCY_METRICS]
  --concurrency-query <promql> one app's requests in flight, with {namespace}, {service} and {port}
                               of its Service (default: from Traefik's Gateway metrics)
                                                                   [BERTH_CONCURRENCY_QUERY]
  --activator-proxy <namespace/service:port>
                               scale to zero for dev_zero: the proxy Service of KEDA's HTTP add-on
                               (its interceptor), where the Gateway sends those apps' requests; needs
                               --activator-scaler and a Gateway (default: none, dev_zero runs as dev)
                                                                          [BERTH_ACTIVATOR_PROXY]
  --activator-scaler <host:port>
                               the add-on's external scaler, as KEDA's operator reaches it
                                                                   [BERTH_ACTIVATOR_SCALER]
  --activator-idle-seconds <n> how long a dev_zero app whose spec names no idleSeconds goes without a
                               request before it scales to zero (default: 60, at least 5)
                                                             [BERTH_ACTIVATOR_IDLE_SECONDS]
  --proxy-namespace <name>     the namespace whose pods carry apps' requests to them (the Gateway's or
                               the ingress controller's proxies, where they run in pods): organizations'
                               NetworkPolicy admits it (default: none, a proxy on the nodes)
                                                                   [BERTH_PROXY_NAMESPACE]
  --network-policy-check <auto|on|off>
                               check each app's NetworkPolicies against the relays its requests take
                               (the activator, --proxy-namespace): an app none admits is Stalled
                               (PathBlocked), never READY. auto: on where the organization policy has a
                               networkPolicy and no API is served that can admit what NetworkPolicy
                               denies (Cilium, Calico, Antrea, AdminNetworkPolicy) (default auto)
                                                                   [BERTH_NETWORK_POLICY_CHECK]
  --public-url <url>           where clients reach the HTTP API, e.g. https://berth.example.com: the base
                               of the upload URLs it hands out (default: each request's Host header)
                                                                   [BERTH_PUBLIC_URL]
  --console-dir <dir|off>      the built web console Berth serves at /console/ (npm run build:console);
                               off serves none (default: dist/console beside Berth's code)
                                                                   [BERTH_CONSOLE_DIR]
  --progress-deadline-seconds <n>
                               how long a rollout may wait (for room on a node, for its pods to turn
                               Ready) before its revision is DEPLOY_FAILED (default 600)
                                                                   [BERTH_PROGRESS_DEADLINE_SECONDS]
  --scale-down-window-seconds <n>
                               how long an app's load must stay low before its autoscaler takes
                               replicas away (default 60)          [BERTH_SCALE_DOWN_WINDOW_SECONDS]
  --request-scale <factor>     multiplies the CPU and memory requests of what deployments run, limits
                               unchanged, so that a laptop fits several apps (default 1)
                                                                          [BERTH_REQUEST_SCALE]
  --organization-policy <json> what every organization namespace gets: a ResourceQuota, a LimitRange
                               and a NetworkPolicy (src/api/organization-policy.ts; default: none;
                               '{}' for none)                      [BERTH_ORGANIZATION_POLICY]
  --drain-seconds <n>          on SIGTERM, keep answering the HTTP API this long, closing each
                               connection after its response, before stopping: clients move to
                               another replica and none loses a request (default 0) [BERTH_DRAIN_SECONDS]
  -h, --help                   this text
`;

export const usage = `usage: berth [run] [options]

Runs Berth against the configured cluster (in-cluster service account or KUBECONFIG).

${optionsUsage}`;

const address = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/, 'expected host:port')
  .transform((value) => {
    const at = value.lastIndexOf(':');
    const host = value.slice(0, at).replace(/^\[|\]$/g, '') || '0.0.0.0';
    return { host, port: Number(value.slice(at + 1)) };
  })
  .refine((a) => a.port <= 65535, 'port out of range');

const list = z.string().transform((value) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A base URL others are appended to: http(s), no user information, query or fragment, no trailing slash. */
const baseUrl = z
  .string()
  .regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'expected an http(s) URL without user information, query or fragment')
  .transform((url) => url.replace(/\/+$/, ''));

/** A server's URL without a path: what an S3 client or an admin call adds its own paths to. */
const serverUrl = baseUrl.refine((url) => !/^https?:\/\/[^/]+\//.test(url), 'expected a URL without a path');

const namespaceName = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'expected a namespace name')
  .max(63);
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v));

const component = z.enum(['controller', 'facade']);

/** Text read by `parse` (an app URL template, a TLS issuer), whose error becomes the option's message. */
function parsedBy<T extends object>(parse: (text: string) => T | { error: string }) {
  return z.string().transform((text, context) => {
    const parsed = parse(text);
    if ('error' in parsed) {
      context.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }
    return parsed;
  });
}

/** A JSON object given as text (a flag, an environment variable); unset stays unset. */
const jsonText = z
  .string()
  .optional()
  .transform((text, context) => {
    if (!text) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not the parser's message: it quotes the text back; the issue names the option.
      context.addIssue({ code: 'custom', message: 'expected a JSON object' });
      return z.NEVER;
    }
  });

const optionsSchema = z
  .object({
    components: list.pipe(z.array(component).min(1, 'name at least one component')),
    facadeAddress: address,
    facadeNodeAddress: address.optional(),
    probeAddress: address,
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'expected a namespace name')
      .max(63),
    watchNamespaces: list,
    customUrlDomains: list,
    reservedHosts: list,
    dnsServers: list.pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\[[0-9a-fA-F:]+\]|[0-9.]+|[0-9a-fA-F:]+)(:[0-9]{1,5})?$/,
            'expected resolver addresses such as 10.96.0.10 or 127.0.0.1:5353',
          ),
      ),
    ),
    codeHostOrigins: list
      .pipe(z.array(z.string().regex(/^https?:\/\/[^/?#@\s]+$/, 'expected origins such as https://ghe.example.com or http://10.0.0.5:*')))
      .optional(),
    notificationOrigins: list.pipe(
      z.array(z.string().regex(/^https?:\/\/[^/?#@\s]+$/, 'expected origins such as https://hooks.example.com or http://10.0.0.5:*')),
    ),
    leaderElect: bool,
    builderImage: z.string().min(1).optional(),
    gitImage: z.string().min(1).optional(),
    buildToolsImage: z.string().min(1).optional(),
    agentToolsImage: z.string().min(1).optional(),
    agentServerImage: z.string().min(1).optional(),
    agentServerLicenseSecret: z
      .string()
      .regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, "expected the name of a Secret in Berth's namespace")
      .max(253)
      .optional(),
    backupStore: serverUrl.optional(),
    backupStoreAdmin: serverUrl.optional(),
    backupSchedule: z
      .string()
      .regex(/^(off|\S+( \S+){4,5})$/, 'expected five or six cron fields, or off')
      .refine((schedule) => schedule === 'off' || cronAccepts(schedule), 'is not a cron expression croner can read'),
    backupStoreSecret: z
      .string()
      .regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, 'expected a Secret name')
      .max(253)
      .optional(),
    buildPrivileged: bool,
    buildNamespace: z
      .string()
      .regex(/^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$/, 'expected a namespace name, or nothing for builds beside their deployment')
      .max(63)
      .transform((name) => name || undefined),
    buildBlockedCidrs: z
      .string()
      .transform((list) =>
        list
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean),
      )
      .pipe(z.array(cidrSchema).max(64))
      .optional(),
    sourcePollSeconds: z.coerce.number().int('expected whole seconds').min(1).max(86_400),
    buildsPerOrganization: z.coerce.number().int('expected a whole number').min(1).max(1000),
    previewBuildsPerOrganization: z.coerce.number().int('expected a whole number').min(1).max(1000),
    firstInputDeadlineSeconds: z.coerce.number().int('expected whole seconds').min(1).max(604_800),
    registry: z.string().min(1).optional(),
    pushRegistry: z
      .string()
      .regex(/^[^\s/]+$/, 'expected host[:port]')
      .optional(),
    postgresImage: z.string().min(1).optional(),
    databaseEngine: z.enum(databaseEngineChoices),
    cnpgPostgresImage: z.string().min(1).optional(),
    cnpgStorageClass: z.string().min(1).max(253).optional(),
    cnpgOperatorNamespace: namespaceName,
    redisImage: z.string().min(1).optional(),
    networkWaitImage: z.string().min(1).optional(),
    publicUrl: baseUrl.optional(),
    consoleDir: z.string().min(1).optional(),
    appUrlTemplate: parsedBy(parseAppUrlTemplate).optional(),
    gateway: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, 'expected <namespace>/<name>')
      .transform((text) => {
        const [namespace, name] = text.split('/') as [string, string];
        return { namespace, name };
      })
      .optional(),
    ingressClass: z.string().min(1).max(253).optional(),
    tlsIssuer: parsedBy(parseTlsIssuer).optional(),
    listenersPerGateway: z.coerce.number().int('expected a whole number').min(1).max(gatewayListenerLimit),
    concurrencyMetrics: baseUrl.optional(),
    concurrencyQuery: z.string().superRefine((query, context) => {
      const problem = concurrencyQueryProblem(query);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
    activatorProxy: parsedBy(parseActivatorProxy).optional(),
    activatorScaler: z
      .string()
      .regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?:[0-9]{1,5}$/, 'expected host:port, e.g. keda-add-ons-http-external-scaler.keda:9090')
      .optional(),
    proxyNamespace: namespaceName.optional(),
    networkPolicyCheck: z.enum(['auto', 'on', 'off']),
    progressDeadlineSeconds: z.coerce.number().int('expected whole seconds').min(10).max(86_400),
    scaleDownWindowSeconds: z.coerce.number().int('expected whole seconds').min(0).max(3600),
    activatorIdleSeconds: z.coerce.number().int('expected whole seconds').min(5).max(86_400),
    requestScale: z.coerce.number().gt(0, 'expected a factor above 0').max(1, 'expected a factor of at most 1'),
    organizationPolicy: jsonText.pipe(organizationPolicySchema.optional()),
    buildResources: jsonText.pipe(buildResourcesSchema.optional()),
    buildPlacement: jsonText.pipe(buildPlacementSchema.optional()),
    oauthPrivateNetworks: bool,
    previewForkSecrets: bool,
    drainSeconds: z.coerce.number().int('expected whole seconds').min(0).max(300),
  })
  // Builds beside their deployment run in the organization's namespace: its Pod Security level must admit them.
  .refine((options) => !(options.organizationPolicy?.podSecurity && options.buildPrivileged && !options.buildNamespace), {
    path: ['organizationPolicy', 'podSecurity'],
    message:
      'baseline refuses the privileged image step of builds beside their deployment: run them in a build namespace (--build-namespace), set --build-privileged false (a builder that needs no privileges), or leave podSecurity out',
  })
  // TLS is terminated by the Gateway's listeners, for the hosts of https:// app URLs.
  .refine((options) => !options.backupStore === !options.backupStoreSecret, {
    path: ['backupStore'],
    message: '--backup-store and --backup-store-secret name one server and its admin credential: give both or neither',
  })
  .refine((options) => !options.backupStoreAdmin || options.backupStore, {
    path: ['backupStoreAdmin'],
    message: "names where the --backup-store server's admin API listens: give --backup-store too",
  })
  // The add-on's two parts go together.
  .refine((options) => !options.activatorProxy === !options.activatorScaler, {
    path: ['activatorProxy'],
    message: '--activator-proxy and --activator-scaler name the two parts of one activator: give both or neither',
  })
  .refine((options) => !options.tlsIssuer || (options.gateway && options.appUrlTemplate?.scheme === 'https'), {
    path: ['tlsIssuer'],
    message: 'TLS needs a Gateway (--gateway) and an https:// app URL template (--app-url-template)',
  });

export type Options = z.output<typeof optionsSchema>;
export type Component = z.output<typeof component>;

/** The defaults that depend on where Berth runs, as text a flag would give; `berth run`'s are a cluster's. */
export interface WhereDefaults {
  facadeAddress: string;
  probeAddress: string;
  leaderElect: string;
  requestScale: string;
  organizationPolicy?: string;
  oauthPrivateNetworks: string;
}

export const clusterDefaults: WhereDefaults = {
  facadeAddress: '0.0.0.0:8080',
  probeAddress: '0.0.0.0:9090',
  leaderElect: 'true',
  requestScale: '1',
  oauthPrivateNetworks: 'false',
};

/** What a caller that runs Berth in a place of its own changes: the defaults, and flags it reads itself
 * (strings, returned unchecked in `own`). */
export interface CommandLineShape {
  defaults: WhereDefaults;
  ownFlags: readonly string[];
}

export type ParsedCommandLine = { help: true } | { help: false; options: Options; own: Record<string, string | undefined> };

/** Where each option is read when its flag (the key in kebab case) is absent: its environment variable
 * (an empty one is unset where it says so), then its default, fixed or where Berth runs. */
interface OptionSource {
  env: string;
  emptyIsUnset?: true;
  fallback?: string | ((where: WhereDefaults) => string | undefined);
}

const optionSources = {
  components: { env: 'BERTH_COMPONENTS', fallback: 'controller,facade' },
  facadeAddress: { env: 'BERTH_FACADE_ADDRESS', fallback: (where) => where.facadeAddress },
  facadeNodeAddress: { env: 'BERTH_FACADE_NODE_ADDRESS' },
  probeAddress: { env: 'BERTH_PROBE_ADDRESS', fallback: (where) => where.probeAddress },
  namespace: { env: 'POD_NAMESPACE', fallback: 'berth-system' },
  watchNamespaces: { env: 'BERTH_WATCH_NAMESPACES', fallback: '' },
  customUrlDomains: { env: 'BERTH_CUSTOM_URL_DOMAINS', fallback: '' },
  reservedHosts: { env: 'BERTH_RESERVED_HOSTS', fallback: '' },
  dnsServers: { env: 'BERTH_DNS_SERVERS', fallback: '' },
  codeHostOrigins: { env: 'BERTH_CODE_HOST_ORIGINS' },
  notificationOrigins: { env: 'BERTH_NOTIFICATION_ORIGINS', fallback: '' },
  leaderElect: { env: 'BERTH_LEADER_ELECT', fallback: (where) => where.leaderElect },
  // Unset means the default of where Berth runs: see imagesFor in run.ts.
  builderImage: { env: 'BERTH_BUILDER_IMAGE' },
  gitImage: { env: 'BERTH_GIT_IMAGE' },
  buildToolsImage: { env: 'BERTH_BUILD_TOOLS_IMAGE' },
  agentToolsImage: { env: 'BERTH_AGENT_TOOLS_IMAGE' },
  agentServerImage: { env: 'BERTH_AGENT_SERVER_IMAGE' },
  agentServerLicenseSecret: { env: 'BERTH_AGENT_SERVER_LICENSE_SECRET' },
  backupStore: { env: 'BERTH_BACKUP_STORE' },
  backupStoreSecret: { env: 'BERTH_BACKUP_STORE_SECRET' },
  backupStoreAdmin: { env: 'BERTH_BACKUP_STORE_ADMIN' },
  backupSchedule: { env: 'BERTH_BACKUP_SCHEDULE', fallback: defaultBackupSchedule },
  buildPrivileged: { env: 'BERTH_BUILD_PRIVILEGED', fallback: 'true' },
  buildNamespace: { env: 'BERTH_BUILD_NAMESPACE', fallback: defaultBuildNamespace },
  buildBlockedCidrs: { env: 'BERTH_BUILD_BLOCKED_CIDRS' },
  sourcePollSeconds: { env: 'BERTH_SOURCE_POLL_SECONDS', fallback: '60' },
  buildsPerOrganization: { env: 'BERTH_BUILDS_PER_ORGANIZATION', fallback: '4' },
  previewBuildsPerOrganization: { env: 'BERTH_PREVIEW_BUILDS_PER_ORGANIZATION', fallback: '2' },
  firstInputDeadlineSeconds: { env: 'BERTH_FIRST_INPUT_DEADLINE_SECONDS', fallback: '1800' },
  registry: { env: 'BERTH_REGISTRY' },
  pushRegistry: { env: 'BERTH_PUSH_REGISTRY' },
  postgresImage: { env: 'BERTH_POSTGRES_IMAGE' },
  databaseEngine: { env: 'BERTH_DATABASE_ENGINE', fallback: defaultDatabaseEngineChoice },
  cnpgPostgresImage: { env: 'BERTH_CNPG_POSTGRES_IMAGE', emptyIsUnset: true },
  cnpgStorageClass: { env: 'BERTH_CNPG_STORAGE_CLASS', emptyIsUnset: true },
  cnpgOperatorNamespace: { env: 'BERTH_CNPG_OPERATOR_NAMESPACE', emptyIsUnset: true, fallback: 'cnpg-system' },
  redisImage: { env: 'BERTH_REDIS_IMAGE' },
  networkWaitImage: { env: 'BERTH_NETWORK_WAIT_IMAGE' },
  publicUrl: { env: 'BERTH_PUBLIC_URL', emptyIsUnset: true },
  consoleDir: { env: 'BERTH_CONSOLE_DIR', emptyIsUnset: true },
  appUrlTemplate: { env: 'BERTH_APP_URL_TEMPLATE', emptyIsUnset: true },
  gateway: { env: 'BERTH_GATEWAY', emptyIsUnset: true },
  ingressClass: { env: 'BERTH_INGRESS_CLASS', emptyIsUnset: true },
  tlsIssuer: { env: 'BERTH_TLS_ISSUER', emptyIsUnset: true },
  listenersPerGateway: { env: 'BERTH_LISTENERS_PER_GATEWAY', fallback: String(gatewayListenerLimit) },
  concurrencyMetrics: { env: 'BERTH_CONCURRENCY_METRICS', emptyIsUnset: true },
  concurrencyQuery: { env: 'BERTH_CONCURRENCY_QUERY', emptyIsUnset: true, fallback: defaultConcurrencyQuery },
  activatorProxy: { env: 'BERTH_ACTIVATOR_PROXY', emptyIsUnset: true },
  activatorScaler: { env: 'BERTH_ACTIVATOR_SCALER', emptyIsUnset: true },
  activatorIdleSeconds: { env: 'BERTH_ACTIVATOR_IDLE_SECONDS', fallback: String(idleSecondsBeforeZero) },
  proxyNamespace: { env: 'BERTH_PROXY_NAMESPACE', emptyIsUnset: true },
  networkPolicyCheck: { env: 'BERTH_NETWORK_POLICY_CHECK', fallback: 'auto' },
  progressDeadlineSeconds: { env: 'BERTH_PROGRESS_DEADLINE_SECONDS', fallback: '600' },
  scaleDownWindowSeconds: { env: 'BERTH_SCALE_DOWN_WINDOW_SECONDS', fallback: String(defaultScaleDownWindowSeconds) },
  requestScale: { env: 'BERTH_REQUEST_SCALE', fallback: (where) => where.requestScale },
  organizationPolicy: { env: 'BERTH_ORGANIZATION_POLICY', fallback: (where) => where.organizationPolicy },
  buildResources: { env: 'BERTH_BUILD_RESOURCES' },
  buildPlacement: { env: 'BERTH_BUILD_PLACEMENT' },
  oauthPrivateNetworks: { env: 'BERTH_OAUTH_PRIVATE_NETWORKS', fallback: (where) => where.oauthPrivateNetworks },
  previewForkSecrets: { env: 'BERTH_PREVIEW_FORK_SECRETS', fallback: 'false' },
  drainSeconds: { env: 'BERTH_DRAIN_SECONDS', fallback: '0' },
} satisfies Record<string, OptionSource>;

type OptionName = keyof typeof optionSources;

/** Parses argv (without node and the script) and env; throws an Error whose message says what is wrong. */
export function parseCommandLine(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  shape: CommandLineShape = { defaults: clusterDefaults, ownFlags: [] },
): ParsedCommandLine {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...Object.fromEntries([...shape.ownFlags, ...optionNames.map(flagName)].map((flag) => [flag, { type: 'string' } as const])),
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  const [command, ...extra] = positionals;
  if (command !== undefined && command !== 'run') throw new Error(`command: expected run (or none), got ${command}`);
  if (extra.length > 0) throw new Error(`unexpected arguments: ${extra.join(' ')}`);
  const given: Record<string, unknown> = values;
  const raw = Object.fromEntries(optionNames.map((name) => [name, optionValue(name, given[flagName(name)], env, shape.defaults)]));
  const parsed = optionsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${flagOf(issue.path)}: ${issue.path.length > 1 ? `${issue.path.slice(1).join('.')}: ` : ''}${issue.message}`,
    );
    throw new Error(problems.join('\n'));
  }
  const own = Object.fromEntries(shape.ownFlags.map((flag) => [flag, typeof given[flag] === 'string' ? given[flag] : undefined]));
  return { help: false, options: parsed.data, own };
}

const optionNames = Object.keys(optionSources) as OptionName[];

/** An option's flag: its name in kebab case (facadeAddress is --facade-address). */
function flagName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** An option's value: its flag's, else its environment variable's, else its default. */
function optionValue(name: OptionName, flag: unknown, env: NodeJS.ProcessEnv, where: WhereDefaults): string | undefined {
  if (typeof flag === 'string') return flag;
  const source: OptionSource = optionSources[name];
  const fromEnv = source.emptyIsUnset ? env[source.env] || undefined : env[source.env];
  if (fromEnv !== undefined) return fromEnv;
  return typeof source.fallback === 'function' ? source.fallback(where) : source.fallback;
}

function flagOf(path: PropertyKey[]): string {
  return `--${flagName(String(path[0] ?? ''))}`;
}

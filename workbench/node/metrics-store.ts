// The node's Prometheus-compatible server: VictoriaMetrics, single node (scripts/build-victoria-metrics.sh),
// run on the host, on loopback only. It scrapes the Gateway's Prometheus metrics every few seconds, and
// the kubelet's cAdvisor (each container's CPU and memory, as a cluster's Prometheus does) with a client
// certificate of its own that may read nodes' metrics and nothing else, and KEDA's operator (its
// scalers' readings: an agent server's run queue over time), and answers PromQL at
// /api/v1/query, which is where KEDA reads each app's request concurrency (Berth's
// `--concurrency-metrics`) and Berth a deployment's figures over time, as from a cluster's Prometheus.
//
// The store also takes imports and deletes on the same port, and what KEDA reads drives every app's
// scale: KEDA and Berth read it through vmauth instead, which passes the query paths only (anything else
// is a 400, "missing route"), as a cluster's store should be read.
import { stringify } from 'yaml';
import type { KubeObject } from '../../src/runtime/index.ts';
import { metricsStoreUserName } from '../pki.ts';
import { partMetadata, roleBinding } from './extension-api.ts';
import { kedaOperatorMetricsAddress } from './keda.ts';
import { gatewayMetricsAddress, kubeletPort, nodeIp } from './network.ts';

/** Where the store itself listens: loopback only, reached by vmauth alone. */
const storeAddress = { host: '127.0.0.1', port: 20492 };

/** Where the query-only front answers PromQL: loopback only. */
export const metricsStoreAddress = { host: '127.0.0.1', port: 20491 };

/** The URL Berth gives KEDA's prometheus triggers under `berth dev` and in the node suite: the front. */
export const metricsStoreUrl = `http://${metricsStoreAddress.host}:${metricsStoreAddress.port}`;

/** The store's own URL, writable: for the node suite's proof that the front refuses what it takes. */
export const writableStoreUrl = `http://${storeAddress.host}:${storeAddress.port}`;

/** The read paths the front passes on (PromQL and metadata reads), as vmauth's regular expressions. */
const readPaths = ['/api/v1/query', '/api/v1/query_range', '/api/v1/series', '/api/v1/labels', '/api/v1/label/[^/]+/values'];

/** vmauth's configuration: callers without credentials reach the read paths of the store, nothing else. */
export function metricsReaderConfig(): string {
  return stringify({ unauthorized_user: { url_map: [{ src_paths: readPaths, url_prefix: writableStoreUrl }] } });
}

/** vmauth's flags: the front's address, its configuration, quiet logs. */
export function metricsReaderArgs(config: string): string[] {
  return [`-auth.config=${config}`, `-httpListenAddr=${metricsStoreAddress.host}:${metricsStoreAddress.port}`, '-loggerLevel=WARN'];
}

/** How often the Gateway is scraped: a load's concurrency shows within a few seconds. */
const scrapeIntervalSeconds = 5;

/** How often the kubelet's cAdvisor is scraped: as metrics-server reads the kubelet. */
const cadvisorIntervalSeconds = 15;

/** What is kept of cAdvisor's metrics: the two Berth charts (usage-metrics.ts). */
const cadvisorMetrics = ['container_cpu_usage_seconds_total', 'container_memory_working_set_bytes'];

/** The files of the store's identity towards the kubelet, and the cluster's CA the kubelet's serving
 * certificate is signed by. */
export interface KubeletScrapeTls {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** The scrape configuration: the Gateway's metrics endpoint, the kubelet's cAdvisor, KEDA's operator. */
export function metricsStoreScrapeConfig(kubelet: KubeletScrapeTls): string {
  return stringify({
    scrape_configs: [
      {
        job_name: 'gateway',
        scrape_interval: `${scrapeIntervalSeconds}s`,
        static_configs: [{ targets: [`${gatewayMetricsAddress.host}:${gatewayMetricsAddress.port}`] }],
      },
      {
        job_name: 'kubelet-cadvisor',
        scrape_interval: `${cadvisorIntervalSeconds}s`,
        scheme: 'https',
        metrics_path: '/metrics/cadvisor',
        tls_config: { ca_file: kubelet.caFile, cert_file: kubelet.certFile, key_file: kubelet.keyFile },
        static_configs: [{ targets: [`${nodeIp}:${kubeletPort}`] }],
        metric_relabel_configs: [{ source_labels: ['__name__'], regex: cadvisorMetrics.join('|'), action: 'keep' }],
      },
      {
        // Each scaler's last reading (an agent server's run queue): its history, as a cluster's
        // Prometheus keeps it from KEDA's operator.
        job_name: 'keda-operator',
        scrape_interval: `${scrapeIntervalSeconds}s`,
        static_configs: [{ targets: [`${kedaOperatorMetricsAddress.host}:${kedaOperatorMetricsAddress.port}`] }],
        metric_relabel_configs: [{ source_labels: ['__name__'], regex: 'keda_scaler_metrics_value', action: 'keep' }],
      },
    ],
  });
}

/** The store's right to read the kubelet's metrics (the kubelet asks the API server: nodes/metrics). */
export function metricsStoreObjects(): KubeObject[] {
  const labels = { 'app.kubernetes.io/name': 'metrics-store', 'app.kubernetes.io/managed-by': 'berth' };
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: partMetadata(labels, metricsStoreUserName),
      rules: [{ apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] }],
    } as KubeObject,
    roleBinding(labels, metricsStoreUserName, metricsStoreUserName, { kind: 'User', name: metricsStoreUserName }),
  ];
}

/**
 * Its flags: data in the node's data dir, one day kept, a small cache, and samples visible to queries
 * at once (the default hides the last 30 s, which would delay every scaling decision by as much).
 */
export function metricsStoreArgs(input: { dataDir: string; scrapeConfig: string }): string[] {
  return [
    `-storageDataPath=${input.dataDir}`,
    `-promscrape.config=${input.scrapeConfig}`,
    `-httpListenAddr=${storeAddress.host}:${storeAddress.port}`,
    '-retentionPeriod=1d',
    '-memory.allowedBytes=64MiB',
    '-search.latencyOffset=1s',
    '-loggerLevel=WARN',
  ];
}

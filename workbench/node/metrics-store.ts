// The node's Prometheus-compatible server: VictoriaMetrics, single node (scripts/build-victoria-metrics.sh),
// run on the host, on loopback only. It scrapes the Gateway's Prometheus metrics every few seconds and
// answers PromQL at /api/v1/query, which is where KEDA reads each app's request concurrency (Berth's
// `--concurrency-metrics`), as it would from a cluster's Prometheus.
import { stringify } from 'yaml';
import { gatewayMetricsAddress } from './network.ts';

/** Where the store answers PromQL: loopback only. */
export const metricsStoreAddress = { host: '127.0.0.1', port: 20491 };

/** The URL Berth gives KEDA's prometheus triggers under `berth dev` and in the node suite. */
export const metricsStoreUrl = `http://${metricsStoreAddress.host}:${metricsStoreAddress.port}`;

/** How often the Gateway is scraped: a load's concurrency shows within a few seconds. */
const scrapeIntervalSeconds = 5;

/** The scrape configuration: the Gateway's metrics endpoint, nothing else. */
export function metricsStoreScrapeConfig(): string {
  return stringify({
    scrape_configs: [
      {
        job_name: 'gateway',
        scrape_interval: `${scrapeIntervalSeconds}s`,
        static_configs: [{ targets: [`${gatewayMetricsAddress.host}:${gatewayMetricsAddress.port}`] }],
      },
    ],
  });
}

/**
 * Its flags: data in the node's data dir, one day kept, a small cache, and samples visible to queries
 * at once (the default hides the last 30 s, which would delay every scaling decision by as much).
 */
export function metricsStoreArgs(input: { dataDir: string; scrapeConfig: string }): string[] {
  return [
    `-storageDataPath=${input.dataDir}`,
    `-promscrape.config=${input.scrapeConfig}`,
    `-httpListenAddr=${metricsStoreAddress.host}:${metricsStoreAddress.port}`,
    '-retentionPeriod=1d',
    '-memory.allowedBytes=64MiB',
    '-search.latencyOffset=1s',
    '-loggerLevel=WARN',
  ];
}

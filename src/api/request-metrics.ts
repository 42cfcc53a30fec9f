// What the Gateway measured of one app's requests, as PromQL over Traefik's metrics in the
// Prometheus-compatible store the installation reads requests in flight from: rates and latency
// quantiles over the last five minutes, the window the reference's charts show. Pure.
import { concurrencyQuery, gatewayServiceSelector } from './request-concurrency.ts';

export const requestMetricsWindowSeconds = 300;

export interface RequestMetricQueries {
  requestsPerSecond: string;
  errorsPerSecond: string;
  latencyP50Seconds: string;
  latencyP99Seconds: string;
}

const window = `[${requestMetricsWindowSeconds}s]`;
const requests = (extra = '') => `sum(rate(traefik_service_requests_total{${gatewayServiceSelector}${extra}}${window}))`;
const latency = (quantile: number) =>
  `histogram_quantile(${quantile}, sum by (le) (rate(traefik_service_request_duration_seconds_bucket{${gatewayServiceSelector}}${window})))`;

/** The queries with {namespace}, {service} and {port} left in (the Grafana dashboard fills them with
 * its variables). */
export const requestMetricTemplates: RequestMetricQueries = {
  requestsPerSecond: requests(),
  errorsPerSecond: requests(',code=~"5.."'),
  latencyP50Seconds: latency(0.5),
  latencyP99Seconds: latency(0.99),
};

/** The queries of one app: its Service's namespace, name and port in the selector. */
export function requestMetricQueries(service: { namespace: string; name: string; port: number }): RequestMetricQueries {
  const fill = (template: string) => concurrencyQuery(template, service);
  return {
    requestsPerSecond: fill(requestMetricTemplates.requestsPerSecond),
    errorsPerSecond: fill(requestMetricTemplates.errorsPerSecond),
    latencyP50Seconds: fill(requestMetricTemplates.latencyP50Seconds),
    latencyP99Seconds: fill(requestMetricTemplates.latencyP99Seconds),
  };
}

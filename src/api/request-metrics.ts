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
const latency = (quantile: number, over = window) =>
  `histogram_quantile(${quantile}, sum by (le) (rate(traefik_service_request_duration_seconds_bucket{${gatewayServiceSelector}}${over})))`;
const count = (extra: string, over: string) => `sum(increase(traefik_service_requests_total{${gatewayServiceSelector}${extra}}${over}))`;

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

/** What a canary's analysis reads over one step's window: the new revision's requests, its 5xx answers
 * and p99 latency, and the stable revision's p99 over the same window. */
export interface CanaryQueries {
  requests: string;
  errors: string;
  latencyP99Seconds: string;
  stableLatencyP99Seconds: string;
}

export function canaryQueries(
  services: { namespace: string; canary: string; stable: string; port: number },
  windowSeconds: number,
): CanaryQueries {
  const over = `[${windowSeconds}s]`;
  const canary = (template: string) =>
    concurrencyQuery(template, { namespace: services.namespace, name: services.canary, port: services.port });
  const stable = (template: string) =>
    concurrencyQuery(template, { namespace: services.namespace, name: services.stable, port: services.port });
  return {
    requests: canary(count('', over)),
    errors: canary(count(',code=~"5.."', over)),
    latencyP99Seconds: canary(latency(0.99, over)),
    stableLatencyP99Seconds: stable(latency(0.99, over)),
  };
}

// Where an installation reads each app's request concurrency, for autoscaling on it: a Prometheus-compatible
// server and a PromQL template that names one app's traffic. The default template reads Traefik's
// Gateway metrics: the rate of the request duration sum of a backend Service is the mean number of
// requests in flight there (Little's law), over the last 30 s. {namespace}, {service} and {port} become
// the app's Service; each is a DNS label or a number, so nothing a team chooses can change the query. Pure.

export interface RequestConcurrency {
  /** The Prometheus-compatible server's base URL (KEDA's prometheus trigger `serverAddress`). */
  readonly serverAddress: string;
  /** The PromQL template, with {namespace}, {service} and {port} left in. */
  readonly query: string;
}

/** How Traefik's Gateway labels the metrics of one backend Service: the app's, in the templates' terms. */
export const gatewayServiceSelector = 'service="{namespace}-{service}-http-{port}@kubernetesgateway"';

export const defaultConcurrencyQuery = `sum(rate(traefik_service_request_duration_seconds_sum{${gatewayServiceSelector}}[30s]))`;

/** Requests in flight per replica the autoscaler holds an app at: the reference platform's figure. */
export const targetConcurrencyPerReplica = 10;

const placeholders = ['{namespace}', '{service}'] as const;

/** Why `query` cannot be a template, or undefined. */
export function concurrencyQueryProblem(query: string): string | undefined {
  const missing = placeholders.filter((placeholder) => !query.includes(placeholder));
  if (missing.length > 0) return `the query must name one app's traffic: it has no ${missing.join(' and ')}`;
  return undefined;
}

/** The query of one app: its Service's namespace, name and port in place of the placeholders. */
export function concurrencyQuery(template: string, service: { namespace: string; name: string; port: number }): string {
  return template
    .replaceAll('{namespace}', service.namespace)
    .replaceAll('{service}', service.name)
    .replaceAll('{port}', String(service.port));
}

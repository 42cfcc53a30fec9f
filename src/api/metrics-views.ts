// The per-deployment figures of the HTTP API (facade/routes/metrics.ts) as a platform team's monitoring
// shows them: a Grafana dashboard with a namespace and a deployment to choose, and Prometheus alerting
// rules, both installed by the chart (`npm run generate` writes them into charts/berth/files/). The
// request queries are the API's own (request-metrics.ts); pods' usage comes from the kubelet's cAdvisor
// and kube-state-metrics, as a kube-prometheus installation scrapes them. Pure.
import { applicationServicePort, routeServiceHashPattern } from './child-names.ts';
import { backupStaleAfterHours, databaseBackupMetricNames } from './database-backup.ts';
import { concurrencyQuery, gatewayServiceSelector } from './request-concurrency.ts';
import { requestMetricTemplates, requestMetricsWindowSeconds } from './request-metrics.ts';
import { cpuCoresOf, deploymentPodsPattern, memoryBytesOf } from './usage-metrics.ts';

/** A query template filled with the dashboard's variables: the namespace and the deployment's route
 * Service (child-names.ts routeServiceNames), found from the deployment by its label. */
function forDashboard(template: string): string {
  return concurrencyQuery(template, { namespace: '$namespace', name: '$backend', port: applicationServicePort });
}

/** The application's and queue worker's pods (a Deployment's `<name>-<hash>-<suffix>`, `<name>-queue-...`)
 * and the database's (its StatefulSet's one pod), by name, as cAdvisor and kube-state-metrics label them. */
const appPods = `namespace="$namespace", pod=~"${deploymentPodsPattern('$deployment(-queue)?')}"`;
const databasePod = 'namespace="$namespace", pod="$deployment-postgres-0"';
const databaseClaim = 'namespace="$namespace", persistentvolumeclaim="data-$deployment-postgres-0"';
const window = `[${requestMetricsWindowSeconds}s]`;

interface Panel {
  title: string;
  unit: string;
  queries: Record<string, string>;
}

const panels: Panel[] = [
  {
    title: 'Requests',
    unit: 'reqps',
    queries: { all: requestMetricTemplates.requestsPerSecond, '5xx': requestMetricTemplates.errorsPerSecond },
  },
  {
    title: 'Success ratio (non-5xx)',
    unit: 'percentunit',
    queries: { success: `1 - (${requestMetricTemplates.errorsPerSecond} or vector(0)) / ${requestMetricTemplates.requestsPerSecond}` },
  },
  {
    title: 'Latency',
    unit: 's',
    queries: { p50: requestMetricTemplates.latencyP50Seconds, p99: requestMetricTemplates.latencyP99Seconds },
  },
  {
    title: 'CPU',
    unit: 'cores',
    queries: {
      application: cpuCoresOf(appPods, `${requestMetricsWindowSeconds}s`),
      database: cpuCoresOf(databasePod, `${requestMetricsWindowSeconds}s`),
    },
  },
  {
    title: 'Memory',
    unit: 'bytes',
    queries: {
      application: memoryBytesOf(appPods),
      database: memoryBytesOf(databasePod),
    },
  },
  {
    title: 'Replicas and restarts',
    unit: 'short',
    queries: {
      ready: `sum(kube_pod_status_ready{${appPods}, condition="true"})`,
      'restarts (1 h)': `sum(increase(kube_pod_container_status_restarts_total{${appPods}}[1h]))`,
    },
  },
  {
    title: 'Database volume',
    unit: 'bytes',
    queries: {
      used: `sum(kubelet_volume_stats_used_bytes{${databaseClaim}})`,
      capacity: `sum(kubelet_volume_stats_capacity_bytes{${databaseClaim}})`,
    },
  },
];

const dashboardUid = 'berth-deployment';

/** The stable route Services' names, as PromQL matches a label (anchored): `b` and 12 hex digits. */
const routeServicePattern = `b${routeServiceHashPattern}`;

/** The Grafana dashboard: one row of panels per figure, for the namespace and deployment chosen. */
export function renderDashboard(): object {
  const variable = (name: string, label: string, query: string, hide = 0) => ({
    name,
    label,
    hide,
    type: 'query',
    datasource: { type: 'prometheus', uid: '${datasource}' },
    query: { query, refId: name },
    refresh: 2,
    sort: 1,
  });
  return {
    uid: dashboardUid,
    title: 'Berth deployment',
    description: "A Berth deployment's requests (at the Gateway), pods and database: the figures of GET /v2/deployments/{id}/metrics.",
    tags: ['berth'],
    schemaVersion: 39,
    time: { from: 'now-6h', to: 'now' },
    refresh: '30s',
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus' },
        variable(
          'namespace',
          'Organization namespace',
          'label_values(kube_namespace_labels{label_berth_dev_organization_id!=""}, namespace)',
        ),
        variable(
          'deployment',
          'Deployment',
          `label_values(kube_deployment_labels{namespace="$namespace", label_app_kubernetes_io_managed_by="berth"}, deployment)`,
        ),
        // Hidden: the Service the Gateway routes the deployment's requests to, by the deployment's label.
        variable(
          'backend',
          'Route Service',
          `label_values(kube_service_labels{namespace="$namespace", label_berth_dev_deployment="$deployment", service=~"${routeServicePattern}"}, service)`,
          2,
        ),
      ],
    },
    panels: panels.map((panel, index) => ({
      id: index + 1,
      type: 'timeseries',
      title: panel.title,
      datasource: { type: 'prometheus', uid: '${datasource}' },
      gridPos: { h: 8, w: 12, x: (index % 2) * 12, y: Math.floor(index / 2) * 8 },
      fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
      targets: Object.entries(panel.queries).map(([legend, query], target) => ({
        refId: String.fromCharCode(65 + target),
        expr: forDashboard(query),
        legendFormat: legend,
      })),
    })),
  };
}

/** When an app's requests count as failing: the thresholds a canary is held to by default. */
export const alertThresholds = { successRatio: 0.99, latencyP99Seconds: 2, forMinutes: 10 } as const;

/** Alerting rules per app behind the Gateway, by its backend Service as Traefik names it. */
export function renderAlertRules(): object {
  const all = gatewayServiceSelector.replace(/"[^"]*"/, '".+@kubernetesgateway"').replace('service=', 'service=~');
  const byService = (template: string) => template.replace(gatewayServiceSelector, all).replace(/^sum\(/, 'sum by (service) (');
  const requests = byService(requestMetricTemplates.requestsPerSecond);
  const errors = byService(requestMetricTemplates.errorsPerSecond);
  const p99 = `histogram_quantile(0.99, sum by (service, le) (rate(traefik_service_request_duration_seconds_bucket{${all}}${window})))`;
  const { successRatio, latencyP99Seconds, forMinutes } = alertThresholds;
  return {
    groups: [
      {
        name: 'berth-deployments',
        rules: [
          {
            alert: 'BerthDeploymentErrors',
            expr: `(${errors}) / (${requests}) > ${(1 - successRatio).toFixed(2)}`,
            for: `${forMinutes}m`,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'An app answers more than 1 % of its requests with a 5xx',
              description: '{{ $labels.service }}: {{ $value | humanizePercentage }} of its requests over 5 minutes were 5xx.',
            },
          },
          {
            alert: 'BerthDeploymentSlow',
            expr: `${p99} > ${latencyP99Seconds}`,
            for: `${forMinutes}m`,
            labels: { severity: 'warning' },
            annotations: {
              summary: `An app's p99 latency is over ${latencyP99Seconds} s`,
              description: '{{ $labels.service }}: p99 {{ $value | humanizeDuration }} over 5 minutes.',
            },
          },
          {
            alert: 'BerthDatabaseBackupStale',
            expr: `time() - ${databaseBackupMetricNames.lastCompleted} > ${backupStaleAfterHours * 3600}`,
            for: '1h',
            labels: { severity: 'warning' },
            annotations: {
              summary: `A database's newest completed backup is more than ${backupStaleAfterHours} hours old`,
              description:
                '{{ $labels.namespace }}/{{ $labels.deployment }}: its newest backup completed {{ $value | humanizeDuration }} ago (kubectl get dbbackup -n {{ $labels.namespace }}).',
            },
          },
          {
            alert: 'BerthDeploymentRestarting',
            expr: 'sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total{namespace=~".+"}[15m])) > 3 and on (namespace) kube_namespace_labels{label_berth_dev_organization_id!=""}',
            for: '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: "A pod in an organization's namespace restarted more than 3 times in 15 minutes",
              description: '{{ $labels.namespace }}/{{ $labels.pod }} restarted {{ $value }} times in 15 minutes.',
            },
          },
        ],
      },
    ],
  };
}

/** The chart's files, by their path in the chart, as `npm run generate` writes them. */
export function metricsViewFiles(): Record<string, string> {
  return {
    'files/grafana-dashboard.json': `${JSON.stringify(renderDashboard(), null, 2)}\n`,
    'files/prometheus-rules.json': `${JSON.stringify(renderAlertRules(), null, 2)}\n`,
  };
}

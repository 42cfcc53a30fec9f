// The runtime's Prometheus series, on a registry of their own so that two managers in one process
// (as in the tests) do not collide.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface RuntimeMetrics {
  registry: Registry;
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  reconcileDuration: Histogram<'controller'>;
  workqueueDepth: Gauge<'name'>;
  workqueueRetries: Counter<'name'>;
  kubeApiRequests: Counter<'verb' | 'resource' | 'code'>;
  leader: Gauge;
}

export function createRuntimeMetrics(options: { processMetrics?: boolean } = {}): RuntimeMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    reconcileTotal: new Counter({
      name: 'berth_reconcile_total',
      help: 'Reconciles by controller and result (success, requeue, error).',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'berth_reconcile_errors_total',
      help: 'Reconciles that failed and will be retried with backoff.',
      labelNames: ['controller'],
      registers,
    }),
    reconcileDuration: new Histogram({
      name: 'berth_reconcile_duration_seconds',
      help: 'Time one reconcile takes.',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    workqueueDepth: new Gauge({
      name: 'berth_workqueue_depth',
      help: 'Keys waiting in a controller work queue.',
      labelNames: ['name'],
      registers,
    }),
    workqueueRetries: new Counter({
      name: 'berth_workqueue_retries_total',
      help: 'Keys put back into a work queue with backoff after a failure.',
      labelNames: ['name'],
      registers,
    }),
    kubeApiRequests: new Counter({
      name: 'berth_kube_api_requests_total',
      help: 'Requests this process made to the Kubernetes API server, by verb, resource and HTTP code (0: no answer).',
      labelNames: ['verb', 'resource', 'code'],
      registers,
    }),
    leader: new Gauge({
      name: 'berth_leader',
      help: '1 while this replica holds the leader lease (or runs without leader election), else 0.',
      registers,
    }),
  };
}

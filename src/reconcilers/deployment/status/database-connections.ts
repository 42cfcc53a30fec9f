// Whether a durable agent server's own database admits every connection its pods may open at once:
// Berth bounds each process (render/agent-server.ts) but not the replicas, which the spec sets. Pure.
import type { ConditionDecision } from '../../../api/index.ts';
import { mostConnections, type DurableServer } from '../render/agent-server.ts';
import type { BackingServices } from '../render/backing.ts';
import { postgresMaxConnections } from '../render/postgres.ts';
import type { DeploymentSpecInput } from '../render/spec.ts';

export const databaseConnectionsCondition = 'DatabaseConnections';

/** Connections kept beside the server's: KEDA's two readings of the backlog (an operator's psql has
 * Postgres's own superuser slots). */
const reservedConnections = 2;

/** The condition of a durable agent server on Berth's Postgres; none for other deployments, whose
 * connections Berth does not bound, or a team's own database, whose max_connections it does not know. */
export function databaseConnections(
  spec: DeploymentSpecInput,
  server: DurableServer | undefined,
  backing: BackingServices,
): ConditionDecision | undefined {
  if (!server || !backing.database) return undefined;
  const most = mostConnections(spec, server);
  const max = postgresMaxConnections(spec);
  const needed = most + reservedConnections;
  const opens = `At its most replicas the agent server opens at most ${most} connections (a rollout adds its draining pods')`;
  const takes = `its database takes ${max} (max_connections), ${reservedConnections} of them kept for KEDA's readings`;
  if (needed <= max)
    return { type: databaseConnectionsCondition, status: 'True', reason: 'WithinMaxConnections', message: `${opens}; ${takes}.` };
  const scales = server.queued ? 'max_scale or queue_max_scale' : 'max_scale';
  return {
    type: databaseConnectionsCondition,
    status: 'False',
    reason: 'MaxConnectionsTooLow',
    message:
      `${opens}, and ${takes}: past them, its runs and requests fail with "too many clients". ` +
      `Set db_max_connections to at least ${needed} (or a larger db_size), or lower ${scales}.`,
  };
}

// How many connections a durable agent server's processes open to the deployment's own Postgres, so
// that all of them together stay within the database's max_connections whatever the queue's length.
//
// Each process is bounded by its pools (the image's SQLAlchemy 5 + 5 overflow and LangGraph 10,
// src/agent-server/image.env) and by one connection per run it executes (the thread's advisory lock,
// patches/0001); their sum over replicas is not. Berth counts the processes at the most replicas the
// application and the queue worker may run, a rollout's surge pod each, takes their runs' connections
// and a reserve off the database's max_connections, and gives each process an equal share of the rest
// for its pools, never more than the image's own. Pure.

/** The processes of a durable agent server at their most, and the runs each executes at once. */
export interface ServerProcesses {
  /** Pods that take requests (and execute runs where there is no queue worker). */
  api: number;
  /** Queue worker pods. */
  queue: number;
  /** Runs an API pod executes at once: 0 when a queue worker runs them. */
  runsPerApi: number;
  /** Runs a queue worker pod executes at once. */
  runsPerQueue: number;
}

/** aegra's pool settings (its SQLALCHEMY_* and LANGGRAPH_* variables). */
export interface PoolSizes {
  sqlalchemyPoolSize: number;
  sqlalchemyMaxOverflow: number;
  langgraphMinPoolSize: number;
  langgraphMaxPoolSize: number;
}

/** Connections left to others than the server: Postgres' superuser reserve (3), KEDA's reads of the
 * backlog, Berth's figures and an operator's psql. */
export const reservedConnections = 6;

/** The image's own pools (src/agent-server/image.env): a share larger than theirs is left unused. */
const imagePools = { sqlalchemy: 10, langgraph: 10, langgraphMin: 1 };

/** The least pools a process works with: two SQLAlchemy connections and two LangGraph ones. */
const leastPools = { sqlalchemy: 2, langgraph: 2 };

/** Each process's pools: its share of what the runs and the reserve leave, and never less than the
 * least pools (a database whose max_connections is too small for the replicas the deployment may run
 * then refuses connections at its busiest, as it did before). */
export function poolBudget(maxConnections: number, processes: ServerProcesses): PoolSizes {
  const count = processes.api + processes.queue;
  const runs = processes.api * processes.runsPerApi + processes.queue * processes.runsPerQueue;
  return poolSizes(Math.floor((maxConnections - reservedConnections - runs) / count));
}

/** A process's share split as the image's pools are (half each, half of SQLAlchemy's kept open), each
 * pool within its bounds. */
export function poolSizes(share: number): PoolSizes {
  const langgraph = within(Math.floor(share / 2), leastPools.langgraph, imagePools.langgraph);
  const sqlalchemy = within(share - langgraph, leastPools.sqlalchemy, imagePools.sqlalchemy);
  const kept = Math.ceil(sqlalchemy / 2);
  return {
    sqlalchemyPoolSize: kept,
    sqlalchemyMaxOverflow: sqlalchemy - kept,
    langgraphMinPoolSize: Math.min(imagePools.langgraphMin, langgraph),
    langgraphMaxPoolSize: langgraph,
  };
}

/** The connections one process may open with these pools and runs. */
export function processConnections(pools: PoolSizes, runs: number): number {
  return pools.sqlalchemyPoolSize + pools.sqlalchemyMaxOverflow + pools.langgraphMaxPoolSize + runs;
}

function within(value: number, least: number, most: number): number {
  return Math.min(Math.max(value, least), most);
}

import { describe, expect, it } from 'vitest';
import { poolBudget, poolSizes, processConnections, reservedConnections, type ServerProcesses } from './connection-budget.ts';

/** Every connection the processes may open together, at their pools' and runs' most. */
const total = (maxConnections: number, processes: ServerProcesses) => {
  const pools = poolBudget(maxConnections, processes);
  return (
    processes.api * processConnections(pools, processes.runsPerApi) + processes.queue * processConnections(pools, processes.runsPerQueue)
  );
};

describe('poolBudget', () => {
  it("keeps the image's own pools where the database has room for them", () => {
    expect(poolBudget(400, { api: 2, queue: 0, runsPerApi: 10, runsPerQueue: 10 })).toEqual({
      sqlalchemyPoolSize: 5,
      sqlalchemyMaxOverflow: 5,
      langgraphMinPoolSize: 1,
      langgraphMaxPoolSize: 10,
    });
  });

  it.each([
    ['one server and its surge pod', { api: 2, queue: 0, runsPerApi: 10, runsPerQueue: 10 }, 100],
    ['two API pods and three queue workers, each with its surge pod', { api: 3, queue: 4, runsPerApi: 0, runsPerQueue: 10 }, 100],
    ['ten API pods and ten queue workers', { api: 11, queue: 11, runsPerApi: 0, runsPerQueue: 10 }, 300],
  ])('shares the database among %s, its reserve kept', (_, processes, maxConnections) => {
    expect(total(maxConnections, processes)).toBeLessThanOrEqual(maxConnections - reservedConnections);
  });

  it('gives no process less than its least pools, where the runs alone fill the database', () => {
    expect(poolBudget(100, { api: 11, queue: 11, runsPerApi: 0, runsPerQueue: 10 })).toEqual({
      sqlalchemyPoolSize: 1,
      sqlalchemyMaxOverflow: 1,
      langgraphMinPoolSize: 1,
      langgraphMaxPoolSize: 2,
    });
  });
});

describe('poolSizes', () => {
  it("splits a share as the image's pools are, half of SQLAlchemy's kept open", () => {
    expect(poolSizes(20)).toEqual({ sqlalchemyPoolSize: 5, sqlalchemyMaxOverflow: 5, langgraphMinPoolSize: 1, langgraphMaxPoolSize: 10 });
    expect(poolSizes(9)).toEqual({ sqlalchemyPoolSize: 3, sqlalchemyMaxOverflow: 2, langgraphMinPoolSize: 1, langgraphMaxPoolSize: 4 });
    expect(processConnections(poolSizes(9), 0)).toBe(9);
  });
});

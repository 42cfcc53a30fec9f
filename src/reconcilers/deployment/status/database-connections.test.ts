import { describe, expect, it } from 'vitest';
import { durableServerOf } from '../render/agent-server.ts';
import { backingServices } from '../render/backing.ts';
import type { DeploymentSpecInput, ResourceSpecInput } from '../render/spec.ts';
import { databaseConnections } from './database-connections.ts';

const image = 'registry/berth/agent-server@sha256:0';
const agent = (resourceSpec: ResourceSpecInput, more: Partial<DeploymentSpecInput['sourceConfig']> = {}): DeploymentSpecInput => ({
  source: 'internal_source',
  sourceConfig: { deploymentType: 'prod', resourceSpec, ...more },
  sourceRevisionConfig: { graphConfigPath: 'langgraph.json' },
});
const decide = (spec: DeploymentSpecInput, agentServerImage: string | undefined) => {
  const backing = backingServices(spec);
  return databaseConnections(spec, durableServerOf(spec, agentServerImage, backing), backing);
};

describe('databaseConnections', () => {
  it("admits the defaults: one replica of 30 connections in the database's 100", () => {
    expect(decide(agent({}), image)).toMatchObject({ status: 'True', reason: 'WithinMaxConnections' });
    expect(decide(agent({}), image)?.message).toContain('at most 30 connections');
  });

  it('says how many a spec whose replicas outgrow the database needs', () => {
    expect(decide(agent({ maxScale: 3 }), image)?.status).toBe('True');
    const decision = decide(agent({ maxScale: 4 }), image);
    expect(decision).toMatchObject({ type: 'DatabaseConnections', status: 'False', reason: 'MaxConnectionsTooLow' });
    // 4 pods of 30, and 2 kept for KEDA.
    expect(decision?.message).toContain('at most 120 connections');
    expect(decision?.message).toContain('takes 100 (max_connections)');
    expect(decision?.message).toContain('Set db_max_connections to at least 122 (or a larger db_size), or lower max_scale.');
  });

  it("counts an API that only queues at its pools' 20, and each queue worker at 30", () => {
    // 2 API pods of 20 and 3 queue workers of 30: 130.
    const over = decide(agent({ queueMaxScale: 3, maxScale: 2 }), image);
    expect(over?.message).toContain('at most 130 connections');
    expect(over?.message).toContain('or lower max_scale or queue_max_scale.');
    expect(decide(agent({ queueMaxScale: 2, maxScale: 1 }), image)).toMatchObject({ status: 'True' });
  });

  it('follows db_max_connections and db_size', () => {
    expect(decide(agent({ maxScale: 4, dbMaxConnections: 122 }), image)?.status).toBe('True');
    expect(decide(agent({ maxScale: 4, dbSize: 'medium' }), image)?.message).toContain('takes 200');
  });

  it("says nothing of a team's own database, or of a server Berth does not bound", () => {
    const external = agent({ maxScale: 9 }, { externalDatabase: { postgresUri: { name: 'db', key: 'uri' } } });
    expect(decide(external, image)).toBeUndefined();
    expect(decide(agent({ maxScale: 9 }), undefined)).toBeUndefined();
    expect(decide({ source: 'external_docker', sourceConfig: { resourceSpec: { maxScale: 9, dbCpu: 1 } } }, image)).toBeUndefined();
  });
});

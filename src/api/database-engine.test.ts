import { describe, expect, it } from 'vitest';
import { resolveDatabaseEngine } from './database-engine.ts';

describe('the engine of new databases', () => {
  it('is CloudNativePG under auto where the cluster serves its Cluster, else the StatefulSet', () => {
    expect(resolveDatabaseEngine('auto', true)).toBe('cnpg');
    expect(resolveDatabaseEngine('auto', false)).toBe('statefulset');
  });

  it('is the one chosen, and cnpg where the cluster serves no Cluster is refused with what to do', () => {
    expect(resolveDatabaseEngine('statefulset', true)).toBe('statefulset');
    expect(resolveDatabaseEngine('cnpg', true)).toBe('cnpg');
    expect(resolveDatabaseEngine('cnpg', false)).toEqual({
      error: expect.stringContaining('--database-engine cnpg needs CloudNativePG: this cluster serves no Cluster (postgresql.cnpg.io/v1)'),
    });
  });
});

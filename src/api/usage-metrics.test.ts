import { describe, expect, it } from 'vitest';
import { deploymentPodsPattern, usageMetricQueries } from './usage-metrics.ts';

/** The pattern as Prometheus reads it: unquoted from its PromQL string, anchored at both ends. */
const matcher = (name: string) => new RegExp(`^${deploymentPodsPattern(name).replaceAll('\\\\', '\\')}$`);

describe('usage metric queries', () => {
  it("name the Deployment's pods only: not its database's, nor another Deployment's", () => {
    const shop = matcher('shop');
    expect(shop.test('shop-7c9d8b5f4d-x2kqz')).toBe(true);
    expect(shop.test('shop-postgres-0')).toBe(false);
    expect(shop.test('shop-queue-7c9d8b5f4d-x2kqz')).toBe(false);
    expect(shop.test('shop-redis-6b8f9c7d5-abcde')).toBe(false);
    expect(shop.test('workshop-7c9d8b5f4d-x2kqz')).toBe(false);
    // A dot is a dot.
    expect(matcher('a.b').test('a.b-7c9d8b5f4d-x2kqz')).toBe(true);
    expect(matcher('a.b').test('axb-7c9d8b5f4d-x2kqz')).toBe(false);
  });

  it("sum CPU and the working set over its containers, else over its pods' own cgroups, never both", () => {
    const queries = usageMetricQueries({ namespace: 'team', deployment: 'shop' });
    const pods = 'namespace="team",pod=~"shop-';
    expect(queries.cpuCores).toMatch(
      new RegExp(
        `^sum\\(rate\\(container_cpu_usage_seconds_total\\{${pods}.*",container!="",container!="POD"\\}\\[2m\\]\\)\\) or ` +
          `sum\\(rate\\(container_cpu_usage_seconds_total\\{${pods}.*",container=""\\}\\[2m\\]\\)\\)$`,
      ),
    );
    expect(queries.memoryBytes).toMatch(
      /^sum\(container_memory_working_set_bytes\{namespace="team",.*\) or sum\(container_memory_working_set_bytes\{.*container=""\}\)$/,
    );
  });
});

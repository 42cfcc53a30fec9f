import { describe, expect, it } from 'vitest';
import { deploymentSpecSchema } from './deployment.ts';
import { isUserContainerName, ownContainerMessage } from './own-containers.ts';

describe("the names of Berth's own containers", () => {
  it('are refused to a user container, and any other name is free', () => {
    for (const name of ['app', 'queue', 'pre-deploy', 'wait-for-network', 'wait-for-postgres'])
      expect(isUserContainerName(name), name).toBe(false);
    for (const name of ['proxy', 'migrate', 'application', 'wait', 'waitfor-x']) expect(isUserContainerName(name), name).toBe(true);
  });

  it('refuse a spec with the field and the names in the message', () => {
    const spec = { source: 'external_docker', sourceConfig: { resourceSpec: { sidecars: [{ name: 'queue', image: 'busybox' }] } } };
    const result = deploymentSpecSchema.safeParse(spec);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['sourceConfig.resourceSpec.sidecars.0.name', ownContainerMessage],
    ]);
  });
});

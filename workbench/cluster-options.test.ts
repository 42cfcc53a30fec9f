import { describe, expect, it } from 'vitest';
import { publicCodeHostOrigins } from '../src/codehost/outbound.ts';
import type { ClusterDefaults } from './cluster-defaults.ts';
import { withClusterDefaults } from './cluster-options.ts';
import { parseDevCommandLine } from './dev-options.ts';
import { nodeTlsAppUrlTemplate } from './node/gateway.ts';

function options(argv: string[] = []) {
  const parsed = parseDevCommandLine(argv, {});
  if (parsed.help) throw new Error('expected options, got help');
  return parsed.value.options;
}

const node: ClusterDefaults = {
  registry: '10.243.0.1:5000',
  pushRegistry: '10.243.0.1:5001',
  postgresImage: 'node/postgres',
  nodeHost: '10.243.0.1',
  appUrlTemplate: nodeTlsAppUrlTemplate,
  gateway: { namespace: 'berth-gateway', name: 'apps' },
  activator: { proxy: { namespace: 'kube-system', name: 'interceptor', port: 8080 }, scalerAddress: 'scaler.kube-system:9090' },
  buildBlockedCidrs: ['10.244.0.0/16'],
  codeHostOrigins: ['http://10.243.0.1:*'],
  backupStore: {
    url: 'http://10.243.0.1:7070',
    adminUrl: 'http://127.0.0.1:7071',
    credentials: { accessKeyId: 'admin', secretAccessKey: 'kept-out-of-options' },
  },
};

describe("what the embedded cluster offers, folded into Berth's options", () => {
  it('fills every option the flags left unset, the HTTP API reachable at the node at its own port', () => {
    const folded = withClusterDefaults(options(['--facade-address', '127.0.0.1:8181']), node);
    expect(folded).toMatchObject({
      registry: '10.243.0.1:5000',
      pushRegistry: '10.243.0.1:5001',
      postgresImage: 'node/postgres',
      facadeNodeAddress: { host: '10.243.0.1', port: 8181 },
      appUrlTemplate: { scheme: 'https' },
      gateway: { namespace: 'berth-gateway', name: 'apps' },
      activatorProxy: { namespace: 'kube-system', name: 'interceptor', port: 8080 },
      activatorScaler: 'scaler.kube-system:9090',
      buildBlockedCidrs: ['10.244.0.0/16'],
      codeHostOrigins: [...publicCodeHostOrigins, 'http://10.243.0.1:*'],
      // Its credential goes to a Secret, never into the options.
      backupStore: 'http://10.243.0.1:7070',
      backupStoreSecret: 'berth-backup-store',
      backupStoreAdmin: 'http://127.0.0.1:7071',
    });
    expect(JSON.stringify(folded)).not.toContain('kept-out-of-options');
  });

  it('never overrides a flag, and takes both halves of the activator from the flags or neither', () => {
    const flags = options([
      '--registry',
      'registry.example:5000',
      '--activator-proxy',
      'keda/proxy:8080',
      '--activator-scaler',
      'scaler.keda:9090',
      '--code-host-origins',
      'https://ghe.example.com',
      '--backup-store',
      'https://s3.example.com',
      '--backup-store-secret',
      'platform-s3',
    ]);
    expect(withClusterDefaults(flags, node)).toMatchObject({
      registry: 'registry.example:5000',
      activatorProxy: { namespace: 'keda', name: 'proxy', port: 8080 },
      activatorScaler: 'scaler.keda:9090',
      codeHostOrigins: ['https://ghe.example.com'],
      backupStore: 'https://s3.example.com',
      backupStoreSecret: 'platform-s3',
    });
    // The flags' store, not the cluster's admin API.
    expect(withClusterDefaults(flags, node).backupStoreAdmin).toBeUndefined();
  });

  it('changes nothing where the cluster offers nothing', () => {
    const plain = options();
    expect(withClusterDefaults(plain, {})).toEqual(plain);
  });
});

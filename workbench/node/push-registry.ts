// The registry for pushed images beside the node's own: CNCF distribution (Debian's docker-registry)
// with token authentication, Berth the issuer. Its realm is the running Berth's token endpoint and it
// trusts the certificate in Berth's Secret berth-registry-signing, so it starts after Berth. It listens
// on the node's address, where the kubelet pulls from it (anonymously: Berth grants pull to anyone)
// as a cluster's nodes pull from an installation's registry. `berth dev` and the node tests run it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { kubeRequest } from '../../src/runtime/index.ts';
import { registrySigningSecretName } from '../../src/registry/signing.ts';
import { registryIssuer, registryService } from '../../src/registry/tokens.ts';
import { pushRegistryConfig } from './configs.ts';
import { pushRegistryAddress } from './network.ts';
import { eventually, GiveUp } from '../support/poll.ts';
import { startSupervised } from '../supervised-process.ts';

export interface PushRegistry {
  address: string;
  stop(): Promise<void>;
}

export async function startPushRegistry(input: {
  dir: string;
  /** Where it listens: network.ts's pushRegistryAddress unless another Berth's registry is there. */
  address?: string;
  kubeConfig: KubeConfig;
  operatorNamespace: string;
  berthUrl: string;
}): Promise<PushRegistry> {
  const address = input.address ?? pushRegistryAddress;
  mkdirSync(join(input.dir, 'storage'), { recursive: true });
  const secret = await kubeRequest<V1Secret>(input.kubeConfig, {
    method: 'GET',
    path: `/api/v1/namespaces/${input.operatorNamespace}/secrets/${registrySigningSecretName}`,
  });
  const bundle = join(input.dir, 'issuer.crt');
  writeFileSync(bundle, Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64'));
  const config = join(input.dir, 'config.yml');
  const realm = `${input.berthUrl}/v2/registry/token`;
  writeFileSync(
    config,
    pushRegistryConfig({
      address,
      storage: join(input.dir, 'storage'),
      realm,
      service: registryService,
      issuer: registryIssuer,
      rootCertBundle: bundle,
    }),
  );
  // It dies with the process that started it: a killed test run leaves no registry on the address.
  const registry = startSupervised(
    'registry for pushed images',
    '/usr/bin/docker-registry',
    ['serve', config],
    join(input.dir, 'registry.log'),
  );
  let exitCode: number | null | undefined;
  void registry.exited.then((code) => (exitCode = code));
  // distribution answers /v2/ with 401 and its realm once it listens: this one's realm, not that of a
  // registry another Berth left on the address (this one then exits, the port taken).
  const listening = async () => {
    if (exitCode !== undefined) throw new GiveUp(`it exited with code ${exitCode}`);
    const answer = await fetch(`http://${address}/v2/`).catch(() => undefined);
    return answer?.status === 401 && (answer.headers.get('www-authenticate') ?? '').includes(`realm="${realm}"`);
  };
  await eventually(listening, 15_000, 'the registry for pushed images').catch(async (error: unknown) => {
    await registry.stop();
    throw new Error(`the registry for pushed images did not start: ${(error as Error).message} (log: ${join(input.dir, 'registry.log')})`);
  });
  return {
    address,
    async stop() {
      await registry.stop();
    },
  };
}

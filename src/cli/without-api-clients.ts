// Berth reads its cluster configuration with client-node's KubeConfig (kubeconfig files, in-cluster
// service accounts, exec and OIDC credentials) and talks to the API server with its own requests
// (runtime/kube-request.ts). client-node's config module also imports what only its fetch-based API
// clients use: the generated clients (about a thousand model classes and sixty API classes, for
// makeApiClient) and undici (for their dispatchers). Berth calls neither, and without this hook a
// restart over 10,000 Deployments peaks 24 MiB higher (212-218 MiB, over the 200 MiB target;
// BENCHMARKS.md, "what each mechanism saves"). This
// resolve hook points those two imports of that one module at stand-ins whose members say why they
// are missing, so the process loads KubeConfig alone. Tests load the whole library as usual.
import { registerHooks } from 'node:module';
import { extname } from 'node:path';

/** client-node's module whose imports are redirected, and the stand-in (beside this module) for each. */
export const configModule = '/@kubernetes/client-node/dist/config.js';
export const standIns: Record<string, string> = {
  './gen/index.js': 'api-clients-stand-in',
  undici: 'undici-stand-in',
};

let registered = false;

/** Call before anything imports client-node; later imports of it load KubeConfig without the API clients. */
export function loadKubeConfigWithoutApiClients(): void {
  if (registered) return;
  registered = true;
  // The stand-ins carry this module's extension: .ts run from source, .js once built.
  const extension = extname(import.meta.url);
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const standIn = standIns[specifier];
      if (standIn && context.parentURL?.endsWith(configModule)) {
        return { url: new URL(`./${standIn}${extension}`, import.meta.url).href, shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}

// Node 24's node:http exports WebSocket, CloseEvent and MessageEvent through getters that load Node's
// bundled undici, and an ES module import of node:http reads every export to build its namespace. So
// the first `import ... from 'node:http'` (Berth's own, client-node's, agent-base's) loads undici:
// about 3 MiB of heap and 17 MiB of resident memory, in a process meant to stay under 200 MiB with
// 10,000 Deployments cached, for a WebSocket client Berth never uses. This resolve hook points every ES
// import of node:http at a facade of the same module read through require (http-without-websocket.ts),
// which lacks those three exports. CommonJS requires of http never read them. Tests import as usual.
import { registerHooks } from 'node:module';
import { extname } from 'node:path';

const facade = 'http-without-websocket';
let registered = false;

/** Call before anything imports node:http as an ES module. */
export function importHttpWithoutWebSocket(): void {
  if (registered) return;
  registered = true;
  // The facade carries this module's extension: .ts run from source, .js once built.
  const url = new URL(`./${facade}${extname(import.meta.url)}`, import.meta.url).href;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if ((specifier === 'node:http' || specifier === 'http') && context.parentURL !== url) return { url, shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}

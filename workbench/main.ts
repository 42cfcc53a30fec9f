#!/usr/bin/env -S node --optimize-for-size
// `berth dev`, the workbench's entry (`npm start`): Berth against the configured cluster, or against an
// embedded local cluster it starts when none is configured. It depends on Berth (src/), never the
// reverse: Berth's image and dist/ hold none of this folder. The process is set up as src/main.ts sets
// up Berth's, before the command's modules load.
import { loadKubeConfigWithoutApiClients } from '../src/cli/without-api-clients.ts';

loadKubeConfigWithoutApiClients();
await import('./berth-dev.ts');

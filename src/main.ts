#!/usr/bin/env -S node --optimize-for-size
// Berth's entry point. Sets up the process before the command's modules load, then runs it.
import { loadKubeConfigWithoutApiClients } from './cli/without-api-clients.ts';

loadKubeConfigWithoutApiClients();
await import('./cli/berth.ts');

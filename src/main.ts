#!/usr/bin/env node
// Berth's entry point: parses the command line and wires the parts together, nothing else.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { startDevCluster } from './cli/dev.ts';

const usage = `usage: berth <command> [options]

commands:
  dev     run Berth against the configured cluster, or an embedded local control plane when none is
          configured (data in --data-dir, default .berth/dev)

options:
  --data-dir <dir>   where the embedded control plane keeps its data
  -h, --help         this text
`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'data-dir': { type: 'string', default: '.berth/dev' },
    help: { type: 'boolean', short: 'h' },
  },
});

const logger = pino({ name: 'berth', level: process.env.LOG_LEVEL ?? 'info' });
const command = positionals[0] ?? 'dev';

if (values.help) {
  process.stdout.write(usage);
} else if (command === 'dev') {
  const dev = await startDevCluster({
    dataDir: values['data-dir'],
    crdsDir: resolve(import.meta.dirname, '../crds'),
    logger,
  });
  const stop = async (signal: string) => {
    logger.info({ signal }, 'stopping');
    await dev.controlPlane?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (dev.kubeconfigPath) {
    process.stdout.write(
      [
        '',
        'Berth is running against an embedded control plane.',
        `  kubeconfig: ${dev.kubeconfigPath}`,
        `  try:        kubectl --kubeconfig ${dev.kubeconfigPath} get namespaces`,
        '  stop:       Ctrl-C (stops every process Berth started)',
        '',
      ].join('\n'),
    );
  }
  setInterval(() => {}, 1 << 30);
} else {
  process.stderr.write(`unknown command: ${command}\n\n${usage}`);
  process.exit(2);
}

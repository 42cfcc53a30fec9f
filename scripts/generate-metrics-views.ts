// Writes the chart's Grafana dashboard and Prometheus alerting rules (charts/berth/files/) from
// src/api/metrics-views.ts. Never edited by hand: change the views, run `npm run generate`, commit both.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { metricsViewFiles } from '../src/api/metrics-views.ts';

const dir = resolve(import.meta.dirname, '../charts/berth');
for (const [file, text] of Object.entries(metricsViewFiles())) writeFileSync(resolve(dir, file), text);
console.error(
  `wrote ${Object.keys(metricsViewFiles())
    .map((file) => `charts/berth/${file}`)
    .join(', ')}`,
);

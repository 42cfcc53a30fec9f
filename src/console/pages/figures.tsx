// A deployment's figures over time (uPlot charts): requests and errors per second and p50 and p99
// latency as the Gateway measured them, its pods' CPU and memory as the kubelets did, with a line where
// each revision was made. What has no history here is said, not drawn.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { messageOf, type Client, type DeploymentMetricsRange } from '../api.ts';
import { Alert, when } from '../parts.tsx';

const spans = { '1 hour': 3_600, '6 hours': 21_600, '24 hours': 86_400 } as const;
type Span = keyof typeof spans;

/** About 120 points over the span, on whole multiples of 15 s. */
function stepFor(seconds: number): number {
  return Math.max(15, Math.ceil(seconds / 120 / 15) * 15);
}

export function Figures({ client, id }: { client: Client; id: string }) {
  const [span, setSpan] = useState<Span>('1 hour');
  const [range, setRange] = useState<DeploymentMetricsRange>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let stopped = false;
    const end = new Date();
    const seconds = spans[span];
    client.metricsRange(id, { start: new Date(end.getTime() - seconds * 1000), end, stepSeconds: stepFor(seconds) }).then(
      (read) => !stopped && (setRange(read), setError(undefined)),
      (failure: unknown) => !stopped && setError(messageOf(failure)),
    );
    return () => {
      stopped = true;
    };
  }, [client, id, span]);
  return (
    <>
      <div class="heading">
        <h2>Requests</h2>
        <select name="figures-span" aria-label="Time span" value={span} onChange={(e) => setSpan(e.currentTarget.value as Span)}>
          {Object.keys(spans).map((name) => (
            <option value={name}>last {name}</option>
          ))}
        </select>
      </div>
      <Alert text={error} before="The figures could not be read: " />
      {range ? <Charts range={range} /> : error ? null : <p class="hint">Loading figures…</p>}
    </>
  );
}

type ChartSpec = { title: string; lines: Line[] };

/** What is charted, in groups drawn when their first series was read: the requests, the pods, an agent
 * server's runs (a group the answer names nowhere, the runs of an app with no queue, is left out). */
const groups: { name: string; charts: ChartSpec[] }[] = [
  {
    name: 'request',
    charts: [
      {
        title: 'per second',
        lines: [
          ['requests', 'requests_per_second', '#2456c7'],
          ['5xx', 'errors_per_second', '#b3261e'],
        ],
      },
      {
        title: 'latency (s)',
        lines: [
          ['p50', 'latency_p50_seconds', '#1f7a3a'],
          ['p99', 'latency_p99_seconds', '#8a5a00'],
        ],
      },
    ],
  },
  {
    name: 'CPU and memory',
    charts: [
      { title: 'CPU (cores)', lines: [['cpu', 'cpu_cores', '#6b3fa0']] },
      { title: 'memory (MiB)', lines: [['working set', 'memory_bytes', '#0f6e75', 1 / 2 ** 20]] },
    ],
  },
  {
    name: 'run',
    charts: [
      {
        title: 'runs',
        lines: [
          ['pending', 'pending_runs', '#8a5a00'],
          ['running', 'active_runs', '#2456c7'],
        ],
      },
    ],
  },
];
const charted = new Set(groups.flatMap((group) => group.charts.flatMap((chart) => chart.lines.map(([, metric]) => metric))));

function Charts({ range }: { range: DeploymentMetricsRange }) {
  return (
    <>
      {groups.map((group) => {
        const first = group.charts[0]!.lines[0]![1];
        if (range.series.some((s) => s.metric === first))
          return (
            <div class="charts">
              {group.charts.map((chart) => (
                <Chart range={range} title={chart.title} lines={chart.lines} />
              ))}
            </div>
          );
        const unavailable = range.unavailable.find((entry) => entry.metric === first);
        if (!unavailable) return null;
        return (
          <p class="empty">
            No {group.name} figures: {unavailable.reason}.
          </p>
        );
      })}
      {range.revisions.length > 0 ? (
        <p class="hint">
          Revisions in this range: {range.revisions.map((revision) => `${revision.name} (${when(revision.created_at)})`).join(', ')}
        </p>
      ) : null}
      {range.unavailable.some((entry) => !charted.has(entry.metric)) ? (
        <ul class="hint unavailable">
          {range.unavailable
            .filter((entry) => !charted.has(entry.metric))
            .map((entry) => (
              <li>
                Not charted, {entry.metric.replaceAll('_', ' ')}: {entry.reason}.
              </li>
            ))}
        </ul>
      ) : null}
    </>
  );
}

/** A series drawn: its label, its metric, its colour, and what its values are multiplied by (a unit). */
type Line = [label: string, metric: DeploymentMetricsRange['series'][number]['metric'], color: string, scale?: number];

/** One uPlot chart of some series, with a vertical line where each revision was made. */
function Chart({ range, title, lines }: { range: DeploymentMetricsRange } & ChartSpec) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const byMetric = new Map(range.series.map((s) => [s.metric, s.points]));
    const times = (byMetric.get(lines[0]![1]) ?? []).map(([at]) => at);
    const data: uPlot.AlignedData = [
      times,
      ...lines.map(([, metric, , scale = 1]) => (byMetric.get(metric) ?? []).map(([, value]) => (value === null ? null : value * scale))),
    ];
    const markers = range.revisions.map((revision) => Date.parse(revision.created_at) / 1000);
    const chart = new uPlot(
      {
        title,
        width: Math.max(320, element.clientWidth),
        height: 220,
        series: [{}, ...lines.map(([label, , stroke]) => ({ label, stroke, width: 1.5 }))],
        hooks: { draw: [(u) => drawMarkers(u, markers)] },
      },
      data,
      element,
    );
    return () => chart.destroy();
  }, [range, title]);
  return <div class="chart" ref={host} data-chart={title} />;
}

function drawMarkers(u: uPlot, markers: number[]): void {
  const { ctx, bbox } = u;
  ctx.save();
  ctx.strokeStyle = '#888';
  ctx.setLineDash([4, 4]);
  for (const at of markers) {
    const x = u.valToPos(at, 'x', true);
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
  }
  ctx.restore();
}

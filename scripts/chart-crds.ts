// How a generated CRD from crds/ becomes a template of the Helm chart: the same object, annotated
// helm.sh/resource-policy: keep (uninstalling a release must not delete every Berth object with its
// CRD), behind the `crds.install` value. Helm installs a chart's crds/ folder once and never upgrades
// it, which is why the CRDs are templates. Pure: text in, text out.
import { parseDocument } from 'yaml';

export const chartCrdsDir = 'charts/berth/templates/crds';
export const keepAnnotation = 'helm.sh/resource-policy';

/** The chart template for one CRD file's text. */
export function renderChartCrd(sourceFile: string, crdText: string): string {
  const document = parseDocument(crdText);
  if (document.errors.length > 0) throw new Error(`${sourceFile}: ${document.errors[0]!.message}`);
  if (document.get('kind') !== 'CustomResourceDefinition') throw new Error(`${sourceFile}: not a CustomResourceDefinition`);
  document.setIn(['metadata', 'annotations', keepAnnotation], 'keep');
  const body = escapeTemplateActions(document.toString({ lineWidth: 0 }).trimEnd());
  return [
    `{{- /* Generated from crds/${sourceFile} by scripts/sync-chart-crds.ts: edit the zod schemas, never this file. */ -}}`,
    '{{- if .Values.crds.install }}',
    body,
    '{{- end }}',
    '',
  ].join('\n');
}

/** The chart file name for a CRD source file name. */
export function chartCrdFileName(sourceFile: string): string {
  return sourceFile.replace(/\.ya?ml$/, '.yaml');
}

// A description that happens to contain "{{" must stay text, not become a template action.
function escapeTemplateActions(text: string): string {
  return text.replaceAll('{{', '{{ "{{" }}');
}

export interface CrdDrift {
  missing: string[];
  stale: string[];
  changed: string[];
}

/** Compares what the chart should hold (rendered from crds/) with what it holds. */
export function compareChartCrds(expected: Map<string, string>, actual: Map<string, string>): CrdDrift {
  const missing = [...expected.keys()].filter((name) => !actual.has(name)).sort();
  const stale = [...actual.keys()].filter((name) => !expected.has(name)).sort();
  const changed = [...expected.keys()].filter((name) => actual.has(name) && actual.get(name) !== expected.get(name)).sort();
  return { missing, stale, changed };
}

// The canary's and the previews' settings as the console's forms hold them (text and choices) and as
// the API takes them (source_config.canary, source_config.previews). The API judges the values: a form
// sends what was typed, and the API's refusal is what the owner reads.
import type { Deployment, DeploymentPatch } from './api.ts';

type Previews = NonNullable<Deployment['source_config']['previews']>;
export type PreviewTrigger = NonNullable<Previews['trigger']>;
export type PreviewForkMode = NonNullable<Previews['forks']>;

/** Each choice of previews.trigger, as the form names it (every value the API takes, checked by type). */
export const previewTriggerChoices: Record<PreviewTrigger, string> = {
  all: 'Every open request but drafts',
  label: 'Requests that carry the label',
  off: 'None',
};

/** Each choice of previews.forks, as the form names it. */
export const previewForkChoices: Record<PreviewForkMode, string> = {
  label: 'Those a maintainer labels',
  all: 'All of them',
  off: 'None',
};

export interface CanaryForm {
  /** Percents, separated by commas or spaces: "20, 50". Empty: no canary. */
  steps: string;
  /** Seconds each step lasts before its analysis. Empty: the API's default. */
  pauseSeconds: string;
}

/** The canary form as the deployment stands. */
export function canaryForm(deployment: Deployment): CanaryForm {
  const canary = deployment.source_config.canary;
  return { steps: (canary?.steps ?? []).join(', '), pauseSeconds: canary?.pause_seconds === undefined ? '' : String(canary.pause_seconds) };
}

/** The PATCH a canary form asks for: its steps (none removes the canary) and its pause when given. */
export function canaryPatch(form: CanaryForm): DeploymentPatch {
  const steps = form.steps
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  const pause = form.pauseSeconds.trim();
  return { source_config: { canary: { steps, ...(pause && steps.length > 0 ? { pause_seconds: Number(pause) } : {}) } } };
}

export interface PreviewsForm {
  trigger: PreviewTrigger;
  label: string;
  forks: PreviewForkMode;
}

/** The previews form as the deployment stands (the API's defaults where it says nothing). */
export function previewsForm(deployment: Deployment): PreviewsForm {
  const previews = deployment.source_config.previews;
  return { trigger: previews?.trigger ?? (previews ? 'all' : 'off'), label: previews?.label ?? '', forks: previews?.forks ?? 'label' };
}

/** The PATCH a previews form asks for: the label only where the trigger reads it. */
export function previewsPatch(form: PreviewsForm): DeploymentPatch {
  const label = form.label.trim();
  return { source_config: { previews: { trigger: form.trigger, forks: form.forks, ...(form.trigger === 'label' ? { label } : {}) } } };
}

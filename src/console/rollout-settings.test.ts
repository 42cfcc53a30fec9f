import { describe, expect, it } from 'vitest';
import { deploymentPatchSchema } from '../facade/wire-schemas.ts';
import type { Deployment } from './api.ts';
import { canaryForm, canaryPatch, previewsForm, previewsPatch } from './rollout-settings.ts';

const deployment = (sourceConfig: Record<string, unknown>) => ({ source_config: sourceConfig }) as unknown as Deployment;

describe('the canary form', () => {
  it('sends typed steps and pause as the API takes them, and reads them back as typed', () => {
    const patch = canaryPatch({ steps: ' 20, 50 ', pauseSeconds: '30' });
    expect(patch).toEqual({ source_config: { canary: { steps: [20, 50], pause_seconds: 30 } } });
    expect(deploymentPatchSchema.safeParse(patch).success).toBe(true);
    expect(canaryForm(deployment({ canary: { steps: [20, 50], pause_seconds: 30 } }))).toEqual({ steps: '20, 50', pauseSeconds: '30' });
  });

  it('removes the canary with no steps, and leaves what is not a number for the API to refuse', () => {
    expect(canaryPatch({ steps: '', pauseSeconds: '30' })).toEqual({ source_config: { canary: { steps: [] } } });
    expect(deploymentPatchSchema.safeParse(canaryPatch({ steps: '20, half', pauseSeconds: '' })).success).toBe(false);
    expect(canaryForm(deployment({}))).toEqual({ steps: '', pauseSeconds: '' });
  });
});

describe('the previews form', () => {
  it('sends the trigger and forks, and the label only where the trigger reads it', () => {
    const labelled = previewsPatch({ trigger: 'label', label: ' preview ', forks: 'off' });
    expect(labelled).toEqual({ source_config: { previews: { trigger: 'label', forks: 'off', label: 'preview' } } });
    expect(deploymentPatchSchema.safeParse(labelled).success).toBe(true);
    expect(previewsPatch({ trigger: 'all', label: 'stale', forks: 'label' })).toEqual({
      source_config: { previews: { trigger: 'all', forks: 'label' } },
    });
  });

  it("reads a deployment's previews with the API's defaults, and none as off", () => {
    expect(previewsForm(deployment({}))).toEqual({ trigger: 'off', label: '', forks: 'label' });
    expect(previewsForm(deployment({ previews: {} }))).toEqual({ trigger: 'all', label: '', forks: 'label' });
    expect(previewsForm(deployment({ previews: { trigger: 'label', label: 'go', forks: 'all' } }))).toEqual({
      trigger: 'label',
      label: 'go',
      forks: 'all',
    });
  });
});

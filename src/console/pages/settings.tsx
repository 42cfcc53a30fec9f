// What a deployment's owner changes in place (none of it makes a revision but secrets): its scale, its
// custom URL, its canary's steps, its previews (a code-host deployment's), and its secrets, whose values
// are written and never shown (a value read back is the API's mask, which keeps the stored one when sent
// again). The API's own refusal shows beside each form.
import { useState } from 'preact/hooks';
import { messageOf, type Client, type Deployment, type DeploymentPatch } from '../api.ts';
import { Alert } from '../parts.tsx';
import {
  canaryForm,
  canaryPatch,
  previewForkChoices,
  previewsForm,
  previewsPatch,
  previewTriggerChoices,
  type PreviewForkMode,
  type PreviewTrigger,
} from '../rollout-settings.ts';

/** A form's state: saving, saved, or the API's words. */
function useSave(client: Client, id: string) {
  const [said, setSaid] = useState<{ error?: string; saved?: boolean }>({});
  const save = async (changes: DeploymentPatch) => {
    setSaid({});
    try {
      await client.patch(id, changes);
      setSaid({ saved: true });
    } catch (failure) {
      setSaid({ error: messageOf(failure) });
    }
  };
  const outcome = said.saved ? <p class="hint">Saved.</p> : <Alert text={said.error} />;
  return { save, outcome };
}

/** A form whose values are read from the deployment, saved as the PATCH `toPatch` makes of them. */
function useSettingForm<F>(
  client: Client,
  deployment: Deployment,
  read: (deployment: Deployment) => F,
  toPatch: (form: F) => DeploymentPatch,
) {
  const [form, setForm] = useState(() => read(deployment));
  const { save, outcome } = useSave(client, deployment.id);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void save(toPatch(form));
  };
  return { form, setForm, submit, outcome };
}

export function Settings({ client, deployment }: { client: Client; deployment: Deployment }) {
  return (
    <>
      <h2>Settings</h2>
      <Scale client={client} deployment={deployment} />
      <CustomUrl client={client} deployment={deployment} />
      <Canary client={client} deployment={deployment} />
      {deployment.source === 'codehost' ? <Previews client={client} deployment={deployment} /> : null}
      <Secrets client={client} deployment={deployment} />
    </>
  );
}

function Scale({ client, deployment }: { client: Client; deployment: Deployment }) {
  const resources = deployment.source_config.resource_spec;
  const [min, setMin] = useState(String(resources?.min_scale ?? 1));
  const [max, setMax] = useState(String(resources?.max_scale ?? 1));
  const { save, outcome } = useSave(client, deployment.id);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void save({ source_config: { resource_spec: { min_scale: Number(min), max_scale: Number(max) } } });
  };
  return (
    <form class="settings" data-setting="scale" onSubmit={submit}>
      <label>
        Fewest replicas
        <input name="min-scale" type="number" min="0" value={min} onInput={(e) => setMin(e.currentTarget.value)} />
      </label>
      <label>
        Most replicas
        <input name="max-scale" type="number" min="0" value={max} onInput={(e) => setMax(e.currentTarget.value)} />
      </label>
      <button type="submit">Save scale</button>
      {outcome}
    </form>
  );
}

function CustomUrl({ client, deployment }: { client: Client; deployment: Deployment }) {
  const [url, setUrl] = useState(deployment.source_config.custom_url ?? '');
  const { save, outcome } = useSave(client, deployment.id);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void save({ source_config: { custom_url: url.trim() } });
  };
  return (
    <form class="settings" data-setting="custom-url" onSubmit={submit}>
      <label>
        Custom URL <span class="hint">(empty: none)</span>
        <input
          name="custom-url"
          autocomplete="off"
          placeholder="https://shop.example.com"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Save URL</button>
      {outcome}
    </form>
  );
}

function Canary({ client, deployment }: { client: Client; deployment: Deployment }) {
  const { form, setForm, submit, outcome } = useSettingForm(client, deployment, canaryForm, canaryPatch);
  return (
    <form class="settings" data-setting="canary" onSubmit={submit}>
      <label>
        Canary steps <span class="hint">(percents, as 20, 50; empty: none)</span>
        <input
          name="canary-steps"
          autocomplete="off"
          value={form.steps}
          onInput={(e) => setForm({ ...form, steps: e.currentTarget.value })}
        />
      </label>
      <label>
        Seconds per step
        <input
          name="canary-pause"
          type="number"
          min="1"
          value={form.pauseSeconds}
          onInput={(e) => setForm({ ...form, pauseSeconds: e.currentTarget.value })}
        />
      </label>
      <button type="submit">Save canary</button>
      {outcome}
    </form>
  );
}

function Previews({ client, deployment }: { client: Client; deployment: Deployment }) {
  const { form, setForm, submit, outcome } = useSettingForm(client, deployment, previewsForm, previewsPatch);
  return (
    <form class="settings" data-setting="previews" onSubmit={submit}>
      <label>
        Previews of pull requests
        <select
          name="previews-trigger"
          value={form.trigger}
          onChange={(e) => setForm({ ...form, trigger: e.currentTarget.value as PreviewTrigger })}
        >
          {Object.entries(previewTriggerChoices).map(([value, text]) => (
            <option value={value}>{text}</option>
          ))}
        </select>
      </label>
      {form.trigger === 'label' ? (
        <label>
          Label
          <input
            name="previews-label"
            autocomplete="off"
            value={form.label}
            onInput={(e) => setForm({ ...form, label: e.currentTarget.value })}
          />
        </label>
      ) : null}
      <label>
        Requests from forks
        <select
          name="previews-forks"
          value={form.forks}
          onChange={(e) => setForm({ ...form, forks: e.currentTarget.value as PreviewForkMode })}
        >
          {Object.entries(previewForkChoices).map(([value, text]) => (
            <option value={value}>{text}</option>
          ))}
        </select>
      </label>
      <button type="submit">Save previews</button>
      {outcome}
    </form>
  );
}

function Secrets({ client, deployment }: { client: Client; deployment: Deployment }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const { save, outcome } = useSave(client, deployment.id);
  // Sent back as read: the mask keeps each stored value.
  const kept = deployment.secrets.map((secret) => ({ name: secret.name, value: secret.value }));
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void save({ secrets: [...kept.filter((secret) => secret.name !== name.trim()), { name: name.trim(), value }] }).then(() =>
      setValue(''),
    );
  };
  const remove = (gone: string) => void save({ secrets: kept.filter((secret) => secret.name !== gone) });
  return (
    <>
      <ul class="secrets">
        {kept.map((secret) => (
          <li data-secret={secret.name}>
            <code>{secret.name}</code>{' '}
            <button type="button" class="quiet" onClick={() => remove(secret.name)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form class="settings" data-setting="secret" onSubmit={submit}>
        <label>
          Secret name
          <input name="secret-name" required autocomplete="off" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Value <span class="hint">(written, never shown)</span>
          <input
            name="secret-value"
            type="password"
            required
            autocomplete="off"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Set secret</button>
        <span class="hint">A secret's change makes a new revision.</span>
        {outcome}
      </form>
    </>
  );
}

// Small pieces the pages share: a status badge, a link to an app's URL, a name-typed confirmation.
import { useState } from 'preact/hooks';
import { messageOf, type Deployment, type Revision } from './api.ts';

type Phase = Deployment['status'] | Revision['status'];

/** How each phase reads at a glance; every phase the API has must be here (a new one fails tsc). */
const tone: Record<Phase, 'good' | 'busy' | 'bad' | 'quiet'> = {
  READY: 'good',
  DEPLOYED: 'good',
  UNUSED: 'quiet',
  UNKNOWN: 'quiet',
  SKIPPED: 'quiet',
  AWAITING_DATABASE: 'busy',
  AWAITING_DELETE: 'busy',
  CREATING: 'busy',
  QUEUED: 'busy',
  AWAITING_BUILD: 'busy',
  BUILDING: 'busy',
  AWAITING_DEPLOY: 'busy',
  DEPLOYING: 'busy',
  CREATE_FAILED: 'bad',
  BUILD_FAILED: 'bad',
  DEPLOY_FAILED: 'bad',
  INTERRUPTED: 'bad',
};

export function Badge({ phase }: { phase: Phase }) {
  return <span class={`badge ${tone[phase]}`}>{phase.replaceAll('_', ' ').toLowerCase()}</span>;
}

/** Whether a browser should follow this address from the console: http or https only. */
export function isWebUrl(url: string): boolean {
  return URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol);
}

/** `text` as a link to `url` in a new tab when the console should follow it, as text otherwise. */
export function OutLink({ url, text }: { url: string | null; text: string }) {
  return url && isWebUrl(url) ? (
    <a href={url} target="_blank" rel="noopener noreferrer">
      {text}
    </a>
  ) : (
    <span>{text}</span>
  );
}

/** The app's URL as a link, when it is one a browser should follow. */
export function AppLink({ url }: { url: string | null }) {
  return url ? <OutLink url={url} text={url} /> : <span class="hint">no URL yet</span>;
}

export function tierOf(deployment: Deployment): string {
  return deployment.source_config.deployment_type ?? 'dev';
}

/** A destructive action behind typing the thing's name. */
export function ConfirmByName({ name, action, onConfirm }: { name: string; action: string; onConfirm: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string>();
  if (!open)
    return (
      <button type="button" class="danger" data-action={action.toLowerCase()} onClick={() => setOpen(true)}>
        {action}
      </button>
    );
  const confirm = async (event: SubmitEvent) => {
    event.preventDefault();
    try {
      await onConfirm();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <form class="confirm" onSubmit={confirm}>
      <label>
        Type <strong>{name}</strong> to {action.toLowerCase()}
        <input name="confirm-name" autocomplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
      </label>
      <button type="submit" class="danger" disabled={typed !== name}>
        {action}
      </button>
      <button type="button" class="quiet" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <Alert text={error} />
    </form>
  );
}

/** An error said in place (nothing when there is none), read out by screen readers as it comes. */
export function Alert({ text, before = '' }: { text: string | undefined; before?: string }) {
  return text ? (
    <p class="error" role="alert">
      {before}
      {text}
    </p>
  ) : null;
}

export function when(iso: string): string {
  return new Date(iso).toLocaleString();
}

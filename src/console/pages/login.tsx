// The key is typed here once and kept for the tab (session.ts). The form never navigates: its fields
// can never reach a URL.
import { useState } from 'preact/hooks';
import type { Session } from '../session.ts';
import { Alert } from '../parts.tsx';

export function Login({ onSignIn, refusal }: { onSignIn: (session: Session) => void; refusal: string | undefined }) {
  const [apiKey, setApiKey] = useState('');
  const [tenantId, setTenantId] = useState('');
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    if (apiKey.trim()) onSignIn(tenantId.trim() ? { apiKey: apiKey.trim(), tenantId: tenantId.trim() } : { apiKey: apiKey.trim() });
  };
  return (
    <main class="login">
      <h1>Berth</h1>
      <form onSubmit={submit}>
        <label>
          API key
          <input
            name="api-key"
            type="password"
            autocomplete="off"
            required
            value={apiKey}
            onInput={(e) => setApiKey(e.currentTarget.value)}
          />
        </label>
        <label>
          Organization <span class="hint">(only for a key that reaches several)</span>
          <input name="tenant-id" autocomplete="off" value={tenantId} onInput={(e) => setTenantId(e.currentTarget.value)} />
        </label>
        <Alert text={refusal} />
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">The key is kept for this tab only, never in a cookie or a URL.</p>
    </main>
  );
}

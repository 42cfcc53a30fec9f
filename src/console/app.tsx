// The console: a login form until a key is given (and again when the API refuses it, with its words),
// then the page the address names.
import { useMemo, useState } from 'preact/hooks';
import { createClient } from './api.ts';
import { Login } from './pages/login.tsx';
import { DeploymentsPage } from './pages/deployments.tsx';
import { DeploymentPage } from './pages/deployment.tsx';
import { consoleBase, onLink, useRoute } from './router.ts';
import { clearSession, readSession, saveSession, type Session } from './session.ts';

export function App() {
  const [session, setSession] = useState<Session | undefined>(readSession);
  const [refusal, setRefusal] = useState<string>();
  const route = useRoute();
  const signIn = (next: Session) => {
    saveSession(next);
    setRefusal(undefined);
    setSession(next);
  };
  // One client per key: the pages' live lists follow it, and open their watches again only for a new one.
  const client = useMemo(
    () =>
      session &&
      createClient(session, (message) => {
        clearSession();
        setRefusal(message);
        setSession(undefined);
      }),
    [session],
  );
  if (!session || !client) return <Login onSignIn={signIn} refusal={refusal} />;
  const signOut = () => {
    clearSession();
    setSession(undefined);
  };
  return (
    <>
      <header class="bar">
        <a class="brand" href={consoleBase} onClick={onLink}>
          Berth
        </a>
        <button type="button" class="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>{route.page === 'deployment' ? <DeploymentPage client={client} id={route.id} /> : <DeploymentsPage client={client} />}</main>
    </>
  );
}

// One deployment, as it changes: its URL, scale, conditions with their reasons, canary, its revisions
// as a timeline with what changed, redeploy (roll back) and interrupt, its requests over time, a
// revision's logs, its events, its settings; delete after typing its name.
import { messageOf, type Client, type Deployment, type Revision } from '../api.ts';
import { useDeployment } from '../live.ts';
import { consoleBase, navigate, onLink } from '../router.ts';
import { Alert, AppLink, Badge, ConfirmByName, tierOf, when } from '../parts.tsx';
import { useState } from 'preact/hooks';
import { Events, Logs } from './feeds.tsx';
import { Figures } from './figures.tsx';
import { Settings } from './settings.tsx';
import { revisionChanges } from '../revision-changes.ts';

export function DeploymentPage({ client, id }: { client: Client; id: string }) {
  const loaded = useDeployment(client, id);
  const back = (
    <a href={consoleBase} onClick={onLink}>
      ← All deployments
    </a>
  );
  if (loaded.state === 'loading') return <p class="hint">Loading…</p>;
  if (loaded.state === 'failed')
    return (
      <section>
        {back}
        <Alert text={loaded.message} before="The deployment could not be read: " />
      </section>
    );
  if (loaded.value === 'gone')
    return (
      <section>
        {back}
        <p class="empty">This deployment was deleted.</p>
      </section>
    );
  const { deployment, revisions } = loaded.value;
  return (
    <section>
      {back}
      <div class="heading">
        <h1>{deployment.name}</h1>
        <Badge phase={deployment.status} />
      </div>
      <Summary deployment={deployment} />
      <Conditions deployment={deployment} />
      {deployment.canary ? <Canary canary={deployment.canary} /> : null}
      <Timeline client={client} deployment={deployment} revisions={revisions} />
      <Figures client={client} id={deployment.id} />
      <Logs client={client} id={deployment.id} revisions={revisions} active={deployment.active_revision_id} />
      <Events client={client} id={deployment.id} />
      <Settings client={client} deployment={deployment} />
      <h2>Delete</h2>
      <ConfirmByName
        name={deployment.name}
        action="Delete"
        onConfirm={async () => {
          await client.remove(deployment.id);
          navigate(consoleBase);
        }}
      />
    </section>
  );
}

function Summary({ deployment }: { deployment: Deployment }) {
  const resources = deployment.source_config.resource_spec;
  return (
    <dl class="summary">
      <dt>URL</dt>
      <dd>
        <AppLink url={deployment.url} />
      </dd>
      <dt>Tier</dt>
      <dd>{tierOf(deployment)}</dd>
      <dt>Scale</dt>
      <dd>
        {resources?.min_scale ?? 1} to {resources?.max_scale ?? 1} replicas
      </dd>
      <dt>Source</dt>
      <dd>{deployment.source}</dd>
      <dt>Created</dt>
      <dd>{when(deployment.created_at)}</dd>
    </dl>
  );
}

function Conditions({ deployment }: { deployment: Deployment }) {
  if (deployment.conditions.length === 0) return <p class="hint">The controller has not looked at this deployment yet.</p>;
  return (
    <>
      <h2>Conditions</h2>
      <table class="conditions">
        <thead>
          <tr>
            <th>Type</th>
            <th>Status</th>
            <th>Reason</th>
            <th>Message</th>
            <th>Since</th>
          </tr>
        </thead>
        <tbody>
          {deployment.conditions.map((condition) => (
            <tr data-condition={condition.type}>
              <td>{condition.type}</td>
              <td>{condition.status}</td>
              <td>{condition.reason}</td>
              <td>{condition.message}</td>
              <td>{when(condition.last_transition_time)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Canary({ canary }: { canary: NonNullable<Deployment['canary']> }) {
  return (
    <>
      <h2>Canary</h2>
      <p>
        {canary.phase}: step {canary.step} of {canary.steps}, {canary.weight}% of requests, since {when(canary.step_started_at)}.
        {canary.message ? ` ${canary.message}` : ''}
      </p>
    </>
  );
}

/** Revisions, newest first, each with what changed from the one before it. */
function Timeline({ client, deployment, revisions }: { client: Client; deployment: Deployment; revisions: Revision[] }) {
  const [error, setError] = useState<string>();
  const act = (call: () => Promise<unknown>) => async () => {
    setError(undefined);
    try {
      await call();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const ordered = [...revisions].sort((a, b) => b.created_at.localeCompare(a.created_at));
  return (
    <>
      <h2>Revisions</h2>
      <Alert text={error} />
      {ordered.length === 0 ? <p class="empty">No revision yet.</p> : null}
      <ol class="timeline">
        {ordered.map((revision, index) => {
          const active = revision.id === deployment.active_revision_id;
          const changes = revisionChanges(ordered[index + 1], revision);
          return (
            <li data-revision={revision.name}>
              <div class="heading">
                <strong>{revision.name}</strong>
                <Badge phase={revision.status} />
                {active ? <span class="badge good">serving</span> : null}
                <span class="hint">{when(revision.created_at)}</span>
              </div>
              {revision.status_message ? <p>{revision.status_message}</p> : null}
              {changes.length > 0 ? (
                <ul class="changes">
                  {changes.map((change) => (
                    <li>{change}</li>
                  ))}
                </ul>
              ) : null}
              <div class="actions">
                {!active && revision.status === 'DEPLOYED' ? (
                  <button type="button" onClick={act(() => client.redeploy(deployment.id, revision.id))}>
                    Roll back to this
                  </button>
                ) : null}
                {['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING'].includes(revision.status) ? (
                  <button type="button" class="danger" onClick={act(() => client.interrupt(deployment.id, revision.id))}>
                    Interrupt
                  </button>
                ) : null}
              </div>
            </li>
          );
        })}
      </ol>
    </>
  );
}

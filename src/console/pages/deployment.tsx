// One deployment, as it changes: its URL, scale, conditions with their reasons, canary, its revisions
// as a timeline with what changed, redeploy (roll back) and interrupt, its previews with their pull
// requests (or, on a preview, the request it previews), its requests over time, a revision's logs, its
// events, its settings; delete after typing its name.
import { messageOf, type Client, type Deployment, type Revision } from '../api.ts';
import { useDeployment, useDeployments } from '../live.ts';
import { previewsOf } from '../previews.ts';
import { consoleBase, deploymentPath, navigate, onLink } from '../router.ts';
import { Alert, AppLink, Badge, ConfirmByName, OutLink, tierOf, when } from '../parts.tsx';
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
      {deployment.source_config.previews ? <Previews client={client} parent={deployment.name} /> : null}
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
      {deployment.preview_of ? (
        <>
          <dt>Preview of</dt>
          <dd>
            {deployment.preview_of.deployment_name}, <PullRequest of={deployment.preview_of} />
          </dd>
        </>
      ) : null}
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
              <td class="message">{condition.message}</td>
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

/** The pull requests with a preview, as they come and go; their previews' status and URL. */
function Previews({ client, parent }: { client: Client; parent: string }) {
  const loaded = useDeployments(client);
  return (
    <>
      <h2>Previews</h2>
      {loaded.state === 'loading' ? <p class="hint">Loading…</p> : null}
      {loaded.state === 'failed' ? <Alert text={loaded.message} before="The previews could not be read: " /> : null}
      {loaded.state === 'loaded' ? <PreviewTable previews={previewsOf(loaded.value, parent)} /> : null}
    </>
  );
}

function PreviewTable({ previews }: { previews: ReturnType<typeof previewsOf> }) {
  if (previews.length === 0) return <p class="empty">No pull request has a preview.</p>;
  return (
    <table class="previews">
      <thead>
        <tr>
          <th>Pull request</th>
          <th>Preview</th>
          <th>Status</th>
          <th>URL</th>
        </tr>
      </thead>
      <tbody>
        {previews.map((preview) => (
          <tr data-preview={preview.name}>
            <td>
              <PullRequest of={preview.preview_of} />
              {preview.preview_of.from_fork ? <span class="badge quiet">fork</span> : null}
            </td>
            <td>
              <a href={deploymentPath(preview.id)} onClick={onLink}>
                {preview.name}
              </a>
            </td>
            <td>
              <Badge phase={preview.status} />
            </td>
            <td>
              <AppLink url={preview.url} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A pull request by its number, a link to its page when the API gives one. */
function PullRequest({ of }: { of: NonNullable<Deployment['preview_of']> }) {
  return <OutLink url={of.pull_request_url} text={`pull request #${of.pull_request}`} />;
}

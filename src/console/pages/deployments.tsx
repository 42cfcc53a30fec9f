// Every deployment of the organization, as it changes: status, URL, active revision, tier, preview
// and canary badges; a search and a status filter; create one from an image.
import { useState } from 'preact/hooks';
import { ApiError, type Client, type Deployment } from '../api.ts';
import { useDeployments } from '../live.ts';
import { deploymentPath, navigate, onLink } from '../router.ts';
import { Alert, AppLink, Badge, tierOf } from '../parts.tsx';

export function DeploymentsPage({ client }: { client: Client }) {
  const loaded = useDeployments(client);
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  if (loaded.state === 'loading') return <p class="hint">Loading deployments…</p>;
  if (loaded.state === 'failed') return <Alert text={loaded.message} before="The deployments could not be read: " />;
  const shown = loaded.value
    .filter((d) => d.name.includes(search.trim()) && (!status || d.status === status))
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    <section>
      <div class="heading">
        <h1>Deployments</h1>
        <CreateForm client={client} />
      </div>
      <div class="filters">
        <input
          name="search"
          type="search"
          aria-label="Search deployments by name"
          placeholder="Search by name"
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <select name="status" aria-label="Status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">Any status</option>
          {[...new Set(loaded.value.map((d) => d.status))].sort().map((phase) => (
            <option value={phase}>{phase.toLowerCase()}</option>
          ))}
        </select>
      </div>
      {loaded.value.length === 0 ? (
        <p class="empty">No deployments yet: create one from an image above, or with the API or kubectl.</p>
      ) : shown.length === 0 ? (
        <p class="empty">No deployment matches.</p>
      ) : (
        <table class="deployments">
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Latest revision</th>
              <th>Tier</th>
              <th>URL</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((deployment) => (
              <Row deployment={deployment} key={deployment.id} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Row({ deployment }: { deployment: Deployment }) {
  return (
    <tr data-deployment={deployment.name}>
      <td>
        <a href={deploymentPath(deployment.id)} onClick={onLink}>
          {deployment.name}
        </a>
        {deployment.is_preview ? <span class="badge quiet">preview</span> : null}
        {deployment.canary ? <span class="badge busy">canary {deployment.canary.phase.toLowerCase()}</span> : null}
      </td>
      <td>
        <Badge phase={deployment.status} />
      </td>
      <td>{deployment.latest_revision_status ? <Badge phase={deployment.latest_revision_status} /> : <span class="hint">none</span>}</td>
      <td>{tierOf(deployment)}</td>
      <td>
        <AppLink url={deployment.url} />
      </td>
    </tr>
  );
}

/** Create a deployment from an image: the API's own refusal shows beside the form. */
function CreateForm({ client }: { client: Client }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [image, setImage] = useState('');
  const [error, setError] = useState<string>();
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        New deployment
      </button>
    );
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    try {
      const created = await client.create({
        name: name.trim(),
        source: 'external_docker',
        source_revision_config: { image_uri: image.trim() },
      });
      navigate(deploymentPath(created.id));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  return (
    <form class="create" onSubmit={submit}>
      <label>
        Name
        <input name="name" required autocomplete="off" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Image
        <input
          name="image"
          required
          autocomplete="off"
          placeholder="registry/app:tag"
          value={image}
          onInput={(e) => setImage(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Create</button>
      <button type="button" class="quiet" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <Alert text={error} />
    </form>
  );
}

// The URL every Deployment gets from outside the cluster, from the installation's template:
// `http://{deployment}.{organization}.localhost:18080/` under `berth dev`, `https://{deployment}.{organization}.apps.example.com/`
// on a cluster. {deployment} becomes the Deployment's DNS-label name (its Service's), {organization} its
// namespace; the rest of the host is the apps domain, which no custom_url may claim. Pure.
import { childNames } from './child-names.ts';

export interface AppUrlTemplate {
  /** The template as given. */
  readonly text: string;
  readonly scheme: 'http' | 'https';
  /** The host with {deployment} and {organization} left in. */
  readonly host: string;
  /** The port when the URL names one. */
  readonly port?: string;
  /** The host's fixed part after its placeholders: `localhost`, `apps.example.com`. */
  readonly domain: string;
}

const hostPattern = /^\{deployment\}\.\{organization\}\.((?:[a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?)$/;

/** The template, or why it cannot be one. */
export function parseAppUrlTemplate(text: string): AppUrlTemplate | { error: string } {
  const match = /^(https?):\/\/([^/:]+)(?::(\d{1,5}))?\/?$/.exec(text.trim());
  const domain = match ? hostPattern.exec(match[2]!.toLowerCase())?.[1] : undefined;
  if (!match || !domain) {
    return {
      error: `expected http(s)://{deployment}.{organization}.<domain>[:port]/ (e.g. http://{deployment}.{organization}.localhost:18080/), got ${JSON.stringify(text)}`,
    };
  }
  return {
    text,
    scheme: match[1] as 'http' | 'https',
    host: match[2]!.toLowerCase(),
    ...(match[3] ? { port: match[3] } : {}),
    domain,
  };
}

/** The host a Deployment is reached at: `<deployment>.<organization>.<domain>`. */
export function appHost(template: AppUrlTemplate, deploymentName: string, namespace: string): string {
  return template.host.replace('{deployment}', childNames(deploymentName).application).replace('{organization}', namespace);
}

/** The Deployment's URL, `http://<deployment>.<organization>.localhost:18080`: a base, as `${url}/path` reads. */
export function appUrl(template: AppUrlTemplate, deploymentName: string, namespace: string): string {
  return `${template.scheme}://${appHost(template, deploymentName, namespace)}${template.port ? `:${template.port}` : ''}`;
}

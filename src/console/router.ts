// The console's pages by path, with the History API: /console/ (the deployments) and
// /console/deployments/<id> (one of them). A link is a plain <a href>; navigating pushes a state.
import { useEffect, useState } from 'preact/hooks';

export const consoleBase = '/console/';

export type Route = { page: 'deployments' } | { page: 'deployment'; id: string };

export function routeOf(pathname: string): Route {
  const match = /^\/console\/deployments\/([^/]+)\/?$/.exec(pathname);
  return match ? { page: 'deployment', id: decodeURIComponent(match[1]!) } : { page: 'deployments' };
}

export function deploymentPath(id: string): string {
  return `${consoleBase}deployments/${encodeURIComponent(id)}`;
}

export function navigate(path: string): void {
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The route of the address bar, following back, forward and navigate(). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.pathname));
  useEffect(() => {
    const follow = () => setRoute(routeOf(location.pathname));
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);
  return route;
}

/** A link within the console: navigates without reloading (a modified click opens a tab as usual). */
export function onLink(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(anchor.pathname);
}

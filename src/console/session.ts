// The API key (and the organization it is used for, when it reaches more than one), kept for this tab
// only: sessionStorage, never a cookie, localStorage or a URL.
const keys = { apiKey: 'berth.apiKey', tenantId: 'berth.tenantId' } as const;

export interface Session {
  apiKey: string;
  tenantId?: string;
}

export function readSession(): Session | undefined {
  const apiKey = sessionStorage.getItem(keys.apiKey);
  if (!apiKey) return undefined;
  const tenantId = sessionStorage.getItem(keys.tenantId);
  return tenantId ? { apiKey, tenantId } : { apiKey };
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(keys.apiKey, session.apiKey);
  if (session.tenantId) sessionStorage.setItem(keys.tenantId, session.tenantId);
  else sessionStorage.removeItem(keys.tenantId);
}

export function clearSession(): void {
  sessionStorage.removeItem(keys.apiKey);
  sessionStorage.removeItem(keys.tenantId);
}

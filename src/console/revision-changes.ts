// What a revision changed from the one before it, a line per change: each member of its
// source_revision_config, the secrets' names added and removed, and, where nothing else differs, the
// secrets' values (the only other input of a revision's digest). Pure.
import type { Revision } from './api.ts';

export function revisionChanges(before: Revision | undefined, after: Revision): string[] {
  const now = after.source_revision_config as Record<string, unknown>;
  if (!before) return Object.keys(now).length > 0 || after.secret_names.length > 0 ? ['first revision'] : [];
  const then = before.source_revision_config as Record<string, unknown>;
  const config = [...new Set([...Object.keys(then), ...Object.keys(now)])]
    .filter((key) => JSON.stringify(then[key]) !== JSON.stringify(now[key]))
    .map((key) => `${key}: ${show(then[key])} → ${show(now[key])}`);
  const secrets = secretChanges(before.secret_names, after.secret_names);
  const all = [...config, ...secrets];
  // Revisions made before Berth kept their secrets' names say nothing of them.
  const namesKnown = before.secret_names.length > 0 || after.secret_names.length > 0;
  return all.length > 0 || !namesKnown ? all : ['secret values changed'];
}

function secretChanges(before: readonly string[], after: readonly string[]): string[] {
  const added = after.filter((name) => !before.includes(name));
  const removed = before.filter((name) => !after.includes(name));
  return [
    ...(added.length > 0 ? [`secrets added: ${added.join(', ')}`] : []),
    ...(removed.length > 0 ? [`secrets removed: ${removed.join(', ')}`] : []),
  ];
}

function show(value: unknown): string {
  return value === undefined || value === null ? 'unset' : typeof value === 'string' ? value : JSON.stringify(value);
}

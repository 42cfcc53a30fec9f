// A label selector that matches objects carrying every one of these labels. Pure.

/** `key=value,...` of each label, for a list or watch's labelSelector. */
export function labelSelectorOf(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

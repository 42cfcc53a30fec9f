// Peer documents are checked with zod; this turns its findings into one line that names the fields
// at fault and never repeats a value the peer sent (a registration response carries a secret).
import type { z } from 'zod';

export function describeIssues(error: z.ZodError, max = 5): string {
  const parts = error.issues.slice(0, max).map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : '(document)';
    return `${path}: ${issue.code === 'invalid_type' ? `expected ${issue.expected}` : issue.code.replace(/_/g, ' ')}`;
  });
  if (error.issues.length > max) parts.push(`and ${error.issues.length - max} more`);
  return parts.join(', ');
}

// Lists answer {"resources": [...], "offset": next} with limit 1-100 (default 20) and offset, as the
// reference control plane's clients page through them.
import { z } from 'zod';

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Most items to return (1-100).'),
  offset: z.coerce.number().int().min(0).default(0).describe('How many items to skip.'),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

export interface Page<T> {
  resources: T[];
  /** The offset of the next page: offset + the number of items returned. */
  offset: number;
}

/** One page of `items`, each mapped by `render` (only the items on the page are rendered). */
export function paginate<T, R>(items: readonly T[], query: PageQuery, render: (item: T) => R): Page<R> {
  const page = items.slice(query.offset, query.offset + query.limit);
  return { resources: page.map(render), offset: query.offset + page.length };
}

import { describe, expect, it } from 'vitest';
import type { Deployment } from './api.ts';
import { previewsOf } from './previews.ts';

function deployment(name: string, previewOf?: { parent: string; number: number }): Deployment {
  return {
    name,
    preview_of: previewOf
      ? { deployment_name: previewOf.parent, pull_request: previewOf.number, from_fork: false, pull_request_url: null }
      : null,
  } as Deployment;
}

describe("a deployment's previews", () => {
  it('are those naming it, by pull request number', () => {
    const all = [
      deployment('shop'),
      deployment('shop-pr-12', { parent: 'shop', number: 12 }),
      deployment('cart-pr-3', { parent: 'cart', number: 3 }),
      deployment('shop-pr-4', { parent: 'shop', number: 4 }),
    ];
    expect(previewsOf(all, 'shop').map((preview) => preview.name)).toEqual(['shop-pr-4', 'shop-pr-12']);
    expect(previewsOf(all, 'cart-pr-3')).toEqual([]);
  });
});

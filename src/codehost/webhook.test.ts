import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeHostProviders } from '../api/codehost-providers.ts';
import { deliveryHint, deliveryVerified, sameRepository } from './webhook.ts';

const body = Buffer.from('{"action":"opened","number":3,"repository":{"html_url":"https://github.com/acme/shop"}}');
const signed = (secret: string, bytes = body) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

describe('webhook deliveries', () => {
  it("verifies GitHub's signature over the exact bytes, and nothing else", () => {
    expect(deliveryVerified(codeHostProviders.github, { 'x-hub-signature-256': signed('s3cret') }, body, 's3cret')).toBe(true);
    expect(deliveryVerified(codeHostProviders.github, { 'x-hub-signature-256': signed('other') }, body, 's3cret')).toBe(false);
    expect(deliveryVerified(codeHostProviders.github, { 'x-hub-signature-256': signed('s3cret') }, Buffer.from(`${body} `), 's3cret')).toBe(
      false,
    );
    expect(deliveryVerified(codeHostProviders.github, {}, body, 's3cret')).toBe(false);
    expect(deliveryVerified(codeHostProviders.github, { 'x-hub-signature-256': signed('') }, body, '')).toBe(false);
  });

  it("verifies GitLab's token", () => {
    expect(deliveryVerified(codeHostProviders.gitlab, { 'x-gitlab-token': 's3cret' }, body, 's3cret')).toBe(true);
    expect(deliveryVerified(codeHostProviders.gitlab, { 'x-gitlab-token': 's3cre' }, body, 's3cret')).toBe(false);
  });

  it('reads the event, the repository and the delivery id as a hint', () => {
    expect(
      deliveryHint(codeHostProviders.github, { 'x-github-event': 'pull_request', 'x-github-delivery': 'abc' }, JSON.parse(body.toString())),
    ).toEqual({
      event: 'pull_request',
      repositoryUrl: 'https://github.com/acme/shop',
      delivery: 'abc',
    });
    expect(
      deliveryHint(
        codeHostProviders.gitlab,
        { 'x-gitlab-event': 'Merge Request Hook' },
        { project: { web_url: 'https://gitlab.com/g/app' } },
      ),
    ).toEqual({
      event: 'Merge Request Hook',
      repositoryUrl: 'https://gitlab.com/g/app',
    });
    expect(deliveryHint(codeHostProviders.github, {}, { repository: { html_url: 7 } })).toEqual({ event: '' });
  });

  it('tells the same repository apart from another', () => {
    expect(sameRepository('https://github.com/Acme/Shop.git', 'https://github.com/acme/shop/')).toBe(true);
    expect(sameRepository('https://github.com/acme/shop', 'https://github.com/acme/shop2')).toBe(false);
  });
});

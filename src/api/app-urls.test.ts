import { describe, expect, it } from 'vitest';
import { appHost, appUrl, parseAppUrlTemplate, type AppUrlTemplate } from './app-urls.ts';

describe('app URLs', () => {
  it('reads a template and fills it in with the deployment and its organization', () => {
    const template = parseAppUrlTemplate('http://{deployment}.{organization}.localhost:18080/') as AppUrlTemplate;
    expect(template).toMatchObject({ scheme: 'http', port: '18080', domain: 'localhost' });
    expect(appUrl(template, 'shop', 'team-a')).toBe('http://shop.team-a.localhost:18080');
    // A dotted Deployment name takes its Service's name: one DNS label.
    expect(appHost(template, 'shop.v2', 'team-a')).toBe('shop-v2.team-a.localhost');
    const onCluster = parseAppUrlTemplate('https://{deployment}.{organization}.apps.example.com') as AppUrlTemplate;
    expect(appUrl(onCluster, 'shop', 'team-a')).toBe('https://shop.team-a.apps.example.com');
    expect(onCluster.domain).toBe('apps.example.com');
  });

  it('refuses a template that does not put both names first in the host', () => {
    for (const text of [
      'http://{deployment}.localhost/',
      'http://x.{deployment}.{organization}.localhost/',
      'ftp://{deployment}.{organization}.a/',
      'http://{deployment}.{organization}.a/path',
    ])
      expect(parseAppUrlTemplate(text)).toHaveProperty('error');
  });
});

import { describe, expect, it } from 'vitest';
import { uploadUrl } from './uploads.ts';

describe('uploadUrl', () => {
  const request = { url: '/api-host/v2/deployments/d/upload-url', protocol: 'http' as const, host: 'attacker.example' };

  it("is under the installation's public URL when it has one, whatever Host the request named, under the prefix it called", () => {
    expect(uploadUrl(request, 'tok', 'https://berth.example.com')).toBe('https://berth.example.com/api-host/v2/uploads/tok');
    expect(uploadUrl({ ...request, url: '/v2/deployments/d/upload-url' }, 'tok', 'https://berth.example.com/base')).toBe(
      'https://berth.example.com/base/v2/uploads/tok',
    );
  });

  it('is where the request reached the API without one', () => {
    expect(uploadUrl(request, 'tok')).toBe('http://attacker.example/api-host/v2/uploads/tok');
  });
});

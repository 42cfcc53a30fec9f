// The optional check that a statically configured endpoint answers at all. Any HTTP answer counts
// (a token endpoint rightly refuses a bare GET); only silence, refusal or a TLS failure does not.
import { describeUrl, requestJson, type PeerRequestOptions } from './http.ts';

/** Undefined when `url` answered, otherwise why not. */
export async function endpointUnreachable(url: string, options: PeerRequestOptions = {}): Promise<string | undefined> {
  try {
    await requestJson('GET', url, { ...options, maxBytes: options.maxBytes ?? 64 * 1024 });
    return undefined;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const kind = (error as { kind?: string }).kind;
    // An oversized page still proves the endpoint answers.
    if (kind === 'too_large') return undefined;
    return error instanceof Error ? error.message : `GET ${describeUrl(url)} failed`;
  }
}

// The facade's error model: every failure a client can cause answers with a 4xx and a `detail`, in the
// two shapes the reference control plane's clients already parse. Validation problems carry a list of
// {loc, msg, type}; everything else a sentence.
import type { z } from 'zod';

export interface ValidationProblem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An error meant for the client: its status and detail are sent as they are. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly detail: string | ValidationProblem[];

  constructor(statusCode: number, detail: string | ValidationProblem[]) {
    super(typeof detail === 'string' ? detail : detail.map((p) => `${p.loc.join('.')}: ${p.msg}`).join('; '));
    this.statusCode = statusCode;
    this.detail = detail;
  }
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail: string) => new HttpError(401, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);
export const unprocessable = (problems: ValidationProblem[]) => new HttpError(422, problems);
export const unavailable = (detail: string) => new HttpError(503, detail);
export const tooManyRequests = (detail: string) => new HttpError(429, detail);

export function invalidField(loc: (string | number)[], msg: string, type = 'value_error'): HttpError {
  return unprocessable([{ loc, msg, type }]);
}

/**
 * Zod issues in the {loc, msg, type} form. `where` is the part of the request ('body', 'query',
 * 'path'); an object with unknown keys yields one problem per key, as clients expect to find each
 * offending member by its own location.
 */
export function problemsFromZod(where: string, error: z.ZodError): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ loc: [where, ...path, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      }
    } else if (issue.code === 'invalid_union') {
      problems.push({ loc: [where, ...path], msg: issue.message, type: 'invalid_union' });
    } else {
      problems.push({ loc: [where, ...path], msg: issue.message, type: issue.code });
    }
  }
  return problems;
}

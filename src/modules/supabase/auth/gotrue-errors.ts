// GoTrue's error wire for /auth/v1: {code, message} when the client asked for API version
// 2024-01-01 (auth-js does), else the legacy {code: status, error_code, msg}; the answer always
// names the API version, since auth-js reads `code` only when the response carries it.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../../../core/errors.js';
import { toAppError } from '../../../http/error-handler.js';

export const API_VERSION_HEADER = 'x-supabase-api-version';
export const API_VERSION = '2024-01-01';

/** An error in GoTrue's vocabulary: its HTTP status and error code, chosen by the adapter. */
export class GoTrueError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'GoTrueError';
  }
}

/** Plinth's codes in GoTrue's vocabulary, where a route does not choose more precisely. */
const BY_CODE: Partial<Record<ErrorCode, [number, string]>> = {
  VALIDATION_ERROR: [400, 'validation_failed'],
  UNAUTHORIZED: [401, 'no_authorization'],
  AUTH_UNAUTHORIZED: [403, 'bad_jwt'],
  FORBIDDEN: [403, 'not_admin'],
  INSUFFICIENT_PERMISSIONS: [403, 'not_admin'],
  AUTH_SIGNUP_DISABLED: [422, 'signup_disabled'],
  AUTH_USER_NOT_FOUND: [404, 'user_not_found'],
  NOT_FOUND: [404, 'not_found'],
  AUTH_EMAIL_EXISTS: [422, 'email_exists'],
  AUTH_OAUTH_CONFIG_NOT_FOUND: [400, 'provider_disabled'],
  AUTH_UNSUPPORTED_PROVIDER: [400, 'provider_disabled'],
  TOO_MANY_REQUESTS: [429, 'over_request_rate_limit'],
  PAYLOAD_TOO_LARGE: [413, 'request_too_large'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'validation_failed'],
};

/** An ended session's token: auth-js treats session_not_found as "signed out". */
const ENDED_SESSION = 'The session of this access token has ended.';

export function toGoTrueError(err: unknown): GoTrueError | undefined {
  if (err instanceof GoTrueError) return err;
  const app = err instanceof AppError ? err : toAppError(err as FastifyError);
  if (!app || app.statusCode >= 500) return undefined;
  if (app.code === 'AUTH_UNAUTHORIZED' && app.message === ENDED_SESSION) {
    return new GoTrueError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
  }
  const [status, code] = BY_CODE[app.code] ?? [app.statusCode, 'unexpected_failure'];
  return new GoTrueError(status, code, app.message, app.headers ? { headers: app.headers } : {});
}

/** Re-throws a Plinth error of `code` as the GoTrue error `to` makes; anything else passes. */
export async function translating<T>(work: Promise<T>, code: ErrorCode, to: (err: AppError) => GoTrueError) {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError && err.code === code) throw to(err);
    throw err;
  }
}

/** A password the policy refuses: 422 weak_password with the reasons auth-js shows; other bad input 400. */
export function weakPassword(err: AppError): GoTrueError {
  const details = Array.isArray(err.details) ? (err.details as { field?: string; rule?: string }[]) : [];
  if (!details.some((d) => d.field === 'password')) return new GoTrueError(400, 'validation_failed', err.message);
  const reasons = [...new Set(details.map((d) => (d.rule === 'passwordMinLength' ? 'length' : 'characters')))];
  return new GoTrueError(422, 'weak_password', err.message, { weak_password: { reasons } });
}

const asksForVersion = (request: FastifyRequest) => {
  const asked = request.headers[API_VERSION_HEADER];
  return typeof asked === 'string' && asked >= API_VERSION;
};

/** The error handler of the /auth/v1 scope. */
export function gotrueErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = toGoTrueError(err);
  reply.header(API_VERSION_HEADER, API_VERSION);
  if (!known) {
    request.log.error({ err }, 'unhandled error');
    const msg = `Unexpected failure; quote request id ${request.id} when reporting it.`;
    return reply
      .code(500)
      .send(
        asksForVersion(request)
          ? { code: 'unexpected_failure', message: msg }
          : { code: 500, error_code: 'unexpected_failure', msg },
      );
  }
  const { headers, ...extra } = known.extra as { headers?: Record<string, string> };
  if (headers) reply.headers(headers);
  const body = asksForVersion(request)
    ? { code: known.code, message: known.message, ...extra }
    : { code: known.status, error_code: known.code, msg: known.message, ...extra };
  return reply.code(known.status).type('application/json; charset=utf-8').send(body);
}

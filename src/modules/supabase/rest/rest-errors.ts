// Where /rest/v1 answers differently from /api/database/records: PostgREST's statuses and codes for
// the few cases Plinth's records API settles otherwise (a missing foreign key is PostgREST's 409;
// a rejected access token carries PGRST301/PGRST303). The body stays the records API's, a
// superset of PostgREST's `{code, message, details, hint}`.
import { AppError } from '../../../core/errors.js';

/** PostgREST's answer for `err`, or `err` itself when the records API already answers alike. */
export function asPostgrestError(err: unknown): unknown {
  if (!(err instanceof AppError)) return err;
  // PostgREST answers every foreign_key_violation with 409; Plinth answers an insert or update
  // naming a missing row with 400 (only "still referenced" is its 409).
  if (err.fields?.code === '23503' && err.statusCode !== 409) {
    return new AppError('CONFLICT', err.message, { cause: err, nextActions: err.nextActions, fields: err.fields });
  }
  if (err.code === 'AUTH_UNAUTHORIZED' && err.fields?.code === undefined) {
    const code = /expired/i.test(err.message) ? 'PGRST303' : 'PGRST301';
    return new AppError('AUTH_UNAUTHORIZED', err.message, {
      cause: err,
      nextActions: err.nextActions,
      fields: { code, details: null, hint: null },
    });
  }
  return err;
}
